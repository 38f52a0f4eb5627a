"""Sequences: ``nn.utils.rnn`` (padding / packing) and the recurrent layers and cells, against
PyTorch where it is installed (same weights, same data: outputs, final states, gradients)."""

import numpy as np
import pytest

import jtensor
import jtensor.nn as jnn
import jtensor.nn.utils.rnn as jrnn
from jtensor.autograd import gradcheck

from tests.harness.training import assert_close, copy_weights, to_jt, to_torch

try:
    import torch
    import torch.nn as tnn
    import torch.nn.utils.rnn as trnn
except ImportError:
    torch = tnn = trnn = None

pytestmark = pytest.mark.devices  # device-independent: also runs with --device cuda

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch (the oracle) is not installed")


def _rng(seed=0):
    return np.random.default_rng(seed)


def _packed_repr(p):
    return repr(p).replace("\n", "").replace(" ", "")


# ====================================================================== packing: jtensor only
def test_seed_examples_print_as_pytorch_does():
    a, b, c = jtensor.tensor([1, 2, 3]), jtensor.tensor([4, 5]), jtensor.tensor([6])
    assert repr(jrnn.pack_sequence([a, b, c])) == (
        "PackedSequence(data=tensor([1, 4, 6, 2, 5, 3]), batch_sizes=tensor([3, 2, 1]), "
        "sorted_indices=None, unsorted_indices=None)")
    # enforce_sorted=False always records the permutation, even for sorted lengths (the seed
    # note prints None here: PyTorch does not).
    assert repr(jrnn.pack_sequence([a, b, c], enforce_sorted=False)) == (
        "PackedSequence(data=tensor([1, 4, 6, 2, 5, 3]), batch_sizes=tensor([3, 2, 1]), "
        "sorted_indices=tensor([0, 1, 2]), unsorted_indices=tensor([0, 1, 2]))")
    assert repr(jrnn.pack_sequence([a, c, b], enforce_sorted=False)) == (
        "PackedSequence(data=tensor([1, 4, 6, 2, 5, 3]), batch_sizes=tensor([3, 2, 1]), "
        "sorted_indices=tensor([0, 2, 1]), unsorted_indices=tensor([0, 2, 1]))")
    with pytest.raises(RuntimeError, match="sorted in decreasing order"):
        jrnn.pack_sequence([a, c, b])
    seq = jtensor.tensor([[1, 2, 0], [3, 0, 0], [4, 5, 6]])
    packed = jrnn.pack_padded_sequence(seq, [2, 1, 3], batch_first=True, enforce_sorted=False)
    assert repr(packed) == (
        "PackedSequence(data=tensor([4, 1, 3, 5, 2, 6]), batch_sizes=tensor([3, 2, 1]), "
        "sorted_indices=tensor([2, 0, 1]), unsorted_indices=tensor([1, 2, 0]))")
    out, lens = jrnn.pad_packed_sequence(packed, batch_first=True)
    assert out.tolist() == [[1, 2, 0], [3, 0, 0], [4, 5, 6]]
    assert lens.tolist() == [2, 1, 3] and str(lens.dtype) == "torch.int64"
    ones = [jtensor.ones(25, 300), jtensor.ones(22, 300), jtensor.ones(15, 300)]
    assert tuple(jrnn.pad_sequence(ones).shape) == (25, 3, 300)
    assert tuple(jrnn.pad_sequence(ones, batch_first=True).shape) == (3, 25, 300)


def test_packed_sequence_is_a_named_tuple_with_conversions():
    p = jrnn.pack_sequence([jtensor.ones(3, 2), jtensor.ones(1, 2)])
    data, _batch_sizes, s, u = p
    assert p.data is data and s is None and u is None
    assert p.is_cuda is False and p.is_pinned() is False
    assert p.to(jtensor.float32) is p
    q = p.double()
    assert str(q.data.dtype) == "torch.float64" and q.batch_sizes is p.batch_sizes
    assert jrnn.PackedSequence((p.data, p.batch_sizes)).batch_sizes is p.batch_sizes
    r = jrnn.PackedSequence(p.data, p.batch_sizes, jtensor.tensor([1, 0]))
    assert r.unsorted_indices.tolist() == [1, 0]
    assert jrnn.invert_permutation(jtensor.tensor([2, 0, 1])).tolist() == [1, 2, 0]
    assert jrnn.invert_permutation(None) is None


def test_round_trips():
    rng = _rng(1)
    seqs = [jtensor.tensor(rng.standard_normal((n, 3))) for n in (2, 5, 1, 4)]
    assert all(jtensor.equal(a, b) for a, b in
               zip(jrnn.unpack_sequence(jrnn.pack_sequence(seqs, enforce_sorted=False)), seqs,
                   strict=True))
    padded = jrnn.pad_sequence(seqs, batch_first=True)
    lengths = jtensor.tensor([2, 5, 1, 4]).cpu()  # lengths live on the CPU (as PyTorch's)
    assert all(jtensor.equal(a, b) for a, b in
               zip(jrnn.unpad_sequence(padded, lengths, batch_first=True), seqs, strict=True))
    packed = jrnn.pack_padded_sequence(padded, lengths, batch_first=True, enforce_sorted=False)
    back, lens = jrnn.pad_packed_sequence(packed, batch_first=True, total_length=7)
    assert tuple(back.shape) == (4, 7, 3) and lens.tolist() == [2, 5, 1, 4]
    assert jtensor.equal(back[:, :5], padded)


