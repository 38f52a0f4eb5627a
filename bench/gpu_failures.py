"""A pytest plugin for the GPU run (issue 20): every failure's traceback, written the moment
it happens to ``$JTENSOR_FAILURES`` (one block per test: node id, then the end of the
report). A run cut short by its time limit prints no summary; this file still holds every
failure that came before the cut.

    python3 -m pytest -p bench.gpu_failures ...   (from the repository root)

``$JTENSOR_SELECT`` (a file of node ids, one a line) runs only those tests of the paths
given: a rerun of what failed, or of what an earlier run's time limit cut off. Ids that no
longer exist are ignored (pytest itself would stop the whole run on one).
"""

import os

# Lines of each report kept: the assertion or exception and its innermost frames.
_TAIL = int(os.environ.get("JTENSOR_FAILURES_TAIL", "25"))


def _controller(config):
    return not hasattr(config, "workerinput")  # under xdist, the workers' reports come here


def pytest_configure(config):
    config._gpu_failures = os.environ.get("JTENSOR_FAILURES") if _controller(config) else None


def pytest_runtest_logreport(report):
    path = getattr(_config, "_gpu_failures", None) if _config else None
    if not path or not report.failed:
        return
    lines = report.longreprtext.splitlines()
    with open(path, "a", encoding="utf-8") as f:
        f.write(f"=== {report.nodeid} ({report.when})\n")
        f.write("\n".join(lines[-_TAIL:]) + "\n")


_config = None


def pytest_sessionstart(session):
    global _config
    _config = session.config


def pytest_collection_modifyitems(config, items):
    path = os.environ.get("JTENSOR_SELECT")
    if not path:
        return
    with open(path, encoding="utf-8") as f:
        wanted = {line.strip() for line in f if line.strip()}
    keep = [item for item in items if item.nodeid in wanted]
    config.hook.pytest_deselected(items=[item for item in items if item.nodeid not in wanted])
    items[:] = keep
