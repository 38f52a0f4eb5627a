"""A pytest plugin for the GPU run (issue 20): every failure's traceback, written the moment
it happens to ``$JTENSOR_FAILURES`` (one block per test: node id, then the end of the
report). A run cut short by its time limit prints no summary; this file still holds every
failure that came before the cut.

    python3 -m pytest -p bench.gpu_failures ...   (from the repository root)
"""

import os

_TAIL = 25  # lines of each report kept: the assertion or exception and its innermost frames


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