def test_packing_bad_input():
    x = jtensor.zeros(4, 3, 2)
    with pytest.raises(RuntimeError, match="equal to batch_size"):
        jrnn.pack_padded_sequence(x, [4, 2])
    with pytest.raises(RuntimeError, match="greater than 0"):
        jrnn.pack_padded_sequence(x, [4, 2, 0])
    with pytest.raises(RuntimeError, match="greater than 0"):
        jrnn.pack_padded_sequence(x, [4, 0, 2], enforce_sorted=False)
    with pytest.raises(RuntimeError, match="decreasing order"):
        jrnn.pack_padded_sequence(x, [2, 4, 1])
    with pytest.raises(RuntimeError, match="larger than the padded"):
        jrnn.pack_padded_sequence(x, [5, 2, 1])
    with pytest.raises(RuntimeError, match="1D"):
        jrnn.pack_padded_sequence(x, jtensor.tensor([[4, 2, 1]]))
    p = jrnn.pack_padded_sequence(x, [3, 2, 1])
    with pytest.raises(ValueError, match="total_length=2"):
        jrnn.pad_packed_sequence(p, total_length=2)
    with pytest.raises(RuntimeError, match="empty list"):
        jrnn.pad_sequence([])
    with pytest.raises(RuntimeError, match="empty list"):
        jrnn.pack_sequence([])
    with pytest.raises(RuntimeError, match="trailing dimensions"):
        jrnn.pad_sequence([jtensor.ones(2, 3), jtensor.ones(1, 4)])
    with pytest.raises(RuntimeError, match="padding_side"):
        jrnn.pad_sequence([jtensor.ones(2)], padding_side="up")
    with pytest.raises(RuntimeError, match="iterable"):
        jrnn.pad_sequence(5)


def test_pack_and_pad_gradcheck():
    rng = _rng(2)
    x = jtensor.tensor(rng.standard_normal((4, 3, 2))).requires_grad_()
    assert gradcheck(lambda t: jrnn.pack_padded_sequence(t, [4, 2, 1]).data, (x,))
    assert gradcheck(lambda t: jrnn.pack_padded_sequence(
        t, [2, 4, 1], batch_first=False, enforce_sorted=False).data, (x,))
    y = jtensor.tensor(rng.standard_normal((3, 4, 2))).requires_grad_()
    assert gradcheck(lambda t: jrnn.pack_padded_sequence(
        t, [2, 4, 3], batch_first=True, enforce_sorted=False).data, (y,))
    d = jtensor.tensor(rng.standard_normal((6, 2))).requires_grad_()
    bs = jtensor.tensor([3, 2, 1]).cpu()  # batch_sizes live on the CPU (as PyTorch's)
    assert gradcheck(lambda t: jrnn.pad_packed_sequence(
        jrnn.PackedSequence(t, bs, jtensor.tensor([2, 0, 1])), batch_first=True,
        padding_value=-1.0, total_length=4)[0], (d,))
    a = jtensor.tensor(rng.standard_normal((3, 2))).requires_grad_()
    b = jtensor.tensor(rng.standard_normal((1, 2))).requires_grad_()
    assert gradcheck(lambda s, t: jrnn.pad_sequence([s, t], padding_side="left"), (a, b))
    assert gradcheck(lambda s, t: jrnn.pad_sequence([s, t], batch_first=True), (a, b))


# ====================================================================== packing vs PyTorch
def _both(fn):
    """Run ``fn(lib_rnn, lib, T)`` with jtensor and torch; T converts a NumPy array."""
    ours = fn(jrnn, jtensor, lambda a, **k: to_jt(jtensor.tensor(a), **k))
    theirs = fn(trnn, torch, lambda a, **k: to_torch(torch.tensor(a), **k))
    return ours, theirs


def _assert_packed(ours, theirs):
    assert type(ours).__name__ == "PackedSequence"
    for a, b, what in zip(ours, theirs, ours._fields, strict=True):
        assert_close(a, b, what=what)


@needs_torch
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("lengths,enforce", [([5, 3, 3, 1], True), ([3, 5, 1, 3], False),
                                             ([5, 3, 3, 1], False)])
@pytest.mark.parametrize("as_tensor", [False, True])
def test_pack_padded_sequence_matches_pytorch(batch_first, lengths, enforce, as_tensor):
    arr = _rng(3).standard_normal((4, 6, 2) if batch_first else (6, 4, 2))

    def run(R, lib, T):
        x = T(arr, requires_grad=True)
        lens = lib.tensor(lengths).cpu() if as_tensor else lengths  # CPU, as PyTorch asks
        p = R.pack_padded_sequence(x, lens, batch_first=batch_first, enforce_sorted=enforce)
        out, out_lens = R.pad_packed_sequence(p, batch_first=batch_first, padding_value=-2.0,
                                              total_length=7)
        (out * lib.arange(out.numel(), dtype=out.dtype).view(out.shape)).sum().backward()
        return p, out, out_lens, x.grad, type(p.data.grad_fn).__name__, \
            type(out.grad_fn).__name__, out.stride()

    ours, theirs = _both(run)
    _assert_packed(ours[0], theirs[0])
    for i, what in [(1, "padded"), (2, "lengths"), (3, "grad")]:
        assert_close(ours[i], theirs[i], what=what)
    assert ours[4:] == theirs[4:]


