"""The widgets in a real browser: JupyterLab and Notebook 7 on localhost, driven by Chromium.

Each test starts its Jupyter front end (JupyterLab, or Jupyter Notebook 7, which serves the
classic-looking UI built from JupyterLab's components) with a throw-away config, settings and
workspace, opens ``widgets_demo.ipynb`` in Chromium through Playwright (the system's Chromium;
Playwright never downloads a browser here), runs every cell from the Run menu, checks that each
widget's live SVG appears, changes one control of each widget and waits for its SVG to change.
The JupyterLab test then exports the notebook with ``nbconvert --to html`` and checks the static
snapshots in the exported page. VS Code's notebook front end cannot be driven here.
Screenshots go to the folder it prints: ``$JTENSOR_SHOTS``, else ``jtensor-browser-shots`` in
the temporary directory (``/tmp/jtensor-browser-shots``); each test first removes its own old
ones (``lab-*`` and ``export*`` for JupyterLab, ``nb7-*`` for Notebook 7), so both can run at
once under xdist.

Without Chromium the tests skip with the reason, except under ``CI=true``, where they fail:
``./dev.sh test`` installs Chromium first when it can (root or sudo).
"""

import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
NOTEBOOK = HERE / "widgets_demo.ipynb"
CHROMIUM = os.environ.get("JTENSOR_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
KINDS = ["storage-map", "stride-explorer", "grad-graph", "broadcast-view", "summary",
         "trace-view", "device-timeline"]


def _missing(reason):
    if os.environ.get("CI"):
        pytest.fail(f"CI=true and {reason}: the browser test must run in CI "
                    "(./dev.sh test installs Chromium when run as root or with sudo)")
    pytest.skip(reason)


def _requirements(front_end):
    if not os.path.exists(CHROMIUM):
        _missing(f"Chromium is not installed at {CHROMIUM} (apt-get install -y chromium as "
                 "root, or run ./dev.sh test as root or with sudo)")
    for module in ("playwright", front_end, "ipywidgets", "nbconvert", "nbclient"):
        try:
            __import__(module)
        except ImportError:
            _missing(f"the Python package {module} is missing (pip install -e '.[test]')")


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _write_settings(root):
    """Settings (JupyterLab and Notebook 7 read the same ones) for a quiet, fully rendered
    notebook: no news/update checks (no network), every cell kept in the DOM (no windowing)
    so off-screen widgets exist."""
    settings = root / "settings"
    files = {
        "@jupyterlab/apputils-extension/notification.jupyterlab-settings":
            {"fetchNews": "false", "checkForUpdates": False},
        "@jupyterlab/notebook-extension/tracker.jupyterlab-settings":
            {"windowingMode": "none"},
    }
    for name, content in files.items():
        path = settings / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(content))
    return settings


def _environment(root):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env["JUPYTER_CONFIG_DIR"] = str(root / "config")
    env["JUPYTERLAB_SETTINGS_DIR"] = str(_write_settings(root))
    env["JUPYTERLAB_WORKSPACES_DIR"] = str(root / "workspaces")
    env["JUPYTER_RUNTIME_DIR"] = str(root / "runtime")
    env["IPYTHONDIR"] = str(root / "ipython")
    env["MPLBACKEND"] = "Agg"
    return env


