"""The curriculum's text as a learner meets it: checks for the kinds of error issue 21 found.

- The course never speaks of "the seed" (the source texts it was written from, which learners
  never see): it says what is commonly claimed and what PyTorch does.
- Each notebook has exactly one navigation footer, its last cell, linking the real previous
  and next notebooks (by number, labelled with their titles) and the index.
- No claim that notebooks are "coming" (they all exist).
- No absolute machine path in any stored output, and the shipped sanitizer and the build
  both turn any absolute path into ``.../name``.
- No markdown heading that is a sentence; no markdown heading (such as "Exercises") hidden in
  a code cell's comment.
- The index is a learning path: each notebook core or optional, with a time and what it needs
  first, and the core path and totals consistent with them.
- Nothing on stderr (Jupyter, Colab and VS Code show it in red, like a failure): a warning the
  course teaches is caught and printed; one it does not is fixed at its cause or silenced for
  its category only, never with a blanket "ignore".
"""

import importlib.util
import pathlib
import re

import pytest

nbformat = pytest.importorskip("nbformat")

import jtensor.nbval  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
ALL = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
TOPICS = [p for p in ALL if p.name != "00_index.ipynb"]


def _cells(path):
    return nbformat.read(path, as_version=4).cells


def _markdown(path):
    return [(i, c.source) for i, c in enumerate(_cells(path)) if c.cell_type == "markdown"]


def _code_comments(source):
    return [ln.split("#", 1)[1] for ln in source.splitlines() if "#" in ln]


