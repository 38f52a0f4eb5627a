"""Test-wide settings, and the device the device-independent suites run on.

``--device cuda`` (or ``JTENSOR_TEST_DEVICE=cuda`` in the environment) runs only the tests
marked ``@pytest.mark.devices`` (whole modules set ``pytestmark = pytest.mark.devices``),
with jtensor's default device set to ``cuda`` for the whole run, so every factory without
``device=`` (``jtensor.tensor``, ``zeros``, ``randn``, ...) puts its tensor on the GPU. With
a real GPU (CuPy) that GPU is used; without one, jtensor's emulated CUDA device is turned on.
The default, ``--device cpu``, runs every test on the CPU as before.

Marked tests that cannot pass on CUDA are listed in ``CUDA_EXPECTATIONS`` below (skipped,
with the reason the test does not apply to CUDA, or xfailed, with the jtensor bug); a test
can also use ``skip_on_cuda(reason)`` / ``cuda_skip`` / ``cuda_xfail`` from
``tests/harness/conformance.py``. After each test of the CUDA run the device is synchronised, so a
deferred kernel error fails the test that launched the kernel.

Under ``-n 2`` the CUDA run of the marked tests takes about two minutes:
``python -m pytest -n 2 --device cuda tests``.
"""

import os
import sys

import pytest
from hypothesis import settings

# In CI, property tests draw the same examples every run, so a red build always reproduces.
# Locally they explore new examples each time (and keep failures in .hypothesis/).
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

DEVICES = ("cpu", "cuda")


def pytest_addoption(parser):
    parser.addoption(
        "--device", choices=DEVICES, default=None,
        help="device for the device-independent tests (marked 'devices'): cpu (default) "
             "runs the whole suite; cuda runs only the marked tests, on the GPU when there "
             "is one, on jtensor's emulated CUDA device otherwise. Also "
             "JTENSOR_TEST_DEVICE=cuda.")


def _requested_device(config):
    chosen = config.getoption("--device") or os.environ.get("JTENSOR_TEST_DEVICE", "") or "cpu"
    chosen = chosen.strip().lower()
    if chosen not in DEVICES:
        raise pytest.UsageError(
            f"JTENSOR_TEST_DEVICE={chosen!r}: expected one of {', '.join(DEVICES)}")
    return chosen


ORACLE_VERSION = "2.13.0"


def _check_oracle():
    """Under CI (``CI`` set) or ``./dev.sh test`` (``JTENSOR_REQUIRE_ORACLE=1``), a missing or
    different PyTorch is an error: without the oracle every comparison would skip and the run
    would be green while proving nothing."""
    if not (os.environ.get("CI") or os.environ.get("JTENSOR_REQUIRE_ORACLE", "0") != "0"):
        return
    from importlib import metadata

    try:
        found = metadata.version("torch")
    except metadata.PackageNotFoundError:
        found = None
    if found is None or found.split("+")[0] != ORACLE_VERSION:
        raise pytest.UsageError(
            f"the conformance oracle torch=={ORACLE_VERSION} is required here (CI or "
            f"JTENSOR_REQUIRE_ORACLE=1) but {'none' if found is None else found} is installed: "
            "run ./dev.sh test, or pip install the test extra (pyproject.toml); set "
            "JTENSOR_REQUIRE_ORACLE=0 outside CI to run without it.")


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "devices: a device-independent test; it also runs with --device cuda "
                   "(real or emulated CUDA), where only marked tests run")
    if not hasattr(config, "workerinput"):   # once, in the controlling process
        _check_oracle()
    chosen = _requested_device(config)
    config._jtensor_device = chosen
    if chosen == "cpu":
        return
    import jtensor
    import jtensor.cuda

    if not jtensor.cuda.is_available():
        # No GPU: the emulated device (the report header says so; no warning per worker).
        # A real GPU, or emulation already asked for in the environment, is used as it is.
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", jtensor.cuda.EmulatedCUDAWarning)
            jtensor.cuda.emulate()
    if not jtensor.cuda.is_available():
        raise pytest.UsageError("--device cuda: no CUDA device could be started")
    jtensor.set_default_device("cuda")


def pytest_report_header(config):
    if getattr(config, "_jtensor_device", "cpu") == "cpu":
        return None
    import jtensor.cuda

    kind = "emulated" if jtensor.cuda.is_emulated() else jtensor.cuda.get_device_name()
    return [f"jtensor test device: cuda ({kind}); only tests marked 'devices' run"]


