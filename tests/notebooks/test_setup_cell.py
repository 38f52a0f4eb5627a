"""The course runs anywhere (issue 21): every notebook's first code cell is the setup cell that
``notebooks/build.py --ensure-setup`` writes (it installs jtensor where it is missing: Colab, a
VS Code environment outside ``./dev.sh``; it prints nothing where jtensor is importable), the
index's "Open in Colab" table is the one the build generates from ``REPOSITORY_URL``, and
``--ensure-setup`` is idempotent.

The setup cell's branches run in IPython with a recording ``%pip`` (nothing is installed)."""

import importlib.util
import pathlib

import pytest

nbformat = pytest.importorskip("nbformat")

ROOT = pathlib.Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
ALL = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
TOPICS = [p for p in ALL if p.name != "00_index.ipynb"]


def _build():
    spec = importlib.util.spec_from_file_location("curriculum_build", NOTEBOOKS / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


build = _build()


@pytest.mark.parametrize("path", ALL, ids=[p.name for p in ALL])
def test_first_code_cell_is_the_setup_cell(path):
    cells = nbformat.read(path, as_version=4).cells
    code = [c for c in cells if c.cell_type == "code"]
    assert code and code[0].source == build.setup_source(), (
        f"{path.name}: the first code cell is not the setup cell; run "
        f".venv/bin/python notebooks/build.py --ensure-setup {path.name}"
    )
    assert build.SETUP_TAG in code[0].metadata.get("tags", [])
    assert code[0].outputs == [], f"{path.name}: the setup cell printed {code[0].outputs}"
    others = [
        i
        for i, c in enumerate(cells)
        if c is not code[0] and build.SETUP_TAG in c.metadata.get("tags", [])
    ]
    assert not others, f"{path.name}: more setup cells at {others}"


def test_index_colab_table_is_the_generated_one():
    cells = nbformat.read(NOTEBOOKS / "00_index.ipynb", as_version=4).cells
    found = [c for c in cells if build.COLAB_TAG in c.metadata.get("tags", [])]
    assert len(found) == 1, "the index has no (or several) Colab tables"
    assert found[0].source == build.colab_links_source(TOPICS), (
        "the index's Colab table is stale: run notebooks/build.py --ensure-setup 00_index.ipynb"
    )


# ------------------------------------------------------------------ the build's functions
def _small_notebook():
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# 99 · Title"),
        nbformat.v4.new_code_cell("import jtensor as torch"),
        nbformat.v4.new_markdown_cell("Previous: ..."),
    ]
    return nb


def test_ensure_setup_inserts_once_and_is_idempotent():
    nb = _small_notebook()
    assert build.ensure_setup(nb)
    kinds = [(c.cell_type, c.source.splitlines()[0]) for c in nb.cells]
    assert kinds[1] == ("code", build.setup_source().splitlines()[0])
    assert kinds[2] == ("code", "import jtensor as torch") and len(nb.cells) == 4
    nb.cells[1].execution_count, nb.cells[1].id = 1, "cell-001"  # as a build stores it
    text = nbformat.writes(nb)
    assert not build.ensure_setup(nb)
    assert nbformat.writes(nb) == text  # nothing touched, not even the stored count


def test_ensure_setup_refreshes_a_changed_url_and_removes_stray_copies():
    nb = _small_notebook()
    build.ensure_setup(nb)
    stray = nbformat.v4.new_code_cell("old")
    stray.metadata["tags"] = [build.SETUP_TAG]
    nb.cells.append(stray)
    url = "https://github.com/someone/course"
    assert build.ensure_setup(nb, url=url)
    setup = [c for c in nb.cells if build.SETUP_TAG in c.metadata.get("tags", [])]
    assert len(setup) == 1 and setup[0] is nb.cells[1]
    assert f'"{url}"' in setup[0].source and setup[0].execution_count is None
    assert not build.ensure_setup(nb, url=url)


def test_ensure_setup_keeps_a_notebook_without_code_valid():
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# Only text")]
    assert build.ensure_setup(nb)
    assert [c.cell_type for c in nb.cells] == ["markdown", "code"]
    nbformat.validate(nb)