@needs_torch
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("side", ["right", "left"])
@pytest.mark.parametrize("value", [0.0, -1.5])
def test_pad_sequence_matches_pytorch(batch_first, side, value):
    rng = _rng(4)
    arrs = [rng.standard_normal((n, 2, 3)) for n in (3, 5, 1)]

    def run(R, lib, T):
        seqs = [T(a, requires_grad=True) for a in arrs]
        out = R.pad_sequence(seqs, batch_first=batch_first, padding_value=value,
                             padding_side=side)
        (out * lib.arange(out.numel(), dtype=out.dtype).view(out.shape)).sum().backward()
        return out, [s.grad for s in seqs], type(out.grad_fn).__name__, out.stride()

    ours, theirs = _both(run)
    assert_close(ours[0], theirs[0])
    assert_close(ours[1], theirs[1], what="grads")
    assert ours[2:] == theirs[2:]


@needs_torch
def test_pad_sequence_dtypes_match_pytorch():
    def run(R, lib, T):
        ints = [lib.tensor([1, 2, 3]), lib.tensor([4])]
        return (R.pad_sequence(ints, padding_value=2.5),
                R.pad_sequence([lib.ones(2), lib.ones(1, dtype=lib.int64)]),
                R.pad_sequence(lib.ones(2, 3)))

    ours, theirs = _both(run)
    assert_close(ours, theirs)


@needs_torch
def test_pack_sequence_and_unpack_match_pytorch():
    rng = _rng(5)
    arrs = [rng.standard_normal((n, 2)) for n in (2, 4, 1, 4)]

    def run(R, lib, T):
        seqs = [T(a) for a in arrs]
        p = R.pack_sequence(seqs, enforce_sorted=False)
        return p, R.unpack_sequence(p)

    ours, theirs = _both(run)
    _assert_packed(ours[0], theirs[0])
    assert_close(ours[1], theirs[1], what="unpacked")


@needs_torch
def test_packing_errors_match_pytorch():
    cases = [
        lambda R, lib: R.pack_padded_sequence(lib.zeros(4, 3, 2), [4, 2]),
        lambda R, lib: R.pack_padded_sequence(lib.zeros(4, 3, 2), [4, 2, 1, 1]),
        lambda R, lib: R.pack_padded_sequence(lib.zeros(4, 3, 2), [4, 2, 1, 1],
                                              enforce_sorted=False),
        lambda R, lib: R.pack_padded_sequence(lib.zeros(3, 4, 2), [2, 1, 3, 1],
                                              batch_first=True, enforce_sorted=False),
        lambda R, lib: R.pack_padded_sequence(lib.zeros(4, 3, 2), [4, 2, 0]),
        lambda R, lib: R.pack_padded_sequence(lib.zeros(4, 3, 2), [2, 4, 1]),
        lambda R, lib: R.pack_padded_sequence(lib.zeros(4, 3, 2), [2, 4, 0],
                                              enforce_sorted=False),
        lambda R, lib: R.pack_padded_sequence(lib.zeros(4, 3, 2), lib.tensor([[4, 2, 1]])),
        lambda R, lib: R.pad_packed_sequence(
            R.pack_padded_sequence(lib.zeros(4, 3, 2), [3, 2, 1]), total_length=2),
        lambda R, lib: R.pad_sequence([]),
        lambda R, lib: R.pad_sequence([lib.ones(2, 3), lib.ones(1, 4)]),
        lambda R, lib: R.pad_sequence([lib.ones(2)], padding_side="middle"),
        lambda R, lib: R.pad_sequence(3),
        lambda R, lib: R.pack_sequence([lib.ones(2), lib.ones(3)]),
    ]
    for i, case in enumerate(cases):
        kinds = []
        for R, lib in ((jrnn, jtensor), (trnn, torch)):
            try:
                case(R, lib)
                kinds.append(None)
            except Exception as e:  # noqa: BLE001 - comparing the exception classes
                kinds.append(RuntimeError if isinstance(e, RuntimeError) else
                             IndexError if isinstance(e, IndexError) else
                             ValueError if isinstance(e, ValueError) else
                             TypeError if isinstance(e, TypeError) else type(e))
        assert kinds[0] == kinds[1], f"case {i}: {kinds}"


# ====================================================================== layers: jtensor only
def test_layer_parameters_init_and_repr():
    m = jnn.LSTM(3, 8, num_layers=2, bidirectional=True, proj_size=2)
    names = [n for n, _ in m.named_parameters()]
    assert names[:5] == ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0",
                         "weight_hr_l0"]
    assert "weight_ih_l1_reverse" in names and len(names) == 20
    assert tuple(m.weight_ih_l1.shape) == (32, 4) and tuple(m.weight_hh_l0.shape) == (32, 2)
    bound = 1 / np.sqrt(8)
    for p in m.parameters():
        assert float(p.abs().max()) <= bound
    assert float(m.weight_ih_l0.abs().max()) > bound / 2  # really drawn, not zeros
    assert repr(m) == "LSTM(3, 8, proj_size=2, num_layers=2, bidirectional=True)"
    assert repr(jnn.GRU(3, 4, bias=False, batch_first=True, dropout=0.5, num_layers=2)) == \
        "GRU(3, 4, num_layers=2, bias=False, batch_first=True, dropout=0.5)"
    assert repr(jnn.RNNCell(2, 3, bias=False, nonlinearity="relu")) == \
        "RNNCell(2, 3, bias=False, nonlinearity=relu)"
    assert [n for n, _ in jnn.GRUCell(2, 3).named_parameters()] == \
        ["weight_ih", "weight_hh", "bias_ih", "bias_hh"]
    assert len(m.all_weights) == 4 and len(m.all_weights[0]) == 5


