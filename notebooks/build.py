"""Re-execute the curriculum's notebooks and store their outputs (the one build command).

    .venv/bin/python notebooks/build.py                  # every notebooks/NN_*.ipynb
    .venv/bin/python notebooks/build.py 05_dtypes.ipynb  # some of them
    .venv/bin/python notebooks/build.py --from-script draft.py notebooks/07_autograd.ipynb

Each notebook runs top to bottom in a fresh kernel (cwd notebooks/); outputs, execution
counts and nothing else are stored (no timing metadata, no widget state), so a rebuild of
unchanged notebooks changes no bytes and strict ``pytest --nbval`` compares them.
No cell may end in an error (Colab's Run All would stop there): an error stops the build.

``--from-script SRC DEST`` first turns a "percent" script into DEST: cells start with
``# %%`` (code) or ``# %% [markdown]`` (markdown, each line ``# ``-commented), optionally
followed by ``tags=["pytorch", ...]``.

``--ensure-setup [NAME ...]`` makes each notebook's first code cell the setup cell (it installs
jtensor where it is missing: Colab, VS Code outside ``./dev.sh``) and refreshes the index's
"Open in Colab" table, both from ``REPOSITORY_URL`` below; a notebook it changed is re-run.
Running it again changes nothing.
"""

import argparse
import ast
import json
import os
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
KERNEL = "python3"
CELL_TIMEOUT = 120
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"

# The course's git repository: the one place its address is written. It is not public yet, so
# it is empty; the course author sets it once (e.g. "https://github.com/<owner>/<name>") and
# runs ``notebooks/build.py --ensure-setup``, which writes it into every notebook's setup cell
# (Colab installs jtensor from it) and into the index's "Open in Colab" links.
REPOSITORY_URL = ""
REPOSITORY_BRANCH = "main"
SETUP_TAG = "setup"  # the tag that marks the setup cell (and the index's generated links)
COLAB_TAG = "colab-links"


# The setup cell. __URL__ and __BRANCH__ are replaced by REPOSITORY_URL/REPOSITORY_BRANCH;
# {_name} is IPython's expansion of a Python variable inside the %pip line magic.
_SETUP = """\
# Setup for Colab and VS Code: installs jtensor where it is missing. Where jtensor
# is installed (JupyterLab started by ./dev.sh lab) this cell does nothing.
import importlib.util

if importlib.util.find_spec("jtensor") is None:
    import pathlib
    _repository, _branch = __URL__, __BRANCH__  # set once in notebooks/build.py
    _checkout = pathlib.Path.cwd().parent  # a notebook runs in its own folder
    _extras = "tqdm matplotlib ipywidgets"  # progress bars, plots, interactive widgets
    if (_checkout / "jtensor" / "__init__.py").is_file():
        # not -e: an editable install is only found by a kernel started after it
        %pip install -q "{_checkout}" {_extras}
    elif _repository:
        %pip install -q "jtensor @ git+{_repository}@{_branch}" {_extras}
    else:
        raise ImportError("jtensor is missing and this notebook is not in a checkout of "
                          "the course: clone its repository and pip install it there")
    importlib.invalidate_caches()  # the next cell imports the fresh install"""


def setup_source(url=None, branch=None):
    """The source of the setup cell: it installs jtensor where it is missing, and prints
    nothing where it is importable (so nbval's stored outputs do not depend on where the
    course runs). A checkout (the notebook's parent folder, VS Code's working folder) is
    installed before the repository URL is tried."""
    url = REPOSITORY_URL if url is None else url
    branch = REPOSITORY_BRANCH if branch is None else branch
    # json.dumps: a double-quoted Python string literal, as the rest of the cell writes them
    return _SETUP.replace("__URL__", json.dumps(url)).replace("__BRANCH__", json.dumps(branch))


def colab_url(name, url=None, branch=None):
    """Colab's address of notebook ``name`` in the repository, or None where Colab cannot
    open it by address (no URL set, or not a GitHub repository)."""
    url = REPOSITORY_URL if url is None else url
    branch = REPOSITORY_BRANCH if branch is None else branch
    m = re.fullmatch(r"https://github\.com/([^/\s]+)/([^/\s]+?)(?:\.git)?/?", url.strip())
    if not m:
        return None
    return (f"https://colab.research.google.com/github/{m.group(1)}/{m.group(2)}/blob/"
            f"{branch}/notebooks/{name}")


def _title(nb):
    first = nb.cells[0].source.splitlines()[0] if nb.cells else ""
    return first.lstrip("# ").strip()


