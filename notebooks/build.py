"""Re-execute the curriculum's notebooks and store their outputs (the one build command).

    .venv/bin/python notebooks/build.py                  # every notebooks/NN_*.ipynb
    .venv/bin/python notebooks/build.py 05_dtypes.ipynb  # some of them
    .venv/bin/python notebooks/build.py --from-script draft.py notebooks/07_autograd.ipynb

Each notebook runs top to bottom in a fresh kernel (cwd notebooks/); outputs, execution
counts and nothing else are stored (no timing metadata, no widget state), so a rebuild of
unchanged notebooks changes no bytes and strict ``pytest --nbval`` compares them.
Cells tagged ``raises-exception`` may raise; any other error stops the build.

``--from-script SRC DEST`` first turns a "percent" script into DEST: cells start with
``# %%`` (code) or ``# %% [markdown]`` (markdown, each line ``# ``-commented), optionally
followed by ``tags=["pytorch", ...]``.
"""

import argparse
import ast
import os
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
KERNEL = "python3"
CELL_TIMEOUT = 120
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


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
    for path in paths:
        print(f"executing {path.name}", flush=True)
        execute(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
