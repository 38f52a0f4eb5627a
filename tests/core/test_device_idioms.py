"""How programs choose their device and tune their backends: torch.accelerator and
torch.backends, against PyTorch's CPU build (no accelerator, cuDNN flags that can be set)."""

import importlib

import pytest

import jtensor

torch = pytest.importorskip("torch")


def raised(fn):
    try:
        fn()
    except RuntimeError as exc:
        return RuntimeError, str(exc)
    return None


def test_no_accelerator_answers_as_pytorch_cpu():
    for lib in (jtensor, torch):
        acc = lib.accelerator
        assert acc.is_available() is False
        assert acc.current_accelerator() is None
        assert acc.current_accelerator(check_available=True) is None
        assert acc.device_count() == 0
    for name in ("current_device_index", "synchronize"):
        mine = raised(getattr(jtensor.accelerator, name))
        assert mine == raised(getattr(torch.accelerator, name))
        assert mine[1] == "Cannot access accelerator device when none is available."


def test_the_tutorial_device_line_picks_cpu():
    picked = []
    for lib in (jtensor, torch):
        acc = lib.accelerator
        picked.append(acc.current_accelerator().type if acc.is_available() else "cpu")
    assert picked == ["cpu", "cpu"]
    assert jtensor.ones(2, device=picked[0]).device == jtensor.device("cpu")


def test_the_accelerator_follows_jtensors_cuda_device(monkeypatch):
    cuda = jtensor.cuda
    monkeypatch.setattr(cuda, "is_available", lambda: True)
    monkeypatch.setattr(cuda, "device_count", lambda: 2)
    current = {"index": 0}
    monkeypatch.setattr(cuda, "current_device", lambda: current["index"])
    monkeypatch.setattr(cuda, "set_device", lambda i: current.update(index=i))
    acc = jtensor.accelerator
    assert acc.is_available() and acc.current_accelerator() == jtensor.device("cuda")
    assert acc.device_count() == 2 and acc.current_device_index() == 0
    with acc.device_index(1):
        assert acc.current_device_index() == 1
    assert acc.current_device_index() == 0
    acc.set_device_index("cuda:1")
    assert current["index"] == 1
    with pytest.raises(RuntimeError):
        acc.set_device_index("cpu")


def test_backends_answers_match_pytorch_cpu():
    for lib in (jtensor, torch):
        b = lib.backends
        assert b.mps.is_available() is False and b.mps.is_built() is False
        assert b.cudnn.is_available() is False and b.cudnn.version() is None
        assert b.cuda.is_built() is False
        assert b.cuda.matmul.allow_tf32 is False
        assert b.cuda.flash_sdp_enabled() and b.cuda.math_sdp_enabled()


def test_cudnn_flags_have_pytorchs_defaults_and_can_be_set():
    defaults = ("enabled", "benchmark", "deterministic", "allow_tf32", "benchmark_limit")
    mine = {k: getattr(jtensor.backends.cudnn, k) for k in defaults}
    theirs = {k: getattr(torch.backends.cudnn, k) for k in defaults}
    assert mine == theirs
    cudnn = importlib.import_module("jtensor.backends.cudnn")  # import torch.backends.cudnn
    try:
        cudnn.benchmark = True
        cudnn.deterministic = True
        assert jtensor.backends.cudnn.benchmark is True
        assert jtensor.backends.cudnn.deterministic is True
        with jtensor.backends.cudnn.flags(enabled=False):
            assert jtensor.backends.cudnn.enabled is False
        assert jtensor.backends.cudnn.enabled is True
    finally:
        cudnn.benchmark, cudnn.deterministic = mine["benchmark"], mine["deterministic"]


def test_matmul_and_sdp_switches_are_settable():
    m = jtensor.backends.cuda.matmul
    m.allow_tf32 = True
    try:
        assert jtensor.backends.cuda.matmul.allow_tf32 is True
    finally:
        m.allow_tf32 = False
    jtensor.backends.cuda.enable_flash_sdp(False)
    try:
        assert jtensor.backends.cuda.flash_sdp_enabled() is False
    finally:
        jtensor.backends.cuda.enable_flash_sdp(True)


def test_backends_submodules_import_by_name():
    for name in ("cudnn", "cuda", "mps", "mkl", "mkldnn", "openmp", "cpu", "opt_einsum"):
        module = importlib.import_module(f"jtensor.backends.{name}")
        assert getattr(jtensor.backends, name) is module
    assert isinstance(jtensor.backends.cpu.get_cpu_capability(), str)


def test_device_modules_stay_light():
    """The new modules import nothing heavy (checked in a clean interpreter)."""
    import subprocess
    import sys

    code = (
        "import sys, jtensor.accelerator, jtensor.backends, jtensor.version; "
        "bad = [m for m in ('IPython', 'ipywidgets', 'matplotlib', 'cupy', 'torch') "
        "if m in sys.modules]; print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
