"""The bad-input probes (bench/probes.py) against PyTorch: no exception type that PyTorch
does not raise may come out of jtensor (NumPy's errors, KeyError, AttributeError... from
inside it). The counts of calls that agree with PyTorch are printed, not asserted.

The probes run in a child process: they switch on the emulated CUDA device for the
mixed-device calls, which must not leak into the rest of the suite."""

import json
import os
import subprocess
import sys

import pytest

pytest.importorskip("torch")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_bad_input_probes_leak_no_internal_exception(tmp_path):
    report = tmp_path / "probes.json"
    done = subprocess.run(
        [sys.executable, os.path.join(ROOT, "bench", "probes.py"), "--json", str(report)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads(report.read_text())
    figures = result["figures"]
    print(done.stdout.strip().splitlines()[-1])
    leaks = [
        f"{r['name']}: jtensor {r['jtensor']} | torch {r['torch']}"
        for r in result["records"]
        if r["leak"]
    ]
    assert not leaks, "\n".join(leaks)
    assert figures["total"] >= 300  # the probes really ran
    assert figures["same_type"] > figures["total"] // 2
