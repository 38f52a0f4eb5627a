"""Fixtures shared by the widget tests."""

import pytest


@pytest.fixture
def cuda(emulated_cuda):
    """jtensor's emulated CUDA device, fresh for the test (no GPU needed); reset after."""
    return emulated_cuda