# Marked tests that cannot pass on CUDA, by node id (a regular expression matched from the
# start of the id): ("skip", why the test does not apply to CUDA), or ("xfail-strict", the
# jtensor bug) - or ("xfail", ...) when the bug is a race, so the test may pass by luck.
# Remove a bug's entry when it is fixed (a strict xfail that passes fails the run).
_INT_DIV_ZERO = ("skip", "integer division by zero raises on the CPU (the oracle); on CUDA it "
                         "gives an unspecified value (the emulator raises a device-side error)")
_DEFERRED = ("skip", "an index out of range inside a kernel is a device-side assert on CUDA, "
                     "reported at a later synchronisation, not an IndexError at the call")
CUDA_EXPECTATIONS = [
    (r"tests/ops/test_registry.py::test_case\[linalg_svd(vals)?-cpu-driver-error\]",
     ("skip", "driver= is refused for CPU inputs only: on CUDA (cuSOLVER) PyTorch takes it, "
              "while the oracle runs on the CPU")),
    (r"tests/ops/test_registry.py::test_case(_reaches_the_dispatch_point)?\[(div|floor_divide|fmod|"
     r"remainder)_?-.*(zero|scalar-first-int)", _INT_DIV_ZERO),
    (r"tests/ops/test_arithmetic_properties.py::(test_binary_op_matches_torch|"
     r"test_div_rounding_modes_match_torch|test_failed_inplace_leaves_input_untouched)",
     _INT_DIV_ZERO),
    (r"tests/ops/test_registry.py::test_case(_reaches_the_dispatch_point)?\[(index_select|"
     r"embedding)-.*(out-of-range|negative-dim)", _DEFERRED),
    (r"tests/ops/test_registry.py::test_case(_reaches_the_dispatch_point)?\[("
     r"__getitem__-out-of-bounds(-dim1|-negative)?|__setitem__-out-of-bounds-untouched|"
     r"gather-out-of-bounds|index_add-(0d-out-of-range|1d-negative|2d-negative|out-of-range)|"
     r"index_copy-(out-)?out-of-range|index_fill-out-of-range|index_put-out-of-bounds|"
     r"index_reduce_?-oob|put_?-oob|scatter-out-of-bounds|take-out-of-range)\]", _DEFERRED),
    (r"tests/nn/test_layers.py::test_embedding_from_pretrained_and_errors_match_pytorch",
     _DEFERRED),
    (r"tests/autograd/test_fuzz_findings.py::test_indexing_a_stale_no_grad_view_raises_what_"
     r"pytorch_checks_first\[(tuple-with-)?list-out-of-range-\(2", _DEFERRED),
    (r"tests/ops/test_registry.py::test_case\[(apply_|map_)-",
     ("skip", "apply_ and map_ run Python per element: CPU tensors only (as PyTorch)")),
    (r"tests/core/test_argparse.py::test_call_forms_pytorch_accepts\[map_\(",
     ("skip", "map_ runs Python per element: CPU tensors only (as PyTorch)")),
    (r"tests/ops/test_registry.py::test_case\[(from_numpy|from_dlpack)-",
     ("skip", "from_numpy/from_dlpack of NumPy data always give CPU tensors (as PyTorch)")),
    (r"tests/ops/test_registry.py::test_case\[(to-device|to-no-op-is-self|zeros-device|"
     r"triu_indices-device)", ("skip", "the case names device='cpu' explicitly")),
    (r"tests/ops/test_registry.py::test_case\[block_diag-no-args\]",
     ("skip", "block_diag() of no tensors is a CPU tensor whatever the default device "
              "(as PyTorch)")),
    (r"tests/ops/test_registry.py::test_case\[as_tensor-numpy-strided-shares-layout\]",
     ("skip", "as_tensor shares NumPy memory (and keeps its strides) only on the CPU")),
    (r"tests/ops/test_registry.py::test_case\[pack_padded_sequence-",
     ("skip", "pack_padded_sequence's batch_sizes always live on the CPU and it refuses "
              "lengths on cuda (as PyTorch), so its results are not all on the default "
              "device")),
    (r"tests/nn/test_rnn.py::(test_pack_sequence_and_unpack_match_pytorch|"
     r"test_seed_examples_print_as_pytorch_does|"
     r"test_packed_sequence_is_a_named_tuple_with_conversions|test_round_trips|"
     r"test_packed_hidden_size_error_matches_pytorch)",
     ("skip", "pack_sequence makes its lengths on the default device and pack_padded_sequence "
              "refuses them on cuda: PyTorch does the same (pytorch/pytorch#88643)")),
    (r"tests/utils/test_data.py::(test_workers_give_the_same_batches_in_order|"
     r"test_workers_are_real_processes_with_worker_info|"
     r"test_worker_exception_is_reraised_with_worker_id|"
     r"test_worker_init_fn_and_iterable_sharding|test_worker_init_fn_error_is_reraised|"
     r"test_persistent_workers_survive_epochs|test_dead_worker_and_timeout_raise|"
     r"test_out_of_order_delivery_when_asked|test_worker_results_match_pytorch_workers)",
     ("skip", "forked DataLoader workers cannot use CUDA started in the parent (PyTorch and "
              "jtensor raise 'Cannot re-initialize CUDA in forked subprocess')")),
    (r"tests/utils/test_data.py::(test_pin_memory_is_accepted_on_cpu|test_warnings_match_pytorch)",
     ("skip", "pins CPU batches; on cuda the batches are already on the device")),
    (r"tests/utils/test_data.py::test_spawn_context_works",
     ("skip", "a spawned worker gets the dataset's CUDA tensors, which needs CUDA IPC; the "
              "emulated device cannot share its memory with another process")),
    (r"tests/utils/test_data.py::test_docstring_examples",
     ("skip", "the docstring examples print CPU tensors")),
    (r"tests/nn/test_module.py::test_parameter_is_a_leaf_sharing_memory",
     ("skip", "compares a repr, which names the cuda device")),
    (r"tests/optim/test_lr_scheduler.py::test_docstring_examples_run",
     ("skip", "the docstring examples print CPU tensors")),
]