class Server:
    """A Jupyter server (``app``: ``lab`` or ``notebook``) on a free localhost port, stopped
    (process group) on exit."""

    def __init__(self, app, root, env):
        self.app = app
        self.port = _free_port()
        self.token = os.urandom(12).hex()
        self.log_path = root / f"jupyter-{app}.log"
        self.log = open(self.log_path, "w")  # noqa: SIM115 - closed in stop()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "jupyter", app, "--no-browser", "--allow-root",
             "--ip=127.0.0.1", f"--port={self.port}", f"--IdentityProvider.token={self.token}",
             f"--ServerApp.root_dir={root / 'work'}", "--ServerApp.port_retries=0"],
            cwd=root / "work", env=env, stdout=self.log, stderr=subprocess.STDOUT,
            start_new_session=True)
        self.url = f"http://127.0.0.1:{self.port}"

    def wait(self, timeout=90):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"jupyter {self.app} exited with {self.process.returncode}")
            try:
                with urllib.request.urlopen(f"{self.url}/api/status?token={self.token}",
                                            timeout=2) as response:
                    if response.status == 200:
                        return
            except OSError:
                time.sleep(0.5)
        raise TimeoutError(f"jupyter {self.app} did not answer on {self.url} within {timeout}s")

    def wait_kernel_connected(self, timeout=90):
        """Until a session's kernel is idle with a client (the page) connected to it."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{self.url}/api/sessions?token={self.token}",
                                            timeout=5) as response:
                    sessions = json.load(response)
            except OSError:
                sessions = []
            if any((s.get("kernel") or {}).get("connections", 0) >= 1
                   and s["kernel"].get("execution_state") == "idle" for s in sessions):
                return
            time.sleep(0.3)
        raise TimeoutError(f"no kernel of jupyter {self.app} was idle and connected to the "
                           f"page within {timeout}s")

    def stop(self):
        if self.process.poll() is None:
            os.killpg(self.process.pid, 15)
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, 9)
                self.process.wait(10)
        self.log.close()


def _view_html(page, kind):
    return page.evaluate(
        "(kind) => { const v = document.querySelector(`.jtensor-interactive-${kind} "
        ".jtensor-view`); return v ? v.innerHTML : null; }", kind)


def _wait_changed(page, kind, old, must_contain, timeout=30_000):
    page.wait_for_function(
        "([kind, old, text]) => { const v = document.querySelector("
        "`.jtensor-interactive-${kind} .jtensor-view`);"
        " return v && v.innerHTML !== old && v.innerHTML.includes(text); }",
        arg=[kind, old, must_contain], timeout=timeout)


def _fill(page, kind, control, value):
    box = page.locator(f".jtensor-interactive-{kind} .jtensor-control-{control} input")
    box.fill(value)
    box.press("Enter")


def _shots(*old):
    """The screenshot folder, without the files of this test's earlier runs (globs ``old``)."""
    if os.environ.get("JTENSOR_SHOTS"):
        shots = Path(os.environ["JTENSOR_SHOTS"])
    else:
        # A fixed place, so it is easy to find even when pytest (under xdist, or without -s)
        # does not show what the test prints.
        shots = Path(tempfile.gettempdir()) / "jtensor-browser-shots"
    shots.mkdir(parents=True, exist_ok=True)
    for pattern in old:
        for path in shots.glob(pattern):
            path.unlink()
    print(f"\nbrowser screenshots: {shots}")
    return shots


@contextlib.contextmanager
def _browser_session(app, shots, prefix):
    """Starts ``jupyter <app>`` over a copy of the demo notebook and Chromium; yields
    (page, server, root, env). On failure, saves ``<prefix>failure.png`` and prints the end of
    the server's log."""
    from playwright.sync_api import sync_playwright

    root = Path(tempfile.mkdtemp(prefix=f"jtensor-{app}-"))
    (root / "work").mkdir()
    shutil.copy(NOTEBOOK, root / "work" / NOTEBOOK.name)
    env = _environment(root)
    server = Server(app, root, env)
    try:
        server.wait()
        with sync_playwright() as playwright:
            context = playwright.chromium.launch_persistent_context(
                user_data_dir=str(root / "chromium-profile"), executable_path=CHROMIUM,
                headless=True, args=CHROMIUM_ARGS, viewport={"width": 1400, "height": 1000})
            try:
                page = context.new_page()
                try:
                    yield page, server, root, env
                except Exception:
                    page.screenshot(path=str(shots / f"{prefix}failure.png"), full_page=True)
                    print(f"screenshot of the failure: {shots / f'{prefix}failure.png'}")
                    print("--- what each cell shows ---\n" + _cells_text(page))
                    raise
            finally:
                context.close()
    except Exception:
        log = server.log_path.read_text(errors="replace")[-4000:]
        print(f"--- last lines of the jupyter {app} log ---\n{log}")
        raise
    finally:
        server.stop()
    shutil.rmtree(root, ignore_errors=True)


