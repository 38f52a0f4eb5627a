"""The widgets in a real browser: JupyterLab and Notebook 7 on localhost, driven by Chromium.

Each test starts its Jupyter front end (JupyterLab, or Jupyter Notebook 7, which serves the
classic-looking UI built from JupyterLab's components) with a throw-away config, settings and
workspace, opens ``widgets_demo.ipynb`` in Chromium through Playwright (the system's Chromium;
Playwright never downloads a browser here), runs every cell from the Run menu, checks that each
widget's live SVG appears, changes one control of each widget and waits for its SVG to change.
JupyterLab runs in its dark theme (``JupyterLab Dark``), Notebook 7 in the light one; in both,
every piece of text in the widgets and in the ``%%tensortrace`` report is measured in the page:
its computed colour against the colours painted under it (WCAG's contrast ratio, >= 4.5).
The JupyterLab test then exports the notebook with ``nbconvert --to html`` and checks the static
snapshots in the exported page (and their contrast); the Notebook 7 test then runs the capstone
notebook ``notebooks/16_training.ipynb`` from a clean state with Run All and checks, in the
notebook it saves, that every code cell ran and none raised. VS Code's notebook front end cannot
be driven here.
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


def _write_settings(root, theme=None):
    """Settings (JupyterLab and Notebook 7 read the same ones) for a quiet, fully rendered
    notebook: no news/update checks (no network), every cell kept in the DOM (no windowing)
    so off-screen widgets exist; ``theme`` (e.g. ``"JupyterLab Dark"``) as a user picks it in
    Settings > Theme."""
    settings = root / "settings"
    files = {
        "@jupyterlab/apputils-extension/notification.jupyterlab-settings":
            {"fetchNews": "false", "checkForUpdates": False},
        "@jupyterlab/notebook-extension/tracker.jupyterlab-settings":
            {"windowingMode": "none"},
    }
    if theme:
        files["@jupyterlab/apputils-extension/themes.jupyterlab-settings"] = {"theme": theme}
    for name, content in files.items():
        path = settings / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(content))
    return settings


def _environment(root, theme=None):
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env["JUPYTER_CONFIG_DIR"] = str(root / "config")
    env["JUPYTERLAB_SETTINGS_DIR"] = str(_write_settings(root, theme))
    env["JUPYTERLAB_WORKSPACES_DIR"] = str(root / "workspaces")
    env["JUPYTER_RUNTIME_DIR"] = str(root / "runtime")
    env["IPYTHONDIR"] = str(root / "ipython")
    # Kernels keep ipykernel's inline backend, as a learner's do (the capstone draws a plot;
    # under Agg, plt.show() would warn on stderr instead).
    env.pop("MPLBACKEND", None)
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

    def wait_kernel_connected(self, path, timeout=90):
        """Until the kernel of notebook ``path``'s session is idle with a client (the page)
        connected to it."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{self.url}/api/sessions?token={self.token}",
                                            timeout=5) as response:
                    sessions = json.load(response)
            except OSError:
                sessions = []
            if any(s.get("path") == path and (s.get("kernel") or {}).get("connections", 0) >= 1
                   and s["kernel"].get("execution_state") == "idle" for s in sessions):
                return
            time.sleep(0.3)
        raise TimeoutError(f"the kernel of {path} in jupyter {self.app} was not idle and "
                           f"connected to the page within {timeout}s")

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
def _browser_session(app, shots, prefix, theme=None):
    """Starts ``jupyter <app>`` (in ``theme``, else its default) over a copy of the demo
    notebook and Chromium; yields (page, server, root, env). On failure, saves
    ``<prefix>failure.png`` and prints the end of the server's log."""
    from playwright.sync_api import sync_playwright

    root = Path(tempfile.mkdtemp(prefix=f"jtensor-{app}-"))
    (root / "work").mkdir()
    shutil.copy(NOTEBOOK, root / "work" / NOTEBOOK.name)
    env = _environment(root, theme)
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
    with _browser_session("lab", shots, "lab-", theme="JupyterLab Dark") as (
            page, server, root, env):
        page.goto(f"{server.url}/lab/tree/{NOTEBOOK.name}?token={server.token}")
        # Lab's status bar says "Python 3 (ipykernel) | Idle" once the kernel is there.
        _run_all_cells(page, server, ".jp-StatusBar-Widget:has-text('| Idle')", NOTEBOOK.name)
        _check_dark(page)
        _check_widgets(page, shots, "lab-")
        _check_export(page, root, env, shots)