def test_layer_bad_arguments():
    with pytest.raises(ValueError, match="proj_size"):
        jnn.GRU(2, 3, proj_size=1)
    with pytest.raises(ValueError, match="smaller than hidden_size"):
        jnn.LSTM(2, 3, proj_size=3)
    with pytest.raises(ValueError, match="nonlinearity"):
        jnn.RNN(2, 3, nonlinearity="gelu")
    with pytest.raises(ValueError, match="dropout"):
        jnn.LSTM(2, 3, dropout=1.5)
    with pytest.raises(TypeError, match="bias"):
        jnn.LSTM(2, 3, bias=1)
    with pytest.raises(ValueError, match="hidden_size"):
        jnn.LSTM(2, 0)
    with pytest.warns(UserWarning, match="dropout"):
        jnn.GRU(2, 3, dropout=0.2)
    m = jnn.LSTM(2, 3)
    with pytest.raises(RuntimeError, match="input_size"):
        m(jtensor.zeros(4, 1, 5))
    with pytest.raises(ValueError, match="2D or 3D"):
        m(jtensor.zeros(4))
    with pytest.raises(ValueError, match="dtype"):
        m(jtensor.zeros(4, 1, 2, dtype=jtensor.float64))
    with pytest.raises(RuntimeError, match=r"Expected hidden\[0\] size"):
        m(jtensor.zeros(4, 2, 2), (jtensor.zeros(1, 3, 3), jtensor.zeros(1, 3, 3)))
    with pytest.raises(RuntimeError, match="3-D"):
        m(jtensor.zeros(4, 2, 2), (jtensor.zeros(2, 3), jtensor.zeros(2, 3)))
    with pytest.raises(RuntimeError, match="Expected hidden size"):
        jnn.GRU(2, 3)(jtensor.zeros(4, 2, 2), jtensor.zeros(1, 2, 4))
    with pytest.raises(RuntimeError, match="input_size"):
        jnn.GRUCell(2, 3)(jtensor.zeros(4, 3))
    with pytest.raises(RuntimeError, match="batch size"):
        jnn.LSTMCell(2, 3)(jtensor.zeros(4, 2), (jtensor.zeros(3, 3), jtensor.zeros(3, 3)))
    with pytest.raises(ValueError, match="1D or 2D"):
        jnn.RNNCell(2, 3)(jtensor.zeros(1, 4, 2))


def test_dropout_between_layers_only_in_training():
    jtensor.manual_seed(0)
    m = jnn.GRU(3, 4, num_layers=2, dropout=0.5)
    x = jtensor.randn(5, 2, 3)
    m.eval()
    assert jtensor.equal(m(x)[0], m(x)[0])
    m.train()
    assert not jtensor.equal(m(x)[0], m(x)[0])
    # Full dropout: the second layer sees zeros whatever the input.
    m1 = jnn.GRU(3, 4, num_layers=2, dropout=1.0)
    assert jtensor.equal(m1(x)[0], m1(jtensor.randn(5, 2, 3))[0])
    m1.eval()
    assert not jtensor.equal(m1(x)[0], m1(jtensor.randn(5, 2, 3))[0])


@pytest.fixture(params=[True, False], ids=["fused", "composite"])
def fused(request, monkeypatch):
    """Run a test with the fused recurrence and with the recorded-ops one."""
    import jtensor.nn.modules.rnn as rnn_module

    monkeypatch.setattr(rnn_module, "FUSED", request.param)
    return request.param


@pytest.mark.parametrize("mode", ["RNN", "RNN_relu", "LSTM", "GRU", "LSTM_proj"])
def test_layer_gradcheck(mode, fused):
    jtensor.manual_seed(1)
    kwargs = {"num_layers": 2, "bidirectional": True}
    if mode == "RNN_relu":
        m = jnn.RNN(2, 3, nonlinearity="relu", **kwargs)
    elif mode == "LSTM_proj":
        m = jnn.LSTM(2, 3, proj_size=2, **kwargs)
    else:
        m = getattr(jnn, mode)(2, 3, **kwargs)
    m.double()
    x = jtensor.randn(3, 2, 2, dtype=jtensor.float64, requires_grad=True)
    def g(x, w):
        # the gradient through one weight: swap it in functionally
        name = "weight_hh_l0"
        saved = getattr(m, name)
        m._parameters[name] = w
        try:
            out, _ = m(x)
        finally:
            m._parameters[name] = saved
        return out

    assert gradcheck(lambda x: m(x)[0], (x,))
    w = m.weight_hh_l0.detach().clone().requires_grad_()
    assert gradcheck(g, (x, w))
    packed = jrnn.pack_padded_sequence(x, [3, 1], enforce_sorted=False)
    assert gradcheck(lambda d: m(jrnn.PackedSequence(d, packed.batch_sizes,
                                                     packed.sorted_indices))[0].data,
                     (packed.data.detach().requires_grad_(),))
    assert gradcheck(*_packed_with_state(m, mode, x))