def _build():
    spec = importlib.util.spec_from_file_location("curriculum_build", NOTEBOOKS / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ------------------------------------------------------------------ "the seed"
# The random-number sense stays (torch.manual_seed, a seeded generator, a random seed).
_SEED = re.compile(r"\bseeds?\b", re.I)
_SEED_RNG = re.compile(r"manual_seed|initial_seed|\.seed\(|seeded|random seeds?|"
                       r"seeds? (?:the|a|its|your) (?:random )?(?:number )?generator", re.I)


def _seed_mentions(text):
    text = re.sub(r"`[^`\n]*`", "", text)          # code spans: torch.manual_seed(0)...
    return [m for m in _SEED.finditer(_SEED_RNG.sub("", text))]


@pytest.mark.parametrize("path", ALL, ids=[p.name for p in ALL])
def test_no_text_speaks_of_the_seed(path):
    found = []
    for i, c in enumerate(_cells(path)):
        texts = [c.source] if c.cell_type == "markdown" else _code_comments(c.source)
        for text in texts:
            for m in _seed_mentions(text):
                found.append(f"cell {i}: ...{text[max(0, m.start() - 60):m.end() + 60]}...")
    assert not found, (f"{path.name} speaks of 'the seed' (learners never see the source "
                       f"texts: say what is commonly claimed and what PyTorch does):\n"
                       + "\n".join(found))


def test_the_seed_check_keeps_the_random_number_sense():
    assert not _seed_mentions("Call `torch.manual_seed(0)`; pass a seeded `torch.Generator`.")
    assert not _seed_mentions("Seed the generator to reproduce them, with a random seed.")
    assert _seed_mentions("A correction to the seed notes: they say")
    assert _seed_mentions("## The view-of-a-leaf error (seed 000)")
    assert _seed_mentions("Another seed warns that memory balloons.")


# ------------------------------------------------------------------ navigation
_NAV_LINE = re.compile(r"^\s*(?:Previous:|Next:)|\]\(00_index\.ipynb\)", re.M)


def _title(path):
    first = _cells(path)[0].source.splitlines()[0]
    return first.lstrip("# ").strip()


@pytest.mark.parametrize("path", TOPICS, ids=[p.name for p in TOPICS])
def test_one_navigation_footer_linking_the_real_neighbours(path):
    cells = _cells(path)
    footers = [i for i, c in enumerate(cells)
               if c.cell_type == "markdown" and _NAV_LINE.search(c.source)]
    assert footers == [len(cells) - 1], (
        f"{path.name}: navigation in cells {footers}; want exactly one footer, the last cell")
    footer = cells[-1].source.strip()
    assert "\n" not in footer, f"{path.name}: the footer is one line, nothing else: {footer!r}"
    k = TOPICS.index(path)
    want = ([("Previous", TOPICS[k - 1])] if k else []) + \
        ([("Next", TOPICS[k + 1])] if k + 1 < len(TOPICS) else [])
    got = re.findall(r"(Previous|Next): \[([^\]]+)\]\(([^)]+)\)", footer)
    assert [(w, p) for w, _, p in got] == [(w, p.name) for w, p in want], footer
    for (_, label, _), (_, target) in zip(got, want, strict=True):
        # "NN · Title" (the part before a colon of the target's own title)
        assert label == _title(target).split(":")[0].strip(), (label, _title(target))
    assert footer.endswith("[index](00_index.ipynb)"), footer


@pytest.mark.parametrize("path", ALL, ids=[p.name for p in ALL])
def test_no_claim_that_notebooks_are_still_coming(path):
    stale = re.compile(r"\b(?:are|is) coming\b|\bcoming soon\b|\bnot (?:yet )?written\b|"
                       r"\bto be (?:written|added)\b|\bwill be added\b|\bTODO\b|\bTBD\b", re.I)
    found = [f"cell {i}: {m.group(0)!r}" for i, text in _markdown(path)
             for m in stale.finditer(text)]
    assert not found, f"{path.name} promises what exists or is missing: {found}"


# ------------------------------------------------------------------ headings
@pytest.mark.parametrize("path", ALL, ids=[p.name for p in ALL])
def test_headings_are_titles_not_sentences(path):
    bad = []
    for i, text in _markdown(path):
        for line in text.splitlines():
            m = re.match(r"^(#{1,6})\s+(.*)$", line)
            if not m:
                continue
            words = m.group(2).split()
            if m.group(2).rstrip().endswith((".", ";", ",")) or "; " in m.group(2) \
                    or len(words) > 12:
                bad.append(f"cell {i}: {line[:100]}")
        if re.search(r"^#{1,6}\s", text, re.M) and i > 0:
            # only the first cell may carry the notebook's title (one '# ')
            bad += [f"cell {i}: {ln[:100]}" for ln in text.splitlines()
                    if re.match(r"^# \S", ln)]
    assert not bad, f"{path.name}: headings that are sentences (or a second title): {bad}"


@pytest.mark.parametrize("path", ALL, ids=[p.name for p in ALL])
def test_no_markdown_heading_inside_a_code_cell(path):
    bad = []
    for i, c in enumerate(_cells(path)):
        if c.cell_type != "code":
            continue
        for line in c.source.splitlines():
            if re.match(r"^\s*#\s*#{1,6}\s", line) or \
                    re.match(r"^\s*#+\s*(?:Exercises?|Summary)\s*$", line, re.I):
                bad.append(f"cell {i}: {line!r}")
    assert not bad, (f"{path.name}: a heading in a code comment (make it a markdown cell, "
                     f"where it renders and shows in the table of contents): {bad}")


# ------------------------------------------------------------------ the index
_ENTRY = re.compile(r"^(\d+)\. \[[^\]]+\]\((\d\d)_\w+\.ipynb\) · (core|optional) · (\d+) min · "
                    r"needs: (.+?)\s*$", re.M)


def test_index_is_a_learning_path():
    """Every notebook in the index says whether it is on the core path, a learner's time and
    what it needs first (earlier notebooks only); the core path line lists the core ones in
    order, and the totals it states match the minutes."""
    text = "\n".join(src for _, src in _markdown(NOTEBOOKS / "00_index.ipynb"))
    entries = _ENTRY.findall(text)
    assert [int(n) for n, *_ in entries] == list(range(1, len(TOPICS) + 1)), entries
    core, optional = [], []
    for n, file_number, kind, minutes, needs in entries:
        assert int(n) == int(file_number)
        assert 10 <= int(minutes) <= 120, (n, minutes)
        (core if kind == "core" else optional).append((int(n), int(minutes)))
        for need in re.findall(r"\b\d\d\b", needs):
            assert int(need) < int(n), f"notebook {n} needs a later notebook {need}"
    line = re.search(r"\*\*Core path\*\* \(about ([\d½]+) hours\): ([\d →]+)\.", text)
    assert line, "no core path line"
    assert [int(k) for k in line.group(2).split(" → ")] == [k for k, _ in core]
    hours = sum(m for _, m in core) / 60
    assert abs(hours - float(line.group(1).replace("½", ".5"))) <= 0.5, hours
    opt = re.search(r"\*\*Optional\*\* \(about ([\d½]+) hours\): ([\d, ]+),", text)
    assert opt and [int(k) for k in opt.group(2).split(", ")] == [k for k, _ in optional]
    hours = sum(m for _, m in optional) / 60
    assert abs(hours - float(opt.group(1).replace("½", ".5"))) <= 0.5, hours


# ------------------------------------------------------------------ stderr
@pytest.mark.parametrize("path", ALL, ids=[p.name for p in ALL])
def test_nothing_on_stderr(path):
    found = [f"cell {i}: {out['text'][:200]!r}" for i, cell in enumerate(_cells(path))
             for out in cell.get("outputs", [])
             if out.get("output_type") == "stream" and out.get("name") == "stderr"]
    assert not found, (f"{path.name} writes to stderr, which front ends show as a failure "
                       f"(catch and print a warning the text explains; otherwise fix its "
                       f"cause or silence its category):\n" + "\n".join(found))


_BLANKET = re.compile(r"(?:simplefilter|filterwarnings)\(\s*[\"']ignore[\"']\s*\)")


@pytest.mark.parametrize("path", ALL, ids=[p.name for p in ALL])
def test_no_blanket_warning_filter(path):
    found = [f"cell {i}" for i, c in enumerate(_cells(path))
             if c.cell_type == "code" and _BLANKET.search(c.source)]
    assert not found, (f"{path.name} ignores every warning in {found}: name the category "
                       f"(warnings.simplefilter('ignore', SomeWarning)) inside catch_warnings")


# ------------------------------------------------------------------ absolute paths
def _output_texts(cell):
    for out in cell.get("outputs", []):
        if "text" in out:
            yield out["text"]
        for kind, value in out.get("data", {}).items():
            if kind.startswith("text/"):
                yield value if isinstance(value, str) else "".join(value)
        if out.get("output_type") == "error":
            yield out["evalue"]
            yield from out["traceback"]


def _sanitize(text):
    """``text`` as nbval compares it, with the sanitize file jtensor ships."""
    from nbval.plugin import get_sanitize_patterns

    shipped = pathlib.Path(jtensor.nbval.sanitize_path()).read_text()
    for regex, replace in get_sanitize_patterns(shipped):
        text = re.sub(regex, replace, text)
    return text


@pytest.mark.parametrize("path", ALL, ids=[p.name for p in ALL])
def test_no_absolute_path_in_stored_outputs(path):
    build = _build()
    paths = build._path_patterns()
    found = []
    for i, cell in enumerate(_cells(path)):
        for text in _output_texts(cell):
            if build._strip_paths(text, paths) != text or str(ROOT) in text \
                    or str(pathlib.Path.home()) + "/" in text:
                found.append(f"cell {i}: {text[:160]!r}")
            elif re.search(r"\x1b(?!\[)", text):  # a colour code cut by a path pattern
                found.append(f"cell {i}: broken colour code: {text[:160]!r}")
    assert not found, (f"{path.name} stores absolute paths (rebuild it with "
                       f"notebooks/build.py, which strips them):\n" + "\n".join(found))


_ABSOLUTE = [
    ("/work/main/jtensor/nn/_functional/loss.py:725: UserWarning: w",
     ".../jtensor/nn/_functional/loss.py: UserWarning: w"),
    ("/home/ada/course/data/train.csv not found", ".../train.csv not found"),
    ("File /usr/lib/python3.12/warnings.py:112", "File .../warnings.py:112"),
    ("File /opt/venv/lib/python3.11/site-packages/torch/nn/x.py:3",
     "File .../site-packages/torch/nn/x.py:3"),
    ("/tmp/tmpab12/ckpt.pt", ".../ckpt.pt"),
    ("C:\\Users\\ada\\course\\data.csv", ".../data.csv"),
    ("\x1b[36mFile \x1b[39m\x1b[32m/srv/nb/helpers.py:12\x1b[39m, in",
     "\x1b[36mFile \x1b[39m\x1b[32m.../helpers.py:12\x1b[39m, in"),
    # a traceback's colour codes around jtensor's and site-packages' files stay whole
    ("\x1b[36mFile \x1b[39m\x1b[32m/work/main/jtensor/_ops/views.py:68\x1b[39m, in",
     "\x1b[36mFile \x1b[39m\x1b[32m.../jtensor/_ops/views.py\x1b[39m, in"),
    ("\x1b[32m/usr/lib/python3/site-packages/numpy/x.py:9\x1b[39m",
     "\x1b[32m.../site-packages/numpy/x.py:9\x1b[39m"),
]
_NOT_PATHS = ["see https://pytorch.org/docs/stable/optim.html#how-to", "a/b/c and 1/2",
              "'xt = x.t()\\nxt.view(12)\\n'", "</div><br/>",
              '<svg xmlns="http://www.w3.org/2000/svg">', "(3, 1)/(1, 3)"]


@pytest.mark.parametrize("text, want", _ABSOLUTE)
def test_sanitizer_and_build_remove_any_absolute_path(text, want):
    clean = _sanitize(text)
    assert clean == want
    build = _build()
    stored = build._strip_paths(text, build._path_patterns())
    assert stored == want  # the build stores what the sanitizer compares
    assert _sanitize(want) == want  # and the sanitizer leaves a stored output as it is
    assert not re.search(r"(?:^|[\s\x1bm])/(?:work|home|usr|opt|tmp|srv)/", stored), stored
    assert "Users\\" not in stored


@pytest.mark.parametrize("text", _NOT_PATHS)
def test_sanitizer_and_build_leave_urls_and_relative_paths(text):
    assert _sanitize(text) == text
    build = _build()
    assert build._strip_paths(text, build._path_patterns()) == text


def test_build_strips_paths_from_every_kind_of_output():
    build = _build()
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("x")]
    nb.cells[0].outputs = [
        nbformat.v4.new_output("stream", name="stderr",
                               text="/home/ada/x/jtensor/nn/loss.py:7: UserWarning: w\n"),
        nbformat.v4.new_output("execute_result", execution_count=1,
                               data={"text/plain": "saved to /home/ada/run/ckpt.pt",
                                     "text/html": "<b>/home/ada/run/ckpt.pt</b>"}),
        nbformat.v4.new_output("error", ename="FileNotFoundError",
                               evalue="No such file: '/home/ada/data.csv'",
                               traceback=["\x1b[32m/home/ada/x/helpers.py:3\x1b[39m"]),
    ]
    out = build._normalise(nb).cells[0].outputs
    texts = [out[0]["text"], out[1]["data"]["text/plain"], out[1]["data"]["text/html"],
             out[2]["evalue"], *out[2]["traceback"]]
    assert not any("/home/ada" in t for t in texts), texts
    assert texts == [".../jtensor/nn/loss.py: UserWarning: w\n", "saved to .../ckpt.pt",
                     "<b>.../ckpt.pt</b>", "No such file: '.../data.csv'",
                     "\x1b[32m.../helpers.py:3\x1b[39m"]