def test_colab_links_from_the_one_url_setting():
    assert build.colab_url("01_tensors.ipynb", "https://github.com/ada/course.git", "main") == (
        "https://colab.research.google.com/github/ada/course/blob/main/notebooks/01_tensors.ipynb"
    )
    assert build.colab_url("01_tensors.ipynb", "https://github.com/ada/course/", "dev") == (
        "https://colab.research.google.com/github/ada/course/blob/dev/notebooks/01_tensors.ipynb"
    )
    # Colab opens notebooks by address from GitHub only; no URL set gives no link
    assert build.colab_url("01_tensors.ipynb", "https://gitlab.com/ada/course", "main") is None
    assert build.colab_url("01_tensors.ipynb", "", "main") is None
    table = build.colab_links_source(TOPICS[:2], "https://github.com/ada/course", "main")
    title = nbformat.read(TOPICS[0], as_version=4).cells[0].source.splitlines()[0][2:]
    assert (
        f"| {title} | [01_tensors.ipynb](01_tensors.ipynb) | [Open in Colab](https://colab."
        "research.google.com/github/ada/course/blob/main/notebooks/01_tensors.ipynb) |"
    ) in table
    unset = build.colab_links_source(TOPICS[:2], "", "main")
    assert "colab.research.google.com" not in unset and "REPOSITORY_URL" in unset


def test_ensure_setup_adds_and_refreshes_the_index_table():
    nb = _small_notebook()
    assert build.ensure_setup(nb, index_paths=TOPICS[:2], url="")
    tables = [c for c in nb.cells if build.COLAB_TAG in c.metadata.get("tags", [])]
    assert len(tables) == 1 and tables[0].cell_type == "markdown"
    assert not build.ensure_setup(nb, index_paths=TOPICS[:2], url="")
    url = "https://github.com/ada/course"
    assert build.ensure_setup(nb, index_paths=TOPICS[:2], url=url)
    assert "[Open in Colab]" in tables[0].source


# ------------------------------------------------------------------ the cell itself
IPython = pytest.importorskip("IPython")


@pytest.fixture(scope="module")
def shell():
    from IPython.testing.globalipapp import start_ipython

    return start_ipython() or IPython.get_ipython()


def _run_setup(shell, monkeypatch, tmp_path, *, importable, checkout, url):
    """Run the setup cell as a notebook in ``tmp_path/notebooks`` would, with ``%pip``
    recorded instead of run; returns (pip argument lines, error, stdout+stderr)."""
    from IPython.utils.capture import capture_output

    folder = tmp_path / "notebooks"
    folder.mkdir()
    if checkout:
        (tmp_path / "jtensor").mkdir()
        (tmp_path / "jtensor" / "__init__.py").write_text("")
    monkeypatch.chdir(folder)
    real = importlib.util.find_spec
    if not importable:
        monkeypatch.setattr(
            importlib.util,
            "find_spec",
            lambda name, *a: None if name == "jtensor" else real(name, *a),
        )
    calls = []
    shell.register_magic_function(lambda line: calls.append(line), "line", "pip")
    try:
        with capture_output() as out:
            result = shell.run_cell(build.setup_source(url, "main"))
    finally:
        # the real %pip back (the magic lives on the shell's magics manager)
        from IPython.core.magics import PackagingMagics

        shell.register_magics(PackagingMagics)
    return calls, result.error_in_exec, out.stdout + out.stderr


URL = "https://github.com/ada/course"
EXTRAS = "tqdm matplotlib ipywidgets"


@pytest.mark.parametrize(
    "importable, checkout, url, want",
    [
        (True, True, URL, []),  # installed (./dev.sh lab): nothing happens, nothing printed
        (False, True, URL, ['install -q "{checkout}" ' + EXTRAS]),  # VS Code, a checkout
        (False, False, URL, [f'install -q "jtensor @ git+{URL}@main" ' + EXTRAS]),  # Colab
    ],
    ids=["installed", "checkout", "repository"],
)
def test_setup_cell_installs_only_where_jtensor_is_missing(
    shell, monkeypatch, tmp_path, importable, checkout, url, want
):
    calls, error, printed = _run_setup(
        shell, monkeypatch, tmp_path, importable=importable, checkout=checkout, url=url
    )
    assert (error, printed) == (None, "")
    assert calls == [w.format(checkout=tmp_path) for w in want]


def test_setup_cell_without_a_url_says_what_to_do(shell, monkeypatch, tmp_path):
    calls, error, _ = _run_setup(
        shell, monkeypatch, tmp_path, importable=False, checkout=False, url=""
    )
    assert calls == [] and isinstance(error, ImportError)
    assert "clone its repository" in str(error)