def _packed_with_state(m, mode, x):
    """A function of (packed rows, h0, c0) through layer ``m`` and its float64 inputs."""
    packed = jrnn.pack_padded_sequence(x, [3, 1], enforce_sorted=False)
    hsize = 2 if mode == "LSTM_proj" else 3
    h0 = jtensor.randn(4, 2, hsize, dtype=jtensor.float64, requires_grad=True)
    c0 = jtensor.randn(4, 2, 3, dtype=jtensor.float64, requires_grad=True)

    def with_state(d, h0, c0):
        p = jrnn.PackedSequence(d, packed.batch_sizes, packed.sorted_indices)
        if mode.startswith("LSTM"):
            out, (h, c) = m(p, (h0, c0))
            return out.data, h, c
        out, h = m(p, h0)
        return out.data, h

    return with_state, (packed.data.detach().requires_grad_(), h0, c0)


def test_fused_recurrence_frees_its_activations():
    m = jnn.LSTM(2, 3)
    out, _ = m(jtensor.randn(4, 2, 2))
    # PyTorch's CPU LSTM runs oneDNN's layer kernel for float32: its node's name
    assert type(out.grad_fn).__name__ == "MkldnnRnnLayerBackward0"
    out.sum().backward(retain_graph=True)
    g = m.weight_hh_l0.grad.clone()
    out.sum().backward()
    assert jtensor.allclose(m.weight_hh_l0.grad, 2 * g)
    with pytest.raises(RuntimeError, match="second time"):
        out.sum().backward()


def _small_layer(lib, mode):
    kwargs = {"num_layers": 2, "bidirectional": True}
    if mode == "RNN_relu":
        m = lib.nn.RNN(2, 3, nonlinearity="relu", **kwargs)
    elif mode == "LSTM_proj":
        m = lib.nn.LSTM(2, 3, proj_size=2, **kwargs)
    else:
        m = getattr(lib.nn, mode)(2, 3, **kwargs)
    m.double()
    with lib.no_grad():
        for k, p in enumerate(m.parameters()):
            p.copy_(lib.linspace(-0.6, 0.5 + 0.01 * k, p.numel(), dtype=lib.float64)
                    .reshape(p.shape))
    return m


@pytest.mark.parametrize("mode", ["RNN", "RNN_relu", "LSTM", "GRU", "LSTM_proj"])
def test_layers_are_twice_differentiable(mode, fused):
    jtensor.manual_seed(3)
    m = _small_layer(jtensor, mode)
    x = jtensor.randn(3, 2, 2, dtype=jtensor.float64, requires_grad=True)
    assert jtensor.autograd.gradgradcheck(lambda x: m(x)[0], (x,))
    assert jtensor.autograd.gradgradcheck(*_packed_with_state(m, mode, x))


@needs_torch
@pytest.mark.parametrize("mode", ["RNN", "LSTM", "GRU", "LSTM_proj"])
def test_gradient_penalty_through_a_layer_matches_pytorch(mode, fused):
    """d/dW of |d out / d x|^2: the fused layer's backward is differentiable again."""
    results = []
    for lib in (jtensor, torch):
        m = _small_layer(lib, mode)
        x = lib.linspace(-1, 1, 12, dtype=lib.float64).reshape(3, 2, 2).requires_grad_()
        out, _ = m(x)
        (g,) = lib.autograd.grad(out.pow(2).sum(), x, create_graph=True)
        penalty = g.pow(2).sum()
        grads = lib.autograd.grad(penalty, list(m.parameters()))
        results.append((g.detach(), [w.detach() for w in grads]))
    (g_jt, w_jt), (g_t, w_t) = results
    assert_close(g_jt, g_t, atol=1e-10)
    for a, b in zip(w_jt, w_t, strict=True):
        assert_close(a, b, atol=1e-10)


@pytest.mark.parametrize("cell", ["RNNCell", "LSTMCell", "GRUCell"])
def test_cell_gradcheck(cell):
    jtensor.manual_seed(2)
    m = getattr(jnn, cell)(3, 4).double()
    x = jtensor.randn(2, 3, dtype=jtensor.float64, requires_grad=True)
    h = jtensor.randn(2, 4, dtype=jtensor.float64, requires_grad=True)
    if cell == "LSTMCell":
        c = jtensor.randn(2, 4, dtype=jtensor.float64, requires_grad=True)
        assert gradcheck(lambda x, h, c: jtensor.cat(m(x, (h, c)), 1), (x, h, c))
    else:
        assert gradcheck(lambda x, h: m(x, h), (x, h))


# ====================================================================== layers vs PyTorch
def _make(lib_nn, mode, **kw):
    if mode == "RNN_relu":
        return lib_nn.RNN(nonlinearity="relu", **kw)
    if mode == "LSTM_proj":
        return lib_nn.LSTM(proj_size=2, **kw)
    return getattr(lib_nn, mode)(**kw)


def _flat(result):
    out, hidden = result
    if isinstance(hidden, tuple):
        return out, list(hidden)
    return out, [hidden]