def colab_links_source(paths, url=None, branch=None):
    """The index's table of every notebook: the relative link (JupyterLab, VS Code) and the
    "Open in Colab" link built from ``REPOSITORY_URL``, or, while no URL is set, an honest
    note instead of links that would lead nowhere."""
    import nbformat

    url = REPOSITORY_URL if url is None else url
    lines = ["### Opening the notebooks in Colab",
             "Colab does not follow links from one notebook to another: the relative links of "
             "this index and of each notebook's footer work in JupyterLab and VS Code only."]
    rows = [(p.name, _title(nbformat.read(p, as_version=4)), colab_url(p.name, url, branch))
            for p in paths]
    if all(link is None for _, _, link in rows):
        lines.append("")
        lines.append("*The course's repository address is not set yet, so there are no "
                     "\"Open in Colab\" links here: the course author sets `REPOSITORY_URL` in "
                     "`notebooks/build.py` once and runs `notebooks/build.py --ensure-setup`, "
                     "which adds them. Until then a notebook uploaded to Colab needs jtensor "
                     "installed by hand; its setup cell stops with an `ImportError` that says "
                     "so.*")
        return "\n".join(lines)
    lines.append("Open each notebook from this table instead.")
    lines += ["", "| notebook | JupyterLab, VS Code | Colab |", "|---|---|---|"]
    for name, title, link in rows:
        lines.append(f"| {title.split(':')[0]} | [{name}]({name}) | "
                     f"[Open in Colab]({link}) |")
    return "\n".join(lines)


def _tags(cell):
    return cell.metadata.get("tags", [])


def ensure_setup(nb, index_paths=None, url=None, branch=None):
    """Make ``nb``'s first code cell the setup cell (inserted before the first code cell, or
    its source refreshed; a setup cell found anywhere else is removed) and, for the index
    (``index_paths``: the notebooks it lists), refresh its Colab table, inserted after its
    last markdown cell when missing. Returns whether ``nb`` changed: a second run changes
    nothing. A changed notebook has cells without outputs: the caller re-runs it."""
    import nbformat

    changed = False
    source = setup_source(url, branch)
    code = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    keep = None
    if code and SETUP_TAG in _tags(nb.cells[code[0]]):
        keep = nb.cells[code[0]]
        if keep.source != source:
            keep.source, keep.outputs, keep.execution_count = source, [], None
            changed = True
    cells = [c for c in nb.cells
             if c is keep or not (c.cell_type == "code" and SETUP_TAG in _tags(c))]
    changed |= len(cells) != len(nb.cells)
    nb.cells = cells
    if keep is None:
        cell = nbformat.v4.new_code_cell(source)
        cell.metadata["tags"] = [SETUP_TAG]
        first = next((i for i, c in enumerate(nb.cells) if c.cell_type == "code"),
                     len(nb.cells))
        nb.cells.insert(first, cell)
        changed = True
    if index_paths is not None:
        table = colab_links_source(index_paths, url, branch)
        found = [c for c in nb.cells if c.cell_type == "markdown" and COLAB_TAG in _tags(c)]
        if not found:
            md = nbformat.v4.new_markdown_cell(table)
            md.metadata["tags"] = [COLAB_TAG]
            last_md = max(i for i, c in enumerate(nb.cells) if c.cell_type == "markdown")
            nb.cells.insert(last_md + 1, md)
            changed = True
        elif found[0].source != table:
            found[0].source = table
            changed = True
    return changed


