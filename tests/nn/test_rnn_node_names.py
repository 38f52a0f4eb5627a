"""The grad_fn a recurrent layer's outputs print, as PyTorch's CPU build names them (its LSTM
runs oneDNN's layer kernel for float32/bfloat16 padded input without projections)."""

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")

CONFIGS = {
    "lstm": lambda L: (L.nn.LSTM(3, 4), (5, 2, 3), L.float32),
    "lstm float64": lambda L: (L.nn.LSTM(3, 4).double(), (5, 2, 3), L.float64),
    "lstm bfloat16": lambda L: (L.nn.LSTM(3, 4).bfloat16(), (5, 2, 3), L.bfloat16),
    "lstm two layers, dropout": lambda L: (L.nn.LSTM(3, 4, 2, dropout=0.3), (5, 2, 3), L.float32),
    "lstm no bias": lambda L: (L.nn.LSTM(3, 4, bias=False), (5, 2, 3), L.float32),
    "lstm batch_first": lambda L: (L.nn.LSTM(3, 4, batch_first=True), (2, 5, 3), L.float32),
    "lstm bidirectional": lambda L: (L.nn.LSTM(3, 4, bidirectional=True), (5, 2, 3), L.float32),
    "lstm projections": lambda L: (L.nn.LSTM(3, 4, proj_size=2), (5, 2, 3), L.float32),
    "gru": lambda L: (L.nn.GRU(3, 4), (5, 2, 3), L.float32),
    "rnn": lambda L: (L.nn.RNN(3, 4), (5, 2, 3), L.float32),
}


def names(L, config):
    L.manual_seed(0)
    module, shape, dtype = CONFIGS[config](L)
    out, state = module(L.randn(shape).to(dtype))
    states = state if isinstance(state, tuple) else (state,)
    return [type(t.grad_fn).__name__ for t in (out, *states)]


@pytest.mark.parametrize("config", list(CONFIGS))
@pytest.mark.filterwarnings("ignore:LSTM with projections")
def test_output_nodes_are_named_as_in_pytorch(config):
    assert names(jtensor, config) == names(torch, config)


def test_packed_lstm_output_is_a_concatenation():
    def run(L):
        L.manual_seed(0)
        packed = L.nn.utils.rnn.pack_padded_sequence(L.randn(5, 2, 3), [5, 3])
        out, (h, c) = L.nn.LSTM(3, 4)(packed)
        return type(out.data.grad_fn).__name__, type(h.grad_fn).__name__

    assert run(jtensor) == run(torch) == ("CatBackward0", "StackBackward0")


def test_the_renamed_node_still_differentiates_as_before():
    def grads(L):
        L.manual_seed(0)
        m = L.nn.LSTM(3, 4, num_layers=2)
        x = L.randn(5, 2, 3, requires_grad=True)
        out, (h, c) = m(x)
        (out.pow(2).sum() + h.sum() + 2 * c.sum()).backward()
        return [t.detach().numpy() for t in (x.grad, m.weight_hh_l0.grad, m.bias_ih_l1.grad)]

    for mine, theirs in zip(grads(jtensor), grads(torch), strict=True):
        np.testing.assert_allclose(mine, theirs, rtol=1e-4, atol=1e-6)