def _compare_layer(mode, x_arr, *, lengths=None, with_h0=False, dtype="float64", rtol=1e-6,
                   atol=1e-8, enforce_sorted=False, **kw):
    tm = _make(tnn, mode, input_size=x_arr.shape[-1], hidden_size=4, **kw)
    jm = _make(jnn, mode, input_size=x_arr.shape[-1], hidden_size=4, **kw)
    tm = tm.to(getattr(torch, dtype))
    jm = jm.to(getattr(jtensor, dtype))
    copy_weights(jm, tm)
    rng = _rng(7)
    dirs = 2 if kw.get("bidirectional") else 1
    batch = x_arr.shape[0] if kw.get("batch_first") else x_arr.shape[1]
    hsize = 2 if mode == "LSTM_proj" else 4
    h0 = rng.standard_normal((kw.get("num_layers", 1) * dirs, batch, hsize)).astype(dtype)
    c0 = rng.standard_normal((kw.get("num_layers", 1) * dirs, batch, 4)).astype(dtype)
    results = []
    for lib, R, m, conv in ((jtensor, jrnn, jm, to_jt), (torch, trnn, tm, to_torch)):
        x = conv(lib.tensor(x_arr.astype(dtype)), requires_grad=True)
        hs = []
        args = [x]
        if with_h0:
            hs = [conv(lib.tensor(h0), requires_grad=True)]
            if mode.startswith("LSTM"):
                hs.append(conv(lib.tensor(c0), requires_grad=True))
                args.append(tuple(hs))
            else:
                args.append(hs[0])
        if lengths is not None:
            args[0] = R.pack_padded_sequence(x, lengths, batch_first=kw.get("batch_first", False),
                                             enforce_sorted=enforce_sorted)
        out, hidden = _flat(m(*args))
        if lengths is not None:
            assert type(out).__name__ == "PackedSequence"
            packed_meta = (out.batch_sizes, out.sorted_indices, out.unsorted_indices)
            out = R.pad_packed_sequence(out, batch_first=kw.get("batch_first", False))[0]
        else:
            packed_meta = None
        g = _rng(8)
        loss = (out * lib.tensor(g.standard_normal(tuple(out.shape)).astype(dtype))).sum()
        for h in hidden:
            loss = loss + (h * lib.tensor(g.standard_normal(tuple(h.shape)).astype(dtype))).sum()
        loss.backward()
        grads = {n: p.grad for n, p in m.named_parameters()}
        results.append((out, hidden, x.grad, [h.grad for h in hs], grads, packed_meta))
    ours, theirs = results
    assert_close(ours[0], theirs[0], rtol, atol, "output")
    assert_close(ours[1], theirs[1], rtol, atol, "hidden")
    assert_close(ours[2], theirs[2], rtol, atol, "input grad")
    assert_close(ours[3], theirs[3], rtol, atol, "h0 grad")
    assert list(ours[4]) == list(theirs[4])
    for name in theirs[4]:
        assert_close(ours[4][name], theirs[4][name], rtol, atol, f"grad of {name}")
    if ours[5] is not None:
        assert_close(list(ours[5]), list(theirs[5]), what="packed metadata")


MODES = ["RNN", "RNN_relu", "LSTM", "GRU", "LSTM_proj"]


@needs_torch
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_layers_padded_match_pytorch(mode, batch_first, bidirectional, fused):
    shape = (3, 5, 2) if batch_first else (5, 3, 2)
    x = _rng(9).standard_normal(shape)
    _compare_layer(mode, x, num_layers=2, batch_first=batch_first,
                   bidirectional=bidirectional, with_h0=True)


@needs_torch
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("bidirectional", [False, True])
@pytest.mark.parametrize("with_h0", [False, True])
def test_layers_packed_match_pytorch(mode, batch_first, bidirectional, with_h0, fused):
    shape = (4, 5, 2) if batch_first else (5, 4, 2)
    x = _rng(10).standard_normal(shape)
    _compare_layer(mode, x, lengths=[3, 5, 1, 3], num_layers=2, batch_first=batch_first,
                   bidirectional=bidirectional, with_h0=with_h0)


@needs_torch
@pytest.mark.parametrize("mode", MODES)
def test_layers_sorted_packed_match_pytorch(mode):
    x = _rng(16).standard_normal((6, 4, 3))
    _compare_layer(mode, x, lengths=[6, 4, 4, 2], enforce_sorted=True, with_h0=True,
                   bidirectional=True)


@needs_torch
def test_packed_hidden_size_error_matches_pytorch():
    for nn, lib, R in ((jnn, jtensor, jrnn), (tnn, torch, trnn)):
        p = R.pack_sequence([lib.ones(3, 2), lib.ones(2, 2)])
        with pytest.raises(RuntimeError,
                           match=r"Expected hidden size \(1, 2, 3\), got \[1, 3, 3\]"):
            nn.GRU(2, 3)(p, lib.zeros(1, 3, 3))


@needs_torch
@pytest.mark.parametrize("mode", MODES)
def test_layers_float32_no_bias_match_pytorch(mode, fused):
    x = _rng(11).standard_normal((6, 3, 2))
    _compare_layer(mode, x, dtype="float32", rtol=1e-4, atol=1e-5, bias=False)
    _compare_layer(mode, x, dtype="float32", rtol=1e-4, atol=1e-5, num_layers=1)


