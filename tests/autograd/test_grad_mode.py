"""Grad mode switches, compared with PyTorch's on the same scripts."""

import threading

import pytest

import jtensor

from tests.harness.conformance import torch

pytestmark = pytest.mark.devices  # device-independent: also runs with --device cuda

needs_torch = pytest.mark.skipif(torch is None, reason="needs the PyTorch oracle")


def script(lib):
    """Every way of switching grad mode, recording is_grad_enabled() at each point."""
    seen = [lib.is_grad_enabled()]
    with lib.no_grad():
        seen.append(lib.is_grad_enabled())
        with lib.enable_grad():
            seen.append(lib.is_grad_enabled())
        seen.append(lib.is_grad_enabled())
    seen.append(lib.is_grad_enabled())

    @lib.no_grad()
    def decorated():
        return lib.is_grad_enabled()

    @lib.no_grad
    def bare():
        return lib.is_grad_enabled()

    @lib.set_grad_enabled(False)
    def switched():
        return lib.is_grad_enabled()

    seen += [decorated(), bare(), lib.is_grad_enabled(), switched(), lib.is_grad_enabled()]
    with lib.set_grad_enabled(False):
        seen.append(lib.is_grad_enabled())
    seen.append(lib.is_grad_enabled())
    lib.set_grad_enabled(False)
    seen.append(lib.is_grad_enabled())
    lib.set_grad_enabled(True)
    seen.append(lib.is_grad_enabled())
    try:
        with lib.no_grad():
            raise KeyError("restored even when the block raises")
    except KeyError:
        pass
    seen.append(lib.is_grad_enabled())
    seen.append(lib.autograd.grad_mode.no_grad is lib.no_grad)
    return seen


@needs_torch
def test_switches_match_pytorch():
    assert script(jtensor) == script(torch)


def test_grad_mode_is_thread_local():
    seen = []
    with jtensor.no_grad():
        worker = threading.Thread(target=lambda: seen.append(jtensor.is_grad_enabled()))
        worker.start()
        worker.join()
        seen.append(jtensor.is_grad_enabled())
    assert seen == [True, False]


def test_recursion_restores_each_level():
    @jtensor.no_grad()
    def depth(n):
        if n:
            depth(n - 1)
        return jtensor.is_grad_enabled()

    assert depth(5) is False
    assert jtensor.is_grad_enabled()


def test_set_grad_enabled_needs_a_bool():
    with pytest.raises(TypeError, match="bool"):
        jtensor.set_grad_enabled("no")
