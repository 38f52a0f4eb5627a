"""Fixtures shared by the widget tests."""

import warnings

import pytest

import jtensor as torch
from jtensor.cuda._runtime import runtime


@pytest.fixture
def cuda():
    """jtensor's emulated CUDA device, fresh for the test (no GPU needed); reset after."""
    runtime._reset()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", torch.cuda.EmulatedCUDAWarning)
        torch.cuda.emulate()
    yield torch.cuda
    runtime._reset()