def script_to_notebook(text):
    """A notebook (nbformat v4) from a percent-format script."""
    import nbformat

    nb = nbformat.v4.new_notebook()
    cells = []
    header = re.compile(r"^# %%(?P<md> \[markdown\])?(?:\s+tags=(?P<tags>\[.*\]))?\s*$")
    current = None
    for line in text.splitlines():
        m = header.match(line)
        if m:
            current = {"md": bool(m.group("md")),
                       "tags": ast.literal_eval(m.group("tags")) if m.group("tags") else [],
                       "lines": []}
            cells.append(current)
        elif current is not None:
            current["lines"].append(line)
    for c in cells:
        lines = c["lines"]
        while lines and not lines[-1].strip():
            lines.pop()
        while lines and not lines[0].strip():
            lines.pop(0)
        if c["md"]:
            src = "\n".join(re.sub(r"^# ?", "", ln) for ln in lines)
            cell = nbformat.v4.new_markdown_cell(src)
        else:
            cell = nbformat.v4.new_code_cell("\n".join(lines))
        if c["tags"]:
            cell.metadata["tags"] = c["tags"]
        cells_out = cell
        nb.cells.append(cells_out)
    nb.metadata["kernelspec"] = {"name": KERNEL, "display_name": "Python 3",
                                 "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    return nb


# Warnings name the kernel's temporary file of the cell (its folder has the kernel's pid).
_CELL_FILE = re.compile(r"(?:[^\s\"'<>]*[/\\])?ipykernel_[0-9]+[/\\][0-9]+\.py")
SANITIZE = HERE.parent / "jtensor" / "nbval_sanitize.cfg"


def _path_patterns():
    """The shipped sanitizer's ``*-paths`` sections, compiled: the kernel's cell files, jtensor's
    and site-packages' files, and any other absolute path. The build stores outputs with
    them applied, so no machine's folders (a home, a checkout) end up in a notebook."""
    found = re.findall(r"^\[([^\]]+-paths)\]\n(?:#.*\n)*regex: (.*)\nreplace: (.*)$",
                       SANITIZE.read_text(), flags=re.M)
    return [(re.compile(regex), replace) for _, regex, replace in found]


def _strip_paths(text, patterns):
    for regex, replace in patterns:
        text = regex.sub(replace, text)
    return text


def _coalesce(outputs):
    """Join consecutive stream outputs of the same name: how the kernel split a printout
    depends on timing (nbval joins them too before comparing)."""
    joined = []
    for out in outputs:
        if (out.get("output_type") == "stream" and joined
                and joined[-1].get("output_type") == "stream"
                and joined[-1]["name"] == out["name"]):
            joined[-1]["text"] += out["text"]
        else:
            joined.append(out)
    return joined


def _normalise(nb):
    """Drop what changes from run to run without meaning anything (ids, timings, pids,
    absolute paths)."""
    paths = _path_patterns()
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"cell-{i:03d}"  # stable ids: a rebuild changes no bytes
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code":
            cell.outputs = _coalesce(cell.outputs)
            for out in cell.outputs:
                out.get("metadata", {}).pop("execution", None)
                # A live widget's view names a random model id, and its state is not stored:
                # keep the deterministic text/html snapshot every front end can show.
                out.get("data", {}).pop(WIDGET_VIEW, None)
                if out.get("output_type") == "stream":
                    out["text"] = _strip_paths(_CELL_FILE.sub("<cell>", out["text"]), paths)
                elif out.get("output_type") == "error":
                    out["evalue"] = _strip_paths(out["evalue"], paths)
                    out["traceback"] = [_strip_paths(t, paths) for t in out["traceback"]]
                for kind, value in out.get("data", {}).items():
                    if kind.startswith("text/") and isinstance(value, str):
                        out["data"][kind] = _strip_paths(value, paths)
    nb.metadata.pop("widgets", None)
    nb.metadata["language_info"] = {"name": "python"}
    return nb


def execute(path):
    """Run ``path`` in a fresh kernel and store it with its outputs."""
    import nbclient
    import nbformat

    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    client = nbclient.NotebookClient(nb, kernel_name=KERNEL, timeout=CELL_TIMEOUT,
                                     resources={"metadata": {"path": str(HERE)}},
                                     record_timing=False, allow_errors=False)
    client.execute()
    nbformat.write(_normalise(nb), path)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("notebooks", nargs="*", help="notebooks to rebuild (default: all NN_*.ipynb)")
    p.add_argument("--from-script", nargs=2, metavar=("SRC", "DEST"),
                   help="write DEST from the percent script SRC, then execute it")
    p.add_argument("--ensure-setup", action="store_true",
                   help="make the first code cell the setup cell (and refresh the index's "
                        "Colab links); re-run only the notebooks this changed")
    args = p.parse_args(argv)
    import nbformat

    # The kernels inherit the environment: the notebooks choose their devices themselves.
    for var in ("JTENSOR_EMULATE_CUDA", "CUDA_LAUNCH_BLOCKING"):
        os.environ.pop(var, None)

    if args.from_script:
        src, dest = map(pathlib.Path, args.from_script)
        nbformat.write(script_to_notebook(src.read_text()), dest)
        paths = [dest]
    elif args.notebooks:
        paths = [pathlib.Path(n) if pathlib.Path(n).exists() else HERE / n
                 for n in args.notebooks]
    else:
        paths = sorted(HERE.glob("[0-9][0-9]_*.ipynb"))
    if args.ensure_setup:
        changed = []
        topics = [q for q in sorted(HERE.glob("[0-9][0-9]_*.ipynb"))
                  if q.name != "00_index.ipynb"]
        for path in paths:
            nb = nbformat.read(path, as_version=4)
            if ensure_setup(nb, topics if path.name == "00_index.ipynb" else None):
                nbformat.write(nb, path)
                changed.append(path)
            else:
                print(f"unchanged {path.name}", flush=True)
        paths = changed
    for path in paths:
        print(f"executing {path.name}", flush=True)
        execute(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