def pytest_collection_modifyitems(config, items):
    if getattr(config, "_jtensor_device", "cpu") == "cpu":
        return
    import re

    keep, drop = [], []
    for item in items:
        (keep if item.get_closest_marker("devices") is not None else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
    patterns = [(re.compile(p), kind, why) for p, (kind, why) in CUDA_EXPECTATIONS]
    for item in items:
        for pattern, kind, why in patterns:
            if pattern.match(item.nodeid):
                if kind == "skip":
                    item.add_marker(pytest.mark.skip(reason=f"not on cuda: {why}"))
                else:
                    item.add_marker(pytest.mark.xfail(reason=f"jtensor bug on cuda: {why}",
                                                      strict=kind == "xfail-strict"))
                break


@pytest.fixture(autouse=True)
def _cuda_errors_stay_in_their_test(request):
    """On CUDA a failing kernel raises at the next synchronisation: synchronise after each
    test so a deferred device-side error fails the test that caused it, not the next one.
    A device-side assert also breaks the device's context for good (as CUDA's does): the
    test-only reset repairs it, so the tests after it in this worker still run."""
    yield
    if getattr(request.config, "_jtensor_device", "cpu") != "cpu":
        import jtensor.cuda

        try:
            jtensor.cuda.synchronize()
        finally:
            jtensor.cuda._reset_broken_context()


@pytest.fixture(autouse=True)
def _oracle_keeps_its_defaults():
    """The first ``torch.compile``/``torch.compiler`` call starts PyTorch's dynamo, which
    turns off argument validation of ``torch.distributions`` for the whole process (a
    global switch): the oracle would then accept what it should refuse in every later test
    of that worker. Put PyTorch's default back after each test."""
    yield
    torch = sys.modules.get("torch")
    if torch is not None and "torch._dynamo" in sys.modules:
        distributions = sys.modules.get("torch.distributions")
        if distributions is not None and not distributions.Distribution._validate_args:
            distributions.Distribution.set_default_validate_args(True)


@pytest.fixture
def test_device():
    """The device this run puts jtensor tensors on (``jtensor.device``)."""
    import jtensor

    return jtensor.get_default_device()


@pytest.fixture
def emulated_cuda():
    """jtensor's emulated CUDA device (one device), fresh for the test; reset after."""
    import warnings

    import jtensor
    from jtensor.cuda._runtime import runtime

    runtime._reset()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", jtensor.cuda.EmulatedCUDAWarning)
        jtensor.cuda.emulate()
    yield jtensor.cuda
    runtime._reset()