def test_widgets_in_notebook7_and_the_capstone():
    _requirements("notebook")
    shots = _shots("nb7-*")
    with _browser_session("notebook", shots, "nb7-") as (page, server, root, _env):
        page.goto(f"{server.url}/notebooks/{NOTEBOOK.name}?token={server.token}")
        _run_all_cells(page, server, NB7_IDLE, NOTEBOOK.name)
        _check_widgets(page, shots, "nb7-")
        _check_capstone(page.context.new_page(), server, root, shots)


# Notebook 7 has no status bar: the toolbar's kernel indicator carries the status.
NB7_IDLE = ".jp-Notebook-ExecutionIndicator[data-status='idle']"


def _run_all_cells(page, server, idle, path, first=None):
    """Run > Run All Cells through the menu, as a learner would, once the kernel of notebook
    ``path`` is ``idle`` (a selector); both front ends share the menu, the dialogs and the
    cell prompts. ``first`` (a locator; default: the first widget's SVG) shows the run began."""
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=90_000)
    if first is None:
        first = page.locator(f".jtensor-interactive-{KINDS[0]} svg[data-jtensor='{KINDS[0]}']")
    accept = page.locator(".jp-Dialog .jp-mod-accept")
    started = page.locator(".jp-InputPrompt", has_text=re.compile(r"\[(\*|\d+)\]"))
    deadline = time.monotonic() + 150
    for _attempt in range(3):
        # The page's idle indicator shows before the kernel is attached; the server knows
        # when the page's websocket is connected to a started kernel.
        server.wait_kernel_connected(path)
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
    page.locator(".jt-trace").first.screenshot(path=str(shots / f"{prefix}trace-report.png"))
    # Measured after the changes: the selections, highlights and the error-free states drawn.
    _check_contrast(page, ".jtensor-interactive, .jt-trace", shots, prefix,
                    expect=KINDS + ["trace-report"])


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
    _check_contrast(page, ".jtensor-widget, .jt-trace", shots, "export-",
                    expect=KINDS + ["trace-report"])
    _check_vscode_dark(page, shots)


# VS Code's default dark theme (Dark Modern) as its notebook webviews apply it: the theme's
# colours as --vscode-* properties on the root, the body's text and background from them.
VSCODE_DARK = ("<style>:root{--vscode-editor-background:#1F1F1F;"
               "--vscode-editor-foreground:#CCCCCC}"
               "body{background-color:var(--vscode-editor-background);"
               "color:var(--vscode-editor-foreground);font-family:sans-serif;"
               "font-size:13px}</style>")


def _check_vscode_dark(page, shots):
    """The exported snapshots (the widgets' HTML and the ``%%tensortrace`` report, as stored
    in a notebook) in a page with VS Code's dark-theme colours, measured like the others.
    VS Code itself is not driven: this is its theme's page colours, not its renderer."""
    outputs = page.evaluate(
        "() => Array.from(document.querySelectorAll('.jp-OutputArea-output'))"
        ".filter(o => o.querySelector('.jtensor-widget, .jt-trace')).map(o => o.innerHTML)")
    page.set_content(f"<!doctype html><html><head>{VSCODE_DARK}</head>"
                     f"<body class=\"vscode-dark\">{''.join(outputs)}</body></html>")
    page.screenshot(path=str(shots / "export-vscode-dark.png"), full_page=True)
    _check_contrast(page, ".jtensor-widget, .jt-trace", shots, "export-vscode-dark-",
                    expect=KINDS + ["trace-report"])


def _check_dark(page):
    """The page really is in JupyterLab's dark theme: the theme says so and the notebook's
    background, as the browser paints it, is dark."""
    state = page.evaluate(
        "() => ({light: document.body.dataset.jpThemeLight, name: document.body.dataset"
        ".jpThemeName, background: getComputedStyle(document.querySelector('.jp-Notebook'))"
        ".backgroundColor})")
    assert state["light"] == "false" and "Dark" in (state["name"] or ""), state
    channels = [int(c) for c in re.findall(r"\d+", state["background"])[:3]]
    assert max(channels) < 80, f"the notebook's background is not dark: {state}"


