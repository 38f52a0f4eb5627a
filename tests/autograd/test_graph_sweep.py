"""Every gradient spec's graph, node for node, against PyTorch's: the multiset of node names
reachable from the outputs (``AccumulateGrad`` included) must be PyTorch's. Values are the
gradient specs' business; this catches an op recorded as one node where PyTorch records
the steps of its composite (or the other way round), which no value comparison sees.

``DIFFERENT`` lists the ops whose graphs still differ, each with why; an op on it that
comes to match fails the test too, so the list only shrinks."""

import collections

import pytest

import jtensor
from tests.harness.gradients import G, load_specs, make_inputs, tensors_in
from tests.harness.graphs import node_names

torch = pytest.importorskip("torch")

_PENDING = "recorded as one node where PyTorch records its composite's steps"
DIFFERENT = {
    # Complex gradients: the specs build complex inputs through view_as_complex/view_as_real,
    # whose nodes jtensor chains differently.
    **dict.fromkeys(
        [
            "acosh",
            "complex",
            "conj",
            "conj_physical",
            "conj_physical_",
            "exp",
            "imag",
            "log",
            "polar",
            "real",
            "reciprocal",
            "sgn",
            "sqrt",
            "square",
            "tanh",
            "to",
            "view_as_complex",
        ],
        "complex inputs made through view_as_complex / view_as_real",
    ),
    **dict.fromkeys(
        [
            "fft_fft",
            "fft_fft2",
            "fft_fftn",
            "fft_hfft",
            "fft_hfft2",
            "fft_hfftn",
            "fft_ifft",
            "fft_ifft2",
            "fft_ifftn",
            "fft_ihfft",
            "fft_ihfft2",
            "fft_ihfftn",
            "fft_irfft",
            "fft_irfft2",
            "fft_irfftn",
            "fft_rfft",
            "fft_rfft2",
            "fft_rfftn",
        ],
        "the FFTs' real/complex conversions and normalisation steps",
    ),
    **dict.fromkeys(
        ["gru", "lstm", "rnn_relu", "rnn_tanh"],
        "deliberate: one fused node per layer and direction (PyTorch: a dozen per time step, "
        "or oneDNN's layer node for LSTM)",
    ),
    **dict.fromkeys(
        [
            "bilinear",
            "cdist",
            "gradient",
            "linalg_matrix_norm",
            "linalg_norm",
            "nanquantile",
            "norm",
            "nuclear_norm",
            "quantile",
            "linalg_eig",
            "logdet",
            "svd",
            "fill_diagonal_",
        ],
        _PENDING,
    ),
    "pad": "circular padding (PyTorch: slices and copies into them)",
}


def _graph(lib, case, seed):
    inputs, _ = make_inputs(lib, case, seed)
    out = case.fn(lib, *inputs)
    return node_names([t for t in tensors_in(out) if getattr(t, "requires_grad", False)])


def _cases():
    by_op = collections.defaultdict(list)
    for i, case in enumerate(load_specs()):
        if isinstance(case, G) and case.torch:
            by_op[case.op].append((i, case))
    return by_op


CASES = _cases()


@pytest.mark.parametrize("op", sorted(CASES))
def test_graph_is_pytorchs(op):
    differing = []
    for i, case in CASES[op]:
        try:
            expected = _graph(torch, case, 1234 + i)
        except Exception:  # (a case PyTorch refuses: the gradient specs cover the error)
            continue
        got = _graph(jtensor, case, 1234 + i)
        if got != expected:
            differing.append((i, dict(expected - got), dict(got - expected)))
    if op in DIFFERENT:
        assert differing, f"{op} now records PyTorch's graph: remove it from DIFFERENT"
    else:
        assert not differing, differing


def test_every_listed_op_has_cases():
    assert set(DIFFERENT) <= set(CASES)
