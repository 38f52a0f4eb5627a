"""The emulated CUDA device, fresh for each test that asks for it (no GPU needed)."""

import warnings

import pytest

import jtensor
from jtensor.cuda._runtime import runtime


@pytest.fixture
def emulated(request):
    """``jtensor.cuda`` on a freshly started emulated device (parametrize indirectly with
    ``(device_count, memory)`` for other sizes); CUDA is reset again afterwards."""
    count, memory = getattr(request, "param", (1, 8 * 1024**3))
    runtime._reset()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", jtensor.cuda.EmulatedCUDAWarning)
        jtensor.cuda.emulate(device_count=count, memory=memory)
    yield jtensor.cuda
    runtime._reset()