# For each visible piece of text under the roots (SVG <text> elements and HTML text nodes):
# its computed colour, the colours painted under its centre (document.elementsFromPoint: SVG
# shapes' fills, HTML backgrounds, each with its alpha and opacity, composited down to the
# first opaque one), and WCAG's contrast ratio between the two.
_CONTRAST_JS = r"""
(selector) => {
  const parse = (text) => {
    const m = /rgba?\(([^)]+)\)/.exec(text || '');
    if (!m) return null;
    const p = m[1].split(/[\s,\/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  };
  const linear = (c) => {
    c /= 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const luminance = (c) => 0.2126 * linear(c[0]) + 0.7152 * linear(c[1]) + 0.0722 * linear(c[2]);
  const over = (top, base) => [0, 1, 2].map((i) => top[i] * top[3] + base[i] * (1 - top[3]));
  const hex = (c) => '#' + c.slice(0, 3).map(
    (v) => Math.round(v).toString(16).padStart(2, '0')).join('');
  const shapes = new Set(['rect', 'path', 'polygon', 'circle', 'ellipse']);
  const paint = (el) => {
    const cs = getComputedStyle(el);
    let c;
    if (el instanceof SVGElement && !(el instanceof SVGSVGElement)) {
      if (!shapes.has(el.tagName.toLowerCase())) return null;
      c = parse(cs.fill);
      if (c) c[3] *= Number(cs.fillOpacity);
    } else {
      c = parse(cs.backgroundColor);
    }
    if (!c) return null;
    c[3] *= Number(cs.opacity);
    return c[3] > 0 ? c : null;
  };
  const under = (x, y, text) => {
    const layers = [];
    let hit = false;
    for (const el of document.elementsFromPoint(x, y)) {
      if (el === text || el.contains(text)) hit = true;
      if (el instanceof SVGTextContentElement) continue;  // the text itself, not its ground
      const c = paint(el);
      if (c) { layers.push(c); if (c[3] >= 1) break; }
    }
    let base = [255, 255, 255];
    for (const c of layers.reverse()) base = over(c, base);
    return {hit, base};
  };
  const kindOf = (root) => {
    if (root.classList.contains('jt-trace')) return 'trace-report';
    for (const c of root.classList) {
      if (c.startsWith('jtensor-interactive-')) return c.slice('jtensor-interactive-'.length);
    }
    for (const c of root.classList) {
      if (c.startsWith('jtensor-') && c !== 'jtensor-widget' && c !== 'jtensor-interactive')
        return c.slice('jtensor-'.length);
    }
    return root.className;
  };
  const skip = new Set(['STYLE', 'SCRIPT', 'TITLE', 'OPTION', 'SELECT', 'TEXTAREA', 'title']);
  const results = [];
  const measure = (kind, el, rectOf, colour) => {
    let r = rectOf();
    if (!r || r.width < 1 || r.height < 1) return;
    const cs = getComputedStyle(el);
    if (cs.visibility !== 'visible') return;
    if (r.top < 0 || r.bottom > innerHeight || r.left < 0 || r.right > innerWidth) {
      el.scrollIntoView({block: 'center', inline: 'nearest'});
      r = rectOf();
    }
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) return;
    const {hit, base} = under(x, y, el);
    // Text clipped away (a scrolled table's far columns) is not on screen: nothing to read.
    if (!hit && !(el instanceof SVGElement && el.ownerSVGElement &&
                  document.elementsFromPoint(x, y).includes(el.ownerSVGElement))) return;
    const fg = colour(cs);
    if (!fg) return;
    const ink = over(fg, base);
    const [a, b] = [luminance(ink), luminance(base)].sort((p, q) => q - p);
    results.push({kind, text: (el.textContent || '').trim().slice(0, 40), fg: hex(ink),
                  bg: hex(base), ratio: Math.round(((a + 0.05) / (b + 0.05)) * 100) / 100});
  };
  for (const root of document.querySelectorAll(selector)) {
    const kind = kindOf(root);
    for (const text of root.querySelectorAll('text')) {
      if (!text.textContent.trim()) continue;
      measure(kind, text, () => text.getBoundingClientRect(), (cs) => {
        const c = parse(cs.fill);
        if (c) c[3] *= Number(cs.fillOpacity) * Number(cs.opacity);
        return c;
      });
    }
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const el = node.parentElement;
      if (!node.data.trim() || el.closest('svg') || skip.has(el.tagName)
          || el.closest('select, option, style, script, textarea')) continue;
      const range = document.createRange();
      range.selectNodeContents(node);
      measure(kind, el, () => Array.from(range.getClientRects()).find((r) => r.width >= 1),
              (cs) => { const c = parse(cs.color); if (c) c[3] *= Number(cs.opacity); return c; });
    }
  }
  return results;
}
"""