def _cells_text(page):
    """Each cell's prompt and the start of its outputs' text (a failure's context)."""
    from playwright.sync_api import Error as PlaywrightError

    try:
        return page.evaluate(
            "() => Array.from(document.querySelectorAll('.jp-Notebook .jp-CodeCell')).map("
            "(c, i) => { const p = c.querySelector('.jp-InputPrompt');"
            " const o = Array.from(c.querySelectorAll('.jp-OutputArea-output')).map("
            "e => e.innerText.slice(0, 200).replace(/\\s+/g, ' '));"
            " return `cell ${i} ${p ? p.innerText : ''}: ${o.join(' | ')}`; }).join('\\n')")
    except PlaywrightError as error:  # the page itself may be gone
        return f"(could not read the cells: {error})"


def test_widgets_in_jupyterlab_and_in_the_html_export():
    _requirements("jupyterlab")
    shots = _shots("lab-*", "export*")
    with _browser_session("lab", shots, "lab-") as (page, server, root, env):
        page.goto(f"{server.url}/lab/tree/{NOTEBOOK.name}?token={server.token}")
        # Lab's status bar says "Python 3 (ipykernel) | Idle" once the kernel is there.
        _run_all_cells(page, server, ".jp-StatusBar-Widget:has-text('| Idle')")
        _check_widgets(page, shots, "lab-")
        _check_export(page, root, env, shots)


def test_widgets_in_notebook7():
    _requirements("notebook")
    shots = _shots("nb7-*")
    with _browser_session("notebook", shots, "nb7-") as (page, server, _root, _env):
        page.goto(f"{server.url}/notebooks/{NOTEBOOK.name}?token={server.token}")
        # Notebook 7 has no status bar: the toolbar's kernel indicator carries the status.
        _run_all_cells(page, server, ".jp-Notebook-ExecutionIndicator[data-status='idle']")
        _check_widgets(page, shots, "nb7-")


def _run_all_cells(page, server, idle):
    """Run > Run All Cells through the menu, as a learner would, once the kernel is ``idle``
    (a selector); both front ends share the menu, the dialogs and the cell prompts."""
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=90_000)
    first = page.locator(f".jtensor-interactive-{KINDS[0]} svg[data-jtensor='{KINDS[0]}']")
    accept = page.locator(".jp-Dialog .jp-mod-accept")
    started = page.locator(".jp-InputPrompt", has_text=re.compile(r"\[(\*|\d+)\]"))
    deadline = time.monotonic() + 150
    for _attempt in range(3):
        # The page's idle indicator shows before the kernel is attached; the server knows
        # when the page's websocket is connected to a started kernel.
        server.wait_kernel_connected()
        page.wait_for_selector(idle, timeout=90_000)
        _accept_dialogs(page, accept)
        page.get_by_role("menuitem", name="Run", exact=True).click()
        page.get_by_role("menuitem", name="Run All Cells", exact=True).click()
        # A kernel not attached yet makes the front end ask which kernel to use (and drop the
        # run): accept the notebook's own and run again; so does a run that never started.
        retry_at = time.monotonic() + 20
        while not first.count() and time.monotonic() < deadline:
            if accept.count() and accept.first.is_visible():
                _accept_dialogs(page, accept)
                break
            if not started.count() and time.monotonic() > retry_at:
                break
            page.wait_for_timeout(300)
        if first.count() or started.count() and not accept.count():
            break


def _accept_dialogs(page, accept):
    """Accepts whatever dialog is open (saying which), so it cannot block the menu."""
    while accept.count() and accept.first.is_visible():
        print("dialog:", page.locator(".jp-Dialog").first.inner_text().replace("\n", " ")[:200])
        accept.first.click()
        page.wait_for_timeout(300)