@needs_torch
@pytest.mark.parametrize("mode", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("batch_first", [False, True])
def test_unbatched_input_matches_pytorch(mode, batch_first):
    x = _rng(12).standard_normal((5, 2))
    tm = getattr(tnn, mode)(2, 3, num_layers=2, batch_first=batch_first).double()
    jm = copy_weights(getattr(jnn, mode)(2, 3, num_layers=2, batch_first=batch_first).double(),
                      tm)
    h = _rng(13).standard_normal((2, 3))
    hx_t = torch.tensor(h)
    hx_j = jtensor.tensor(h)
    if mode == "LSTM":
        hx_t, hx_j = (hx_t, hx_t * 2), (hx_j, hx_j * 2)
    ours = _flat(jm(jtensor.tensor(x), hx_j))
    theirs = _flat(tm(torch.tensor(x), hx_t))
    assert_close(ours[0], theirs[0], 1e-6, 1e-8, "output")
    assert_close(ours[1], theirs[1], 1e-6, 1e-8, "hidden")


@needs_torch
@pytest.mark.parametrize("cell", ["RNNCell", "RNNCell_relu", "LSTMCell", "GRUCell"])
@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("with_h", [True, False])
def test_cells_match_pytorch(cell, batched, with_h):
    kw = {"nonlinearity": "relu"} if cell == "RNNCell_relu" else {}
    name = cell.split("_")[0]
    tm = getattr(tnn, name)(3, 4, **kw).double()
    jm = copy_weights(getattr(jnn, name)(3, 4, **kw).double(), tm)
    rng = _rng(14)
    shape = (2,) if batched else ()
    x = rng.standard_normal(shape + (3,))
    h = rng.standard_normal(shape + (4,))
    c = rng.standard_normal(shape + (4,))
    results = []
    for lib, m, conv in ((jtensor, jm, to_jt), (torch, tm, to_torch)):
        xt = conv(lib.tensor(x), requires_grad=True)
        hs = [conv(lib.tensor(h), requires_grad=True), conv(lib.tensor(c), requires_grad=True)]
        if not with_h:
            out = m(xt)
        elif name == "LSTMCell":
            out = m(xt, tuple(hs))
        else:
            out = m(xt, hs[0])
        outs = list(out) if isinstance(out, tuple) else [out]
        loss = sum((o * (k + 1.5)).sin().sum() for k, o in enumerate(outs))
        loss.backward()
        results.append((outs, xt.grad, [t.grad for t in hs],
                        [p.grad for p in m.parameters()], [type(o.grad_fn).__name__
                                                           for o in outs]))
    ours, theirs = results
    for i in range(4):
        assert_close(ours[i], theirs[i], 1e-6, 1e-8, f"item {i}")
    assert ours[4] == theirs[4]


@needs_torch
def test_layer_errors_match_pytorch():
    cases = [
        lambda nn, lib: nn.LSTM(2, 3)(lib.zeros(4, 1, 5)),
        lambda nn, lib: nn.LSTM(2, 3)(lib.zeros(4)),
        lambda nn, lib: nn.LSTM(2, 3)(lib.zeros(4, 1, 2, dtype=lib.float64)),
        lambda nn, lib: nn.LSTM(2, 3)(lib.zeros(4, 2, 2), (lib.zeros(1, 3, 3),
                                                          lib.zeros(1, 3, 3))),
        lambda nn, lib: nn.LSTM(2, 3)(lib.zeros(4, 2, 2), (lib.zeros(2, 3), lib.zeros(2, 3))),
        lambda nn, lib: nn.GRU(2, 3)(lib.zeros(4, 2, 2), lib.zeros(1, 2, 4)),
        lambda nn, lib: nn.RNN(2, 3)(lib.zeros(4, 2), lib.zeros(1, 1, 3)),
        lambda nn, lib: nn.GRU(2, 3, proj_size=1),
        lambda nn, lib: nn.RNN(2, 3, nonlinearity="gelu"),
        lambda nn, lib: nn.LSTM(2, 3, proj_size=4),
        lambda nn, lib: nn.LSTM(2, 3, dropout=2),
        lambda nn, lib: nn.LSTM(2, 3, bias=1),
        lambda nn, lib: nn.LSTM(2.0, 3),
        lambda nn, lib: nn.LSTM(2, 3, num_layers=0),
        lambda nn, lib: nn.GRUCell(2, 3)(lib.zeros(4, 3)),
        lambda nn, lib: nn.GRUCell(2, 3)(lib.zeros(4, 2), lib.zeros(4, 4)),
        lambda nn, lib: nn.LSTMCell(2, 3)(lib.zeros(4, 2), (lib.zeros(3, 3), lib.zeros(3, 3))),
        lambda nn, lib: nn.RNNCell(2, 3)(lib.zeros(1, 4, 2)),
        lambda nn, lib: nn.RNNCell(2, 3)(lib.zeros(4, 2), lib.zeros(1, 4, 3)),
    ]
    for i, case in enumerate(cases):
        kinds = []
        for nn, lib in ((jnn, jtensor), (tnn, torch)):
            try:
                case(nn, lib)
                kinds.append(None)
            except Exception as e:  # noqa: BLE001 - comparing the exception classes
                kinds.append(RuntimeError if isinstance(e, RuntimeError) else
                             ValueError if isinstance(e, ValueError) else
                             TypeError if isinstance(e, TypeError) else type(e))
        assert kinds[0] == kinds[1], f"case {i}: {kinds}"


@needs_torch
def test_lstm_classifier_trains_like_pytorch(fused):
    """A packed-sequence LSTM classifier: same initial weights, 5 SGD steps by hand, the same
    losses step for step."""
    rng = _rng(15)
    lengths = [4, 7, 2, 5, 7, 1]
    x = rng.standard_normal((6, 7, 3)).astype(np.float32)
    y = rng.integers(0, 2, 6)

    torch.manual_seed(0)
    init = {k: v.clone() for k, v in
            tnn.LSTM(3, 5, batch_first=True, bidirectional=True).state_dict().items()}

    def run(nn, lib, R):
        lstm = nn.LSTM(3, 5, batch_first=True, bidirectional=True)
        if lib is torch:
            lstm.load_state_dict(init)
        else:
            copy_weights(lstm, _Frozen(init))
        head_w = lib.tensor(np.linspace(-0.5, 0.5, 20, dtype=np.float32).reshape(2, 10))
        head_w.requires_grad_()
        params = list(lstm.parameters()) + [head_w]
        losses = []
        for _ in range(5):
            packed = R.pack_padded_sequence(lib.tensor(x), lengths, batch_first=True,
                                            enforce_sorted=False)
            _, (h, _) = lstm(packed)
            feats = lib.cat([h[0], h[1]], 1)
            logits = feats @ head_w.t()
            logp = logits - logits.exp().sum(1, keepdim=True).log()
            loss = -logp[lib.arange(6), lib.tensor(y)].mean()
            for p in params:
                p.grad = None
            loss.backward()
            with lib.no_grad():
                for p in params:
                    p -= 0.5 * p.grad
            losses.append(float(loss))
        return losses

    t_losses = run(tnn, torch, trnn)
    j_losses = run(jnn, jtensor, jrnn)
    np.testing.assert_allclose(j_losses, t_losses, rtol=1e-4)
    assert j_losses[-1] < j_losses[0]


class _Frozen:
    """Quacks like a torch module for copy_weights: a fixed state_dict."""

    def __init__(self, state):
        self._state = state

    def state_dict(self):
        return self._state


# ---------------------------------------------------------------------- one op, one event
def _op_events(trace):
    return [(e.name, e.grad_fn) for e in trace.events if e.op_kind is not None]


def test_an_lstm_call_is_one_trace_event_padded_and_packed():
    m = jnn.LSTM(3, 4)
    x = jtensor.randn(5, 2, 3)
    with jtensor.trace.record() as t:
        out, (h, c) = m(x)
    # As PyTorch's module: the zero initial state, then torch.lstm.
    assert _op_events(t) == [("zeros", None), ("zeros", None),
                             ("lstm", "MkldnnRnnLayerBackward0")]
    (event,) = [e for e in t.events if e.name == "lstm"]
    assert event.op_kind == "nn"
    assert [s.ref() for s in event.outputs] == [out, h, c]

    packed = jrnn.pack_padded_sequence(jtensor.randn(5, 2, 3, requires_grad=True), [5, 3])
    with jtensor.trace.record() as t:
        out, (h, c) = m(packed, (jtensor.zeros(1, 2, 4), jtensor.zeros(1, 2, 4)))
    assert _op_events(t) == [("zeros", None), ("zeros", None), ("lstm", "CatBackward0")]
    assert type(out.data.grad_fn).__name__ == "CatBackward0"

    # Unsorted lengths: the hidden state is permuted in and out (index_select, as PyTorch).
    packed = jrnn.pack_padded_sequence(jtensor.randn(5, 2, 3), [3, 5], enforce_sorted=False)
    with jtensor.trace.record() as t:
        m(packed)
    assert [name for name, _ in _op_events(t)] == [
        "zeros", "zeros", "lstm", "index_select", "index_select"]


def test_packing_and_the_cells_are_one_trace_event_each():
    x = jtensor.randn(4, 3, 2, requires_grad=True)
    with jtensor.trace.record() as t:
        packed = jrnn.pack_padded_sequence(x, [4, 2, 1])
    assert _op_events(t) == [("pack_padded_sequence", "PackPaddedSequenceBackward0")]
    assert type(packed.data.grad_fn).__name__ == "PackPaddedSequenceBackward0"
    for cell, name, node in ((jnn.LSTMCell(2, 3), "lstm_cell", "MulBackward0"),
                             (jnn.GRUCell(2, 3), "gru_cell", "AddBackward0"),
                             (jnn.RNNCell(2, 3), "rnn_tanh_cell", "TanhBackward0"),
                             (jnn.RNNCell(2, 3, nonlinearity="relu"), "rnn_relu_cell",
                              "ReluBackward0")):
        h, step = jtensor.zeros(3, 3), x[0]
        hx = (h, h) if name == "lstm_cell" else h
        with jtensor.trace.record() as t:
            cell(step, hx)
        assert _op_events(t) == [(name, node)]


@needs_torch
@pytest.mark.parametrize("op", ["lstm", "gru", "rnn_tanh", "rnn_relu"])
def test_layer_functions_take_both_overloads_like_pytorch(op):
    gates = {"lstm": 4, "gru": 3}.get(op, 1)
    rng = _rng(3)
    arrays = [rng.standard_normal(s) for s in
              [(6, 2), (gates * 3, 2), (gates * 3, 3), (gates * 3,), (gates * 3,)]]
    h = rng.standard_normal((1, 3, 3))
    results = []
    for lib in (jtensor, torch):
        data, *ws = [lib.tensor(a) for a in arrays]
        hx = (lib.tensor(h), lib.tensor(h)) if op == "lstm" else lib.tensor(h)
        sizes = lib.tensor([3, 2, 1])
        fn = getattr(lib, op)
        positional = fn(data, sizes, hx, ws, True, 1, 0.0, False, False)
        keywords = fn(data=data, batch_sizes=sizes, hx=hx, params=ws, has_biases=True,
                      num_layers=1, dropout=0.0, train=False, bidirectional=False)
        padded = fn(data.view(3, 2, 2), hx=hx, params=ws,
                    has_biases=True, num_layers=1, dropout=0.0, train=False,
                    bidirectional=False, batch_first=True)
        results.append([positional, keywords, padded])
    for ours, theirs in zip(*results, strict=True):
        assert_close(list(ours), list(theirs), 1e-10, 1e-12, "result")