# WCAG 2's AA level for normal text (all the widgets' text is small).
MIN_CONTRAST = 4.5


def _check_contrast(page, selector, shots, prefix, expect=()):
    """Every visible piece of text under ``selector`` reaches ``MIN_CONTRAST`` against what
    the browser paints under it; each kind in ``expect`` had text measured. The measurements
    go to ``<prefix>contrast.json`` in the screenshot folder."""
    started = time.monotonic()
    results = page.evaluate(_CONTRAST_JS, selector)
    seconds = time.monotonic() - started
    (shots / f"{prefix}contrast.json").write_text(json.dumps(results, indent=1))
    counts = {}
    for r in results:
        counts[r["kind"]] = counts.get(r["kind"], 0) + 1
    lowest = {k: min(r["ratio"] for r in results if r["kind"] == k) for k in counts}
    print(f"{prefix}contrast: {len(results)} texts measured in {seconds:.1f} s; lowest ratio "
          f"per kind: {lowest}")
    missing = [k for k in expect if not counts.get(k)]
    assert not missing, f"no text measured in {missing} (measured: {counts})"
    poor = [r for r in results if r["ratio"] < MIN_CONTRAST]
    assert not poor, (f"{len(poor)} texts below {MIN_CONTRAST}:1 contrast (text, colour, "
                      "background, ratio): " + "; ".join(
                          f"{r['kind']}: {r['text']!r} {r['fg']} on {r['bg']} {r['ratio']}"
                          for r in poor[:20]))


CAPSTONE = REPO / "notebooks" / "16_training.ipynb"


def _check_capstone(page, server, root, shots):
    """The capstone, as a learner meets it in Notebook 7: opened with no outputs, Run All from
    the menu; when no cell is queued any more, the notebook is saved and read back: every
    code cell ran once, in order (Run All stops at an error), and none has an error output.
    Its widgets' text is measured like the demo's."""
    import nbformat

    notebook = nbformat.read(CAPSTONE, as_version=4)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
    path = root / "work" / CAPSTONE.name
    nbformat.write(notebook, path)
    n_code = sum(cell.cell_type == "code" for cell in notebook.cells)
    page.goto(f"{server.url}/notebooks/{CAPSTONE.name}?token={server.token}")
    first = page.locator(".jp-InputPrompt", has_text=re.compile(r"\[(\*|1)\]"))
    _run_all_cells(page, server, NB7_IDLE, CAPSTONE.name, first=first)
    # Run All queues every cell at once ([*]); the queue is empty when it finished or stopped.
    page.wait_for_function(
        "() => { const p = Array.from(document.querySelectorAll('.jp-CodeCell .jp-InputPrompt'));"
        " return p.length > 0 && p.some(e => /\\[\\d+\\]/.test(e.innerText))"
        " && !p.some(e => e.innerText.includes('*')); }", timeout=300_000)
    page.screenshot(path=str(shots / "nb7-capstone.png"), full_page=True)
    page.locator(".jp-Notebook").click(position={"x": 5, "y": 5})
    page.keyboard.press("Control+s")
    deadline = time.monotonic() + 30
    counts = []
    while True:
        # The server may be writing the file right now: an empty or half-written file does
        # not parse (nbformat's NotJSONError, a ValueError); read it again a moment later.
        try:
            saved = nbformat.read(path, as_version=4)
        except ValueError:
            saved = None
        if saved is not None:
            counts = [c.execution_count for c in saved.cells if c.cell_type == "code"]
        if any(counts) or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert any(counts), "Notebook 7 did not save the capstone within 30 s of Ctrl+S"
    errors = [(i, o.get("ename"), o.get("evalue")) for i, c in enumerate(saved.cells)
              if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors, f"the capstone has error cells (cell, error, message): {errors}"
    assert counts == list(range(1, n_code + 1)), (
        f"Run All did not run every code cell of the capstone once, in order: execution "
        f"counts {counts}")
    stderr = [i for i, c in enumerate(saved.cells) if c.cell_type == "code"
              for o in c.outputs if o.output_type == "stream" and o.name == "stderr"]
    print(f"capstone: {n_code} code cells ran in Notebook 7, no errors; cells writing to "
          f"stderr: {stderr or 'none'}")
    _check_contrast(page, ".jtensor-interactive, .jtensor-widget, .jt-trace", shots,
                    "nb7-capstone-")