def _check_widgets(page, shots, prefix):
    """Every widget's SVG appears; one control of each changes its SVG. Screenshots before
    and after, per widget and of the whole page, named ``<prefix>...``."""
    for kind in KINDS:
        page.wait_for_selector(f".jtensor-interactive-{kind} svg[data-jtensor='{kind}']",
                               timeout=120_000)
    page.screenshot(path=str(shots / f"{prefix}after-run-all.png"))
    for kind in KINDS:
        count = page.locator(f".jtensor-interactive-{kind} svg[data-jtensor='{kind}']").count()
        assert count >= 1, kind
        page.locator(f".jtensor-interactive-{kind}").screenshot(
            path=str(shots / f"{prefix}{kind}-before.png"))

    # Storage map: pick b[2, 1]; the sum and the lit cell appear.
    old = _view_html(page, "storage-map")
    page.locator(".jtensor-interactive-storage-map .jtensor-control-tensor select") \
        .select_option(label="b")
    _fill(page, "storage-map", "index", "2, 1")
    _wait_changed(page, "storage-map", old, "b[2, 1] -&gt; storage[0 + 2*1 + 1*4] = storage[6]")
    assert 'stroke-width="3" data-cell="6"' in _view_html(page, "storage-map")

    # Stride explorer: a 3x3 window with stride (1, 1) overlaps.
    old = _view_html(page, "stride-explorer")
    _fill(page, "stride-explorer", "shape", "3, 3")
    _fill(page, "stride-explorer", "stride", "1, 1")
    _wait_changed(page, "stride-explorer", old, "overlapping")
    assert "size=(3, 3), stride=(1, 1)" in _view_html(page, "stride-explorer")

    # Autograd graph: select a node; its box is outlined and its details shown.
    old = _view_html(page, "grad-graph")
    page.locator(".jtensor-interactive-grad-graph .jtensor-control-node select") \
        .select_option("MmBackward0")
    _wait_changed(page, "grad-graph", old, "MmBackward0: MmBackward0; saved input")

    # Broadcast: making b's shape (3,) resolves the clash.
    old = _view_html(page, "broadcast-view")
    assert "✗" in old
    _fill(page, "broadcast-view", "shape1", "3")
    _wait_changed(page, "broadcast-view", old, "result shape (2, 3)")
    assert "✗" not in _view_html(page, "broadcast-view")

    # Summary: log-scale counts.
    old = _view_html(page, "summary")
    page.locator(".jtensor-interactive-summary .jtensor-control-log input").check()
    _wait_changed(page, "summary", old, "32 bins, log scale")

    # Trace view: only the sync points of the trace.
    old = _view_html(page, "trace-view")
    page.locator(".jtensor-interactive-trace-view .jtensor-control-kind select") \
        .select_option(label="sync")
    _wait_changed(page, "trace-view", old, "(kind = sync)")
    table = _view_html(page, "trace-view")
    assert 'data-kind="sync"' in table and 'data-kind="copy"' not in table

    # Device timeline: hide the launch -> kernel lines.
    old = _view_html(page, "device-timeline")
    page.locator(".jtensor-interactive-device-timeline .jtensor-control-links input").uncheck()
    _wait_changed(page, "device-timeline", old, "host (Python)")
    assert _view_html(page, "device-timeline").count("<line") < old.count("<line")

    for kind in KINDS:
        page.locator(f".jtensor-interactive-{kind}").scroll_into_view_if_needed()
        page.locator(f".jtensor-interactive-{kind}").screenshot(
            path=str(shots / f"{prefix}{kind}-after.png"))
    page.screenshot(path=str(shots / f"{prefix}after-changes.png"))


def _check_export(page, root, env, shots):
    """nbconvert executes the notebook (widget state not stored: as on GitHub or nbviewer,
    the front end has no widget manager) and writes HTML; the snapshots must show."""
    work = root / "export"
    work.mkdir()
    shutil.copy(NOTEBOOK, work / NOTEBOOK.name)
    result = subprocess.run(
        [sys.executable, "-m", "jupyter", "nbconvert", "--to", "html", "--execute",
         "--ExecutePreprocessor.store_widget_state=False", "--output", "export.html",
         NOTEBOOK.name], cwd=work, env=env, capture_output=True, text=True, timeout=180,
        check=False)
    assert result.returncode == 0, result.stderr[-3000:]
    export = work / "export.html"
    shutil.copy(export, shots / "export.html")
    page.goto(export.as_uri())
    for kind in KINDS:
        svg = page.locator(f".jtensor-{kind} svg[data-jtensor='{kind}']")
        assert svg.count() >= 1, f"no {kind} snapshot in the export"
        box = svg.first.bounding_box()
        assert box and box["width"] > 50 and box["height"] > 20, (kind, box)
    page.screenshot(path=str(shots / "export.png"), full_page=True)
