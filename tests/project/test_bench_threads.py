"""bench/run.py's thread matching: with ``OPENBLAS_NUM_THREADS`` set, PyTorch's column runs on
as many intra-op threads as jtensor's and NumPy's BLAS, so no column times more cores."""

import importlib.util
import os

import pytest

torch = pytest.importorskip("torch")

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


@pytest.fixture
def bench_run(monkeypatch):
    monkeypatch.syspath_prepend(os.path.join(ROOT, "bench"))
    before = torch.get_num_threads()
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    spec = importlib.util.spec_from_file_location(
        "bench_run", os.path.join(ROOT, "bench", "run.py")
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    yield module
    torch.set_num_threads(before)


@pytest.mark.parametrize("threads", [1, 3])
def test_torch_gets_the_blas_thread_count(bench_run, monkeypatch, threads):
    torch.set_num_threads(2 if threads != 2 else 1)
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", str(threads))
    assert bench_run._matched_threads() == threads
    assert torch.get_num_threads() == threads


@pytest.mark.parametrize("value", [None, "", "0", "auto"])
def test_defaults_stay_without_a_count(bench_run, monkeypatch, value):
    torch.set_num_threads(2)
    if value is not None:
        monkeypatch.setenv("OPENBLAS_NUM_THREADS", value)
    assert bench_run._matched_threads() is None
    assert torch.get_num_threads() == 2
