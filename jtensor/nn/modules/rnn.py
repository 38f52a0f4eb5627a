"""Recurrent layers: ``RNN`` (tanh / relu), ``LSTM`` (optional projections), ``GRU`` and the
single-step cells ``RNNCell``, ``LSTMCell``, ``GRUCell``.

Parameters, their names (``weight_ih_l0``, ``weight_hh_l0``, ``bias_ih_l0``, ``bias_hh_l0``,
``weight_hr_l0``, ``*_reverse``), shapes, gate order (LSTM: i, f, g, o; GRU: r, z, n),
initialisation (uniform in ``+-1/sqrt(hidden_size)``), input/hidden checks and ``repr`` are
PyTorch's. The layers accept padded tensors (time-major, or ``batch_first``), unbatched 2-D
inputs and ``PackedSequence`` (the output is then a ``PackedSequence`` too).

The computation is composed of differentiable jtensor ops: per layer and direction the input
projection of every time step is one matrix product; the recurrence then runs step by step
on the rows still active (a padded batch is a packed batch whose sizes never shrink).
"""

import math
import numbers
import warnings

import numpy as np

from ... import _dtypes
from ..._errors import TensorIndexError, TensorRuntimeError, TensorValueError, type_name
from ..._tensor import Tensor
from ..._dispatch import grad_mode as _grad_mode
from ..._api import ops as J
from ...autograd.function import BackwardCFunction, Function, _node_class
from ...autograd.grad_mode import no_grad
from .._functional._op import nn_op
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .module import Module

__all__ = ["GRU", "LSTM", "RNN", "GRUCell", "LSTMCell", "RNNBase", "RNNCell", "RNNCellBase"]


def _init_uniform(params, hidden_size):
    stdv = 1.0 / math.sqrt(hidden_size) if hidden_size > 0 else 0
    with no_grad():
        for p in params:
            p.uniform_(-stdv, stdv)


def _linear(x, weight, bias):
    """``x @ weight.T + bias`` for 2-D ``x`` in one op."""
    if bias is None:
        return J.matmul(x, weight.t())
    return J.addmm(bias, x, weight.t())


def _dropout(x, p):
    if p == 1.0:
        return x * 0.0
    mask = J.empty_like(x).bernoulli_(1.0 - p)
    return x * mask.div_(1.0 - p)


# ---------------------------------------------------------------------- cells (one step)
def _rnn_step(mode, xi, h, c, w_hh, b_hh, w_hr):
    """One time step given ``xi`` = the input projection (with its bias). Returns (h, c)."""
    # (PyTorch's cells split the gates with unsafe_chunk: UnsafeSplitBackward0)
    from ..._surface import unsafe_chunk

    hh = _linear(h, w_hh, b_hh)
    if mode == "RNN_TANH":
        return J.tanh(xi + hh), None
    if mode == "RNN_RELU":
        return J.relu(xi + hh), None
    if mode == "LSTM":
        gates = xi + hh
        i, f, g, o = unsafe_chunk(gates, 4, 1)
        c = J.sigmoid(f) * c + J.sigmoid(i) * J.tanh(g)
        h = J.sigmoid(o) * J.tanh(c)
        if w_hr is not None:
            h = J.matmul(h, w_hr.t())
        return h, c
    # GRU
    xr, xz, xn = unsafe_chunk(xi, 3, 1)
    hr, hz, hn = unsafe_chunk(hh, 3, 1)
    r = J.sigmoid(xr + hr)
    z = J.sigmoid(xz + hz)
    n = J.tanh(xn + r * hn)
    return (h - n) * z + n, None


def _run_direction(mode, xs, batch_sizes, h0, c0, w_hh, b_hh, w_hr, reverse):
    """Run one direction of one layer over ``xs``, the per-step input projections (step t:
    ``batch_sizes[t]`` x gates; sizes never grow with t).

    Returns (the list of per-step outputs, h_n, c_n) for the full batch.
    """
    steps = len(batch_sizes)
    outs = [None] * steps
    if not reverse:
        h, c = h0, c0
        finished_h, finished_c = [], []
        for t in range(steps):
            bs = batch_sizes[t]
            if bs < h.shape[0]:  # sequences that ended: their final state is kept
                finished_h.append(h[bs:])
                h = h[:bs]
                if c is not None:
                    finished_c.append(c[bs:])
                    c = c[:bs]
            h, c = _rnn_step(mode, xs[t], h, c, w_hh, b_hh, w_hr)
            outs[t] = h
        if finished_h:
            h = J.cat([h] + finished_h[::-1], 0)
            if c is not None:
                c = J.cat([c] + finished_c[::-1], 0)
        return outs, h, c
    last = batch_sizes[-1] if steps else h0.shape[0]
    h = h0[:last] if last < h0.shape[0] else h0
    c = (c0[:last] if last < c0.shape[0] else c0) if c0 is not None else None
    for t in range(steps - 1, -1, -1):
        bs = batch_sizes[t]
        if bs > h.shape[0]:  # sequences that start (backwards) here join with their h0
            h = J.cat([h, h0[h.shape[0]:bs]], 0)
            if c is not None:
                c = J.cat([c, c0[c.shape[0]:bs]], 0)
        h, c = _rnn_step(mode, xs[t], h, c, w_hh, b_hh, w_hr)
        outs[t] = h
    return outs, h, c


# ---------------------------------------------------------------------- fused recurrence
def _sigmoid(xp, a):
    return 1.0 / (1.0 + xp.exp(-a))


class _Recurrence(Function):
    """One direction of one layer, every time step in one node (forward and backward on raw
    backend arrays: a few array operations per step instead of a dozen recorded ops).

    Inputs: ``xi`` (N x gates, the input projections of all packed rows, with ``bias_ih``),
    ``h0`` (B x P), ``c0`` (B x H, LSTM only), ``w_hh``, ``b_hh``, ``w_hr`` (optional).
    At step t only the first ``batch_sizes[t]`` rows run (the batch is sorted by decreasing
    length); the others keep their state, so the state after the last step is ``h_n`` in both
    directions. Outputs: the rows of every step (N x P, packed order; ``steps`` x B x P for
    a padded batch, ``steps`` given), ``h_n``, ``c_n``.

    The node is named after the op that ends PyTorch's own (non-oneDNN) recurrence, whose
    result this node's output is: ``CatBackward0`` for packed rows (PyTorch concatenates the
    steps' rows), ``StackBackward0`` for a padded batch (``_RecurrenceSteps``: it stacks the
    steps' outputs).
    """

    @staticmethod
    def forward(ctx, xi, h0, c0, w_hh, b_hh, w_hr, mode, batch_sizes, reverse, steps=None):
        xp = xi._storage._backend.xp
        X = xi._array()
        W = w_hh._array()
        WT = W.T
        B = b_hh._array() if b_hh is not None else None
        WR = w_hr._array() if w_hr is not None else None
        h = xp.array(h0._array(), copy=True)
        c = xp.array(c0._array(), copy=True) if c0 is not None else None
        offsets = np.concatenate([[0], np.cumsum(batch_sizes)[:-1]]).astype(np.int64)
        out = xp.empty((X.shape[0], h.shape[1]), dtype=h.dtype)
        order = range(len(batch_sizes) - 1, -1, -1) if reverse else range(len(batch_sizes))
        saved = []
        for t in order:
            bs, off = int(batch_sizes[t]), int(offsets[t])
            hp = h[:bs]
            hh = hp @ WT
            if B is not None:
                hh += B
            x = X[off:off + bs]
            if mode == "LSTM":
                gates = x + hh
                H = gates.shape[1] // 4
                i = _sigmoid(xp, gates[:, :H])
                f = _sigmoid(xp, gates[:, H:2 * H])
                g = xp.tanh(gates[:, 2 * H:3 * H])
                o = _sigmoid(xp, gates[:, 3 * H:])
                cp = c[:bs].copy()
                cn = f * cp + i * g
                tc = xp.tanh(cn)
                hr = o * tc
                hn = hr @ WR.T if WR is not None else hr
                c[:bs] = cn
                saved.append((hp.copy(), cp, i, f, g, o, tc, hr))
            elif mode == "GRU":
                H = hh.shape[1] // 3
                r = _sigmoid(xp, x[:, :H] + hh[:, :H])
                z = _sigmoid(xp, x[:, H:2 * H] + hh[:, H:2 * H])
                ghn = hh[:, 2 * H:]
                n = xp.tanh(x[:, 2 * H:] + r * ghn)
                hn = (hp - n) * z + n
                saved.append((hp.copy(), r, z, n, ghn))
            else:
                pre = x + hh
                hn = xp.tanh(pre) if mode == "RNN_TANH" else xp.maximum(pre, 0)
                saved.append((hp.copy(), hn))
            h[:bs] = hn
            out[off:off + bs] = hn
        ctx.saved = saved
        ctx.info = (mode, batch_sizes, reverse, offsets)
        ctx.steps = steps
        ctx.save_for_backward(w_hh, w_hr, xi, h0, c0, b_hh)
        dtype, device = xi._dtype, xi.device
        wrap = Tensor._from_array
        if steps is not None:
            out = out.reshape(steps, out.shape[0] // steps, out.shape[1])
        results = (wrap(out, dtype, device), wrap(h, dtype, device),
                   wrap(c, dtype, device) if c is not None else None)
        return results

    @staticmethod
    def backward(ctx, g_out, g_h, g_c):
        if _grad_mode.enabled:  # create_graph=True: gradients that are differentiable again
            return _Recurrence._differentiable_backward(ctx, g_out, g_h, g_c)
        mode, batch_sizes, reverse, offsets = ctx.info
        w_hh, w_hr = ctx.saved_tensors[:2]
        xp = w_hh._storage._backend.xp
        W = w_hh._array()
        WR = w_hr._array() if w_hr is not None else None
        GO = g_out._array()
        if GO.ndim == 3:
            GO = GO.reshape(-1, GO.shape[2])
        dh = xp.array(g_h._array(), copy=True)
        dc = xp.array(g_c._array(), copy=True) if mode == "LSTM" and g_c is not None else None
        if mode == "LSTM" and dc is None:
            dc = xp.zeros((dh.shape[0], W.shape[0] // 4), dtype=dh.dtype)
        dX = xp.empty((GO.shape[0], W.shape[0]), dtype=GO.dtype)
        dW = xp.zeros_like(W)
        db = xp.zeros(W.shape[0], dtype=W.dtype)
        dWR = xp.zeros_like(WR) if WR is not None else None
        order = range(len(batch_sizes)) if reverse else range(len(batch_sizes) - 1, -1, -1)
        saved = ctx.saved
        k = len(saved)
        for t in order:
            k -= 1
            bs, off = int(batch_sizes[t]), int(offsets[t])
            d = dh[:bs] + GO[off:off + bs]
            if mode == "LSTM":
                hp, cp, i, f, g, o, tc, hr = saved[k]
                if WR is not None:
                    dWR += d.T @ hr
                    d = d @ WR
                do = d * tc
                dcn = dc[:bs] + d * o * (1 - tc * tc)
                dG = xp.concatenate([dcn * g * i * (1 - i), dcn * cp * f * (1 - f),
                                     dcn * i * (1 - g * g), do * o * (1 - o)], axis=1)
                dc[:bs] = dcn * f
                dHH = dG
                dX[off:off + bs] = dG
            elif mode == "GRU":
                hp, r, z, n, ghn = saved[k]
                dz = d * (hp - n) * z * (1 - z)
                dn = d * (1 - z) * (1 - n * n)
                dr = dn * ghn * r * (1 - r)
                dX[off:off + bs] = xp.concatenate([dr, dz, dn], axis=1)
                dHH = xp.concatenate([dr, dz, dn * r], axis=1)
                direct = d * z
            else:
                hp, hn = saved[k]
                dHH = d * (1 - hn * hn) if mode == "RNN_TANH" else d * (hn > 0)
                dX[off:off + bs] = dHH
            dW += dHH.T @ hp
            db += dHH.sum(0)
            dprev = dHH @ W
            if mode == "GRU":
                dprev += direct
            dh[:bs] = dprev
        dtype, device = w_hh._dtype, w_hh.device
        wrap = Tensor._from_array
        needs = ctx.needs_input_grad
        return (wrap(dX, dtype, device) if needs[0] else None,
                wrap(dh, dtype, device) if needs[1] else None,
                wrap(dc, dtype, device) if dc is not None and needs[2] else None,
                wrap(dW, dtype, device) if needs[3] else None,
                wrap(db, dtype, device) if needs[4] else None,
                wrap(dWR, dtype, device) if dWR is not None and needs[5] else None,
                None, None, None, None)


    @staticmethod
    def _differentiable_backward(ctx, g_out, g_h, g_c):
        """The gradients as recorded ops, so that they can be differentiated again (gradient
        penalties, Hessian-vector products through an RNN): the recurrence is run once more
        as jtensor ops from the saved inputs (PyTorch's own CPU recurrence is such ops), and
        ``autograd.grad`` of that graph, with ``create_graph``, gives what the fused backward
        gives, with history."""
        from ...autograd import grad as _grad

        mode, batch_sizes, reverse, _ = ctx.info
        w_hh, w_hr, xi, h0, c0, b_hh = ctx.saved_tensors
        sizes = [int(b) for b in batch_sizes]
        xs = list(xi.split(sizes, 0)) if len(sizes) > 1 else [xi]
        outs, h, c = _run_direction(mode, xs, sizes, h0, c0, w_hh, b_hh, w_hr, reverse)
        out = J.stack(outs, 0) if ctx.steps is not None else J.cat(outs, 0)
        inputs = (xi, h0, c0, w_hh, b_hh, w_hr)
        wanted = [k for k, t in enumerate(inputs)
                  if t is not None and ctx.needs_input_grad[k] and t.requires_grad]
        outputs, grads = [out, h], [g_out, g_h]
        if c is not None and g_c is not None:
            outputs.append(c)
            grads.append(g_c)
        found = _grad(outputs, [inputs[k] for k in wanted], grads, create_graph=True,
                      allow_unused=True, materialize_grads=True)
        result = [None] * len(ctx.needs_input_grad)  # one per forward argument
        for k, g in zip(wanted, found, strict=True):
            result[k] = g
        return tuple(result)


class _RecurrenceSteps(_Recurrence):
    """``_Recurrence`` over a padded batch: the output is ``steps x B x P``."""


class _RecurrenceOneDNN(_RecurrenceSteps):
    """``_RecurrenceSteps`` of an LSTM layer where PyTorch's CPU build runs oneDNN's kernel
    (float32 or bfloat16, padded, no projection): its node is ``MkldnnRnnLayerBackward0``,
    which tutorials print as the output's ``grad_fn``."""


def _one_dnn_layer(mode, xi, w, padded):
    return (padded and mode == "LSTM" and w.get("weight_hr") is None
            and xi.dtype in (_dtypes.float32, _dtypes.bfloat16))


def _release_recurrence(node):
    # The per-step activations go with the saved tensors (after a backward without
    # retain_graph), so a second backward raises as in PyTorch and the memory is returned.
    node.saved = None
    BackwardCFunction._release(node)


for _fn, _name in ((_Recurrence, "CatBackward0"), (_RecurrenceSteps, "StackBackward0"),
                   (_RecurrenceOneDNN, "MkldnnRnnLayerBackward0")):
    _recurrence_node = _node_class(_fn)
    _recurrence_node.__name__ = _recurrence_node.__qualname__ = _name
    _recurrence_node._release = _release_recurrence

# Set to False to run the recurrence as recorded jtensor ops (differentiable twice).
FUSED = True


def _run_layers(mode, weights, num_layers, bidirectional, dropout, train, x, batch_sizes,
                hx, cx, padded=False):
    """All layers and directions over packed rows ``x`` (N x input); ``weights`` holds one
    dict per layer and direction (``weight_ih``, ``weight_hh``, optional ``bias_ih``,
    ``bias_hh``, ``weight_hr``). Returns (output, h_n, c_n): the output rows N x H*D, or
    with ``padded`` (every step the whole batch) steps x B x H*D, as PyTorch's stack."""
    num_dirs = 2 if bidirectional else 1
    h_out, c_out = [], []
    layer_input = x
    for layer in range(num_layers):
        dir_outputs = []
        for d in range(num_dirs):
            k = layer * num_dirs + d
            w = weights[k]
            rows = layer_input if layer_input.dim() == 2 else \
                layer_input.reshape(-1, layer_input.shape[-1])
            xi = _linear(rows, w["weight_ih"], w.get("bias_ih"))
            if FUSED:
                fn = (_RecurrenceOneDNN if _one_dnn_layer(mode, xi, w, padded)
                      else _RecurrenceSteps if padded else _Recurrence)
                out, h, c = fn.apply(
                    xi, hx[k], cx[k] if cx is not None else None, w["weight_hh"],
                    w.get("bias_hh"), w.get("weight_hr"), mode, batch_sizes, d == 1,
                    len(batch_sizes) if padded else None)
                dir_outputs.append(out)
            else:
                # One split node (its backward is one concatenation), not a slice per step
                # whose backward would each build a gradient the size of the whole sequence.
                xs = xi.split(batch_sizes, 0) if len(batch_sizes) > 1 else [xi]
                outs, h, c = _run_direction(
                    mode, xs, batch_sizes, hx[k], cx[k] if cx is not None else None,
                    w["weight_hh"], w.get("bias_hh"), w.get("weight_hr"), reverse=d == 1)
                dir_outputs.append(J.stack(outs, 0) if padded else J.cat(outs, 0))
            h_out.append(h)
            c_out.append(c)
        layer_output = dir_outputs[0] if num_dirs == 1 else J.cat(dir_outputs, -1)
        if dropout and train and layer < num_layers - 1:
            layer_output = _dropout(layer_output, dropout)
        layer_input = layer_output
    h_n = J.stack(h_out, 0)
    c_n = J.stack(c_out, 0) if cx is not None else None
    return layer_input, h_n, c_n


# ---------------------------------------------------------------------- registered ops
# ``torch.lstm``/``gru``/``rnn_tanh``/``rnn_relu`` (what PyTorch's modules call through
# ``torch._VF``): one call, one trace event. PyTorch has two overloads of each, told apart by
# their positional arguments: padded ``(input, hx, params, has_biases, num_layers, dropout,
# train, bidirectional, batch_first)`` and packed ``(data, batch_sizes, hx, params,
# has_biases, num_layers, dropout, train, bidirectional)``.
_PACKED_ORDER = ("data", "batch_sizes", "hx", "params", "has_biases", "num_layers",
                 "dropout", "train", "bidirectional")
_PADDED_ORDER = ("input", "hx", "params", "has_biases", "num_layers", "dropout", "train",
                 "bidirectional", "batch_first")


def _layer_weights(params, has_biases, count, proj):
    per = 2 + (2 if has_biases else 0) + (1 if proj else 0)
    params = list(params)
    if len(params) != per * count:
        raise TensorRuntimeError(
            f"expected {per * count} parameter tensors ({count} layer(s) and direction(s) of "
            f"{per}), got {len(params)}")
    names = ["weight_ih", "weight_hh"] + (["bias_ih", "bias_hh"] if has_biases else []) + \
        (["weight_hr"] if proj else [])
    return [dict(zip(names, params[k * per:(k + 1) * per], strict=True))
            for k in range(count)]


def _recurrent_op(mode, bound, packed_test):
    """The body of the four layer ops: ``bound`` holds the call's arguments under the padded
    overload's names; ``packed_test(bound)`` says whether they were the packed overload's."""
    if bound["data"] is not None or bound["batch_sizes"] is not None:
        a = {k: bound[k] for k in _PACKED_ORDER[2:]}
        a["data"], a["batch_sizes"] = bound["data"], bound["batch_sizes"]
        if a["data"] is None:
            a["data"] = bound["input"]
        packed = True
    elif packed_test(bound):
        a = dict(zip(_PACKED_ORDER, (bound[k] for k in _PADDED_ORDER), strict=True))
        packed = True
    else:
        a = {k: bound[k] for k in _PADDED_ORDER}
        packed = False
    missing = [k for k, v in a.items() if v is None and k != "batch_first"]
    if missing:
        raise TypeError(f"{mode.lower()}(): missing required argument(s) {missing}")
    lstm = mode == "LSTM"
    hx = tuple(a["hx"]) if lstm else (a["hx"],)
    if lstm and len(hx) != 2:
        raise TensorRuntimeError(f"lstm expects two hidden states (h_0, c_0), got {len(hx)}")
    h0, c0 = hx[0], hx[1] if lstm else None
    count = a["num_layers"] * (2 if a["bidirectional"] else 1)
    proj = lstm and h0.shape[-1] != c0.shape[-1]
    weights = _layer_weights(a["params"], a["has_biases"], count, proj)
    if packed:
        x = a["data"]
        batch_sizes = [int(b) for b in a["batch_sizes"].tolist()]
        rows = x
    else:
        x = a["input"]
        if x.dim() != 3:
            raise TensorRuntimeError(f"{mode.lower()}: expected a 3-D input, got {x.dim()}-D")
        seq = x.transpose(0, 1) if a["batch_first"] else x  # time-major
        steps, batch = seq.shape[0], seq.shape[1]
        batch_sizes = [batch] * steps
        rows = seq.reshape(steps * batch, seq.shape[2])
    w_hh = weights[0]["weight_hh"]
    batch = batch_sizes[0] if batch_sizes else h0.shape[1]
    expected = [("hx", h0, (count, batch, w_hh.shape[1]))]
    if lstm:
        expected.append(("cx", c0, (count, batch, w_hh.shape[0] // 4)))
    for what, h, want in expected:  # checked here, not left to fail inside the arrays
        if tuple(h.shape) != want:
            raise TensorRuntimeError(
                f"{mode.lower()}: expected {what} of size {list(want)} (layers * directions, "
                f"batch, hidden size), got {list(h.shape)}")
    output, h_n, c_n = _run_layers(mode, weights, a["num_layers"], a["bidirectional"],
                                   a["dropout"], a["train"], rows, batch_sizes, h0, c0,
                                   padded=not packed)
    if not packed and a["batch_first"]:
        # PyTorch's LSTM transposes the result; its GRU and RNN transpose it in place.
        output = output.transpose(0, 1) if lstm else output.transpose_(0, 1)
    return (output, h_n, c_n) if lstm else (output, h_n)


def _bind(input, hx, params, has_biases, num_layers, dropout, train, bidirectional,
          batch_first, data, batch_sizes):
    return {"input": input, "hx": hx, "params": params, "has_biases": has_biases,
            "num_layers": num_layers, "dropout": dropout, "train": train,
            "bidirectional": bidirectional, "batch_first": batch_first, "data": data,
            "batch_sizes": batch_sizes}


@nn_op(function=True)
def lstm(input=None, hx=None, params=None, has_biases=None, num_layers=None, dropout=None,
         train=None, bidirectional=None, batch_first=None, *, data=None, batch_sizes=None):
    """``torch.lstm``: a multi-layer LSTM over a padded ``input`` (``lstm(input, (h_0, c_0),
    params, has_biases, num_layers, dropout, train, bidirectional, batch_first)``) or packed
    rows (``lstm(data, batch_sizes, (h_0, c_0), params, ...)``). ``params`` lists, per layer
    and direction, ``w_ih, w_hh[, b_ih, b_hh][, w_hr]`` (projections when ``h_0`` and
    ``c_0`` differ in size). Returns ``(output, h_n, c_n)``; what ``nn.LSTM`` calls."""
    return _recurrent_op("LSTM", _bind(input, hx, params, has_biases, num_layers, dropout,
                                       train, bidirectional, batch_first, data, batch_sizes),
                         lambda b: isinstance(b["hx"], Tensor))


def _hidden_is_third(b):
    return isinstance(b["params"], Tensor)


@nn_op(function=True)
def gru(input=None, hx=None, params=None, has_biases=None, num_layers=None, dropout=None,
        train=None, bidirectional=None, batch_first=None, *, data=None, batch_sizes=None):
    """``torch.gru``: a multi-layer GRU (the arguments of ``lstm`` with one hidden state
    ``h_0``). Returns ``(output, h_n)``; what ``nn.GRU`` calls."""
    return _recurrent_op("GRU", _bind(input, hx, params, has_biases, num_layers, dropout,
                                      train, bidirectional, batch_first, data, batch_sizes),
                         _hidden_is_third)


@nn_op(function=True)
def rnn_tanh(input=None, hx=None, params=None, has_biases=None, num_layers=None,
             dropout=None, train=None, bidirectional=None, batch_first=None, *, data=None,
             batch_sizes=None):
    """``torch.rnn_tanh``: a multi-layer Elman RNN with tanh (arguments as ``gru``).
    Returns ``(output, h_n)``; what ``nn.RNN`` calls."""
    return _recurrent_op("RNN_TANH", _bind(input, hx, params, has_biases, num_layers,
                                           dropout, train, bidirectional, batch_first, data,
                                           batch_sizes), _hidden_is_third)


@nn_op(function=True)
def rnn_relu(input=None, hx=None, params=None, has_biases=None, num_layers=None,
             dropout=None, train=None, bidirectional=None, batch_first=None, *, data=None,
             batch_sizes=None):
    """``torch.rnn_relu``: a multi-layer Elman RNN with relu (arguments as ``gru``).
    Returns ``(output, h_n)``; what ``nn.RNN(nonlinearity='relu')`` calls."""
    return _recurrent_op("RNN_RELU", _bind(input, hx, params, has_biases, num_layers,
                                           dropout, train, bidirectional, batch_first, data,
                                           batch_sizes), _hidden_is_third)


def _cell(mode, input, hx, w_ih, w_hh, b_ih, b_hh):
    # As PyTorch's cell functions, batched input only (the cell modules unsqueeze an unbatched
    # one); a 1-D input fails as PyTorch's does, reading dimension 1.
    if input.dim() != 2:
        cls = TensorIndexError if input.dim() == 1 else TensorRuntimeError
        raise cls(f"{mode.lower()}_cell: expected a 2-D input (batch x input_size), got "
                  f"{input.dim()}-D; unsqueeze(0) an unbatched input")
    hs = tuple(hx) if mode == "LSTM" else (hx,)
    h, c = _rnn_step(mode, _linear(input, w_ih, b_ih), hs[0], hs[1] if len(hs) > 1 else None,
                     w_hh, b_hh, None)
    return (h, c) if mode == "LSTM" else h


@nn_op(function=True)
def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """``torch.lstm_cell``: one LSTM step (gates i, f, g, o); ``hx`` = ``(h, c)``.
    Returns ``(h', c')``; what ``nn.LSTMCell`` calls."""
    return _cell("LSTM", input, hx, w_ih, w_hh, b_ih, b_hh)


@nn_op(function=True)
def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """``torch.gru_cell``: one GRU step (gates r, z, n). Returns ``h'``; what
    ``nn.GRUCell`` calls."""
    return _cell("GRU", input, hx, w_ih, w_hh, b_ih, b_hh)


@nn_op(function=True)
def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """``torch.rnn_tanh_cell``: one Elman step, ``tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)``;
    what ``nn.RNNCell`` calls."""
    return _cell("RNN_TANH", input, hx, w_ih, w_hh, b_ih, b_hh)


@nn_op(function=True)
def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """``torch.rnn_relu_cell``: one Elman step with relu; what ``nn.RNNCell(...,
    nonlinearity='relu')`` calls."""
    return _cell("RNN_RELU", input, hx, w_ih, w_hh, b_ih, b_hh)


_LAYER_OPS = {"LSTM": lstm, "GRU": gru, "RNN_TANH": rnn_tanh, "RNN_RELU": rnn_relu}


class RNNBase(Module):
    """Base class of ``RNN``, ``LSTM`` and ``GRU``: parameters, checks and the shared
    forward. ``mode`` is ``"RNN_TANH"``, ``"RNN_RELU"``, ``"LSTM"`` or ``"GRU"``."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, proj_size=0,
                 device=None, dtype=None):
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        if (not isinstance(dropout, numbers.Number) or isinstance(dropout, bool)
                or not 0 <= dropout <= 1):
            raise TensorValueError(
                "dropout should be a number in range [0, 1] representing the probability of "
                "an element being zeroed")
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        num_directions = 2 if bidirectional else 1
        if dropout > 0 and num_layers == 1:
            warnings.warn(
                "dropout option adds dropout after all but last recurrent layer, so non-zero "
                f"dropout expects num_layers greater than 1, but got dropout={dropout} and "
                f"num_layers={num_layers}", stacklevel=2)
        if not isinstance(bias, bool):
            raise TypeError(f"bias should be of type bool, got: {type_name(bias)}")
        if not isinstance(batch_first, bool):
            raise TypeError(
                f"batch_first should be of type bool, got: {type_name(batch_first)}")
        if not isinstance(input_size, int):
            raise TypeError(
                f"input_size should be of type int, got: {type_name(input_size)}")
        if input_size <= 0:
            raise TensorValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError(
                f"hidden_size should be of type int, got: {type_name(hidden_size)}")
        if hidden_size <= 0:
            raise TensorValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise TensorValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise TensorValueError(
                "proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise TensorValueError("proj_size has to be smaller than hidden_size")
        gate_size = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}.get(mode)
        if gate_size is None:
            raise TensorValueError("Unrecognized RNN mode: " + mode)
        gate_size *= hidden_size

        def new(*shape):
            return Parameter(J.empty(shape, device=device, dtype=dtype))

        self._flat_weights_names = []
        self._all_weights = []
        real_hidden = proj_size if proj_size > 0 else hidden_size
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input = input_size if layer == 0 else real_hidden * num_directions
                suffix = "_reverse" if direction == 1 else ""
                params = [("weight_ih", new(gate_size, layer_input)),
                          ("weight_hh", new(gate_size, real_hidden))]
                if bias:
                    params += [("bias_ih", new(gate_size)), ("bias_hh", new(gate_size))]
                if proj_size > 0:
                    params.append(("weight_hr", new(proj_size, hidden_size)))
                names = []
                for base, param in params:
                    name = f"{base}_l{layer}{suffix}"
                    setattr(self, name, param)
                    names.append(name)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self):
        return [getattr(self, n, None) for n in self._flat_weights_names]

    @property
    def all_weights(self):
        """The parameters, one list per layer and direction."""
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def flatten_parameters(self):
        """A no-op (cuDNN's weight flattening has no counterpart here)."""

    def reset_parameters(self):
        """Re-draw every parameter from ``U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))``."""
        _init_uniform(list(self.parameters()), self.hidden_size)

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    # ------------------------------------------------------------------ checks
    def check_input(self, input, batch_sizes):
        w = self._flat_weights[0]
        if input.dtype != w.dtype:
            raise TensorValueError(
                f"RNN input dtype ({input.dtype}) does not match weight dtype ({w.dtype}). "
                f"Convert input: input.to({w.dtype}), or convert model: model.to({input.dtype})")
        expected = 2 if batch_sizes is not None else 3
        if input.dim() != expected:
            raise TensorRuntimeError(f"input must have {expected} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise TensorRuntimeError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                f"got {input.size(-1)}")

    def get_expected_hidden_size(self, input, batch_sizes):
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * num_directions, mini_batch, size)

    def get_expected_cell_size(self, input, batch_sizes):
        expected = self.get_expected_hidden_size(input, batch_sizes)
        return expected[:2] + (self.hidden_size,)

    @staticmethod
    def check_hidden_size(hx, expected, msg="Expected hidden size {}, got {}"):
        if tuple(hx.size()) != tuple(expected):
            raise TensorRuntimeError(msg.format(tuple(expected), list(hx.size())))

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        if self.mode == "LSTM":
            self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                                   "Expected hidden[0] size {}, got {}")
            self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                                   "Expected hidden[1] size {}, got {}")
        else:
            self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        if isinstance(hx, tuple):
            return tuple(h.index_select(1, permutation) for h in hx)
        return hx.index_select(1, permutation)

    # ------------------------------------------------------------------ forward
    def forward(self, input, hx=None):
        """``input``: ``(T, B, input_size)`` (``(B, T, input_size)`` with ``batch_first``),
        ``(T, input_size)`` unbatched, or a ``PackedSequence``; ``hx``: the initial hidden
        state ``(num_layers * num_directions, B, H)`` (LSTM: a tuple ``(h_0, c_0)``), zeros
        when omitted. Returns ``(output, h_n)`` (LSTM: ``(output, (h_n, c_n))``)."""
        lstm = self.mode == "LSTM"
        name = {"LSTM": "LSTM", "GRU": "GRU"}.get(self.mode, "RNN")
        num_directions = 2 if self.bidirectional else 1
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        packed = isinstance(input, PackedSequence)
        is_batched = True
        if packed:
            x, batch_sizes_t, sorted_indices, unsorted_indices = input
            batch_sizes = [int(b) for b in batch_sizes_t.tolist()]
            max_batch = batch_sizes[0]
        else:
            if not isinstance(input, Tensor):
                raise TypeError(f"{name}: expected a Tensor or PackedSequence as input, got "
                                f"{type_name(input)}")
            batch_sizes = None
            sorted_indices = unsorted_indices = None
            if input.dim() not in (2, 3):
                raise TensorValueError(
                    f"{name}: Expected input to be 2D or 3D, got {input.dim()}D "
                    + ("tensor instead" if name == "RNN" else "instead"))
            is_batched = input.dim() == 3
            batch_dim = 0 if self.batch_first else 1
            x = input
            if not is_batched:
                x = input.unsqueeze(batch_dim)
            max_batch = x.size(0) if self.batch_first else x.size(1)
        if hx is None:
            zeros = J.zeros(self.num_layers * num_directions, max_batch, real_hidden,
                            dtype=x.dtype, device=x.device)
            if lstm:
                hx = (zeros, J.zeros(self.num_layers * num_directions, max_batch,
                                     self.hidden_size, dtype=x.dtype, device=x.device))
            else:
                hx = zeros
        elif not packed:
            hs = hx if lstm else (hx,)
            dims = [h.dim() for h in hs]
            want = 3 if is_batched else 2
            if any(d != want for d in dims):
                kind = "batched 3-D" if is_batched else "unbatched 2-D"
                if lstm:
                    raise TensorRuntimeError(
                        f"For {kind} input, hx and cx should also be {want}-D but got "
                        f"({dims[0]}-D, {dims[1]}-D) tensors")
                raise TensorRuntimeError(
                    f"For {kind} input, hx should also be {want}-D but got {dims[0]}-D tensor")
            if not is_batched:
                hx = tuple(h.unsqueeze(1) for h in hx) if lstm else hx.unsqueeze(1)
        else:
            hx = self.permute_hidden(tuple(hx) if lstm else hx, sorted_indices)
        self.check_forward_args(x, hx, batch_sizes)

        op = _LAYER_OPS[self.mode]
        if packed:
            result = op(x, batch_sizes_t, hx, self._flat_weights, self.bias, self.num_layers,
                        self.dropout, self.training, self.bidirectional)
        else:
            result = op(x, hx, self._flat_weights, self.bias, self.num_layers, self.dropout,
                        self.training, self.bidirectional, self.batch_first)
        output = result[0]
        h_n, c_n = (result[1], result[2]) if lstm else (result[1], None)
        hidden = (h_n, c_n) if lstm else h_n
        if packed:
            return (PackedSequence(output, batch_sizes_t, sorted_indices, unsorted_indices),
                    self.permute_hidden(hidden, unsorted_indices))
        if not is_batched:
            output = output.squeeze(0 if self.batch_first else 1)
            hidden = (h_n.squeeze(1), c_n.squeeze(1)) if lstm else h_n.squeeze(1)
        return output, hidden


def _no_proj_size(kwargs):
    if "proj_size" in kwargs:
        raise TensorValueError(
            "proj_size argument is only supported for LSTM, not RNN or GRU")


class RNN(RNNBase):
    """Elman RNN: ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`` (or ``relu``).

    ``RNN(input_size, hidden_size, num_layers=1, nonlinearity='tanh', bias=True,
    batch_first=False, dropout=0.0, bidirectional=False)``.

    >>> import jtensor as torch
    >>> rnn = torch.nn.RNN(10, 20, 2)
    >>> output, hn = rnn(torch.randn(5, 3, 10), torch.randn(2, 3, 20))
    >>> output.shape, hn.shape
    (torch.Size([5, 3, 20]), torch.Size([2, 3, 20]))
    """

    def __init__(self, *args, **kwargs):
        _no_proj_size(kwargs)
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise TensorValueError(
                f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(mode, *args, **kwargs)


class LSTM(RNNBase):
    """Long short-term memory layer; gates ``i, f, g, o`` in that order in the weights::

        i = sigmoid(W_ii x + b_ii + W_hi h + b_hi)    f = sigmoid(...)
        g = tanh(W_ig x + b_ig + W_hg h + b_hg)       o = sigmoid(...)
        c' = f * c + i * g                            h' = o * tanh(c')

    With ``proj_size > 0``, ``h' = (o * tanh(c')) W_hr^T``. Returns
    ``output, (h_n, c_n)``.

    >>> import jtensor as torch
    >>> lstm = torch.nn.LSTM(10, 20, 2)
    >>> output, (hn, cn) = lstm(torch.randn(5, 3, 10))
    >>> output.shape, hn.shape, cn.shape
    (torch.Size([5, 3, 20]), torch.Size([2, 3, 20]), torch.Size([2, 3, 20]))
    """

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)


class GRU(RNNBase):
    """Gated recurrent unit layer; gates ``r, z, n`` in that order in the weights::

        r = sigmoid(W_ir x + b_ir + W_hr h + b_hr)    z = sigmoid(...)
        n = tanh(W_in x + b_in + r * (W_hn h + b_hn))
        h' = (1 - z) * n + z * h

    >>> import jtensor as torch
    >>> gru = torch.nn.GRU(10, 20, 2)
    >>> output, hn = gru(torch.randn(5, 3, 10))
    >>> output.shape, hn.shape
    (torch.Size([5, 3, 20]), torch.Size([2, 3, 20]))
    """

    def __init__(self, *args, **kwargs):
        _no_proj_size(kwargs)
        super().__init__("GRU", *args, **kwargs)


# ---------------------------------------------------------------------- cells
class RNNCellBase(Module):
    """Base class of the cells: ``weight_ih``, ``weight_hh`` (``num_chunks * hidden_size``
    rows) and optional ``bias_ih``, ``bias_hh``."""

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(J.empty((num_chunks * hidden_size, input_size),
                                           device=device, dtype=dtype))
        self.weight_hh = Parameter(J.empty((num_chunks * hidden_size, hidden_size),
                                           device=device, dtype=dtype))
        if bias:
            self.bias_ih = Parameter(J.empty(num_chunks * hidden_size, device=device,
                                             dtype=dtype))
            self.bias_hh = Parameter(J.empty(num_chunks * hidden_size, device=device,
                                             dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self):
        """Re-draw every parameter from ``U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))``."""
        _init_uniform(list(self.parameters()), self.hidden_size)

    def _prepare(self, name, input, hx):
        """Checks; returns (batched input, list of batched hidden tensors or None, batched)."""
        if input.dim() not in (1, 2):
            raise TensorValueError(
                f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if input.size(1) != self.input_size:
            raise TensorRuntimeError(
                f"input has inconsistent input_size: got {input.size(1)} expected "
                f"{self.input_size}")
        if input.dtype != self.weight_ih.dtype:
            raise TensorRuntimeError(
                f"{name}: input dtype ({input.dtype}) does not match weight dtype "
                f"({self.weight_ih.dtype}); convert the input or the module")
        if hx is None:
            return input, None, is_batched
        hs = list(hx) if isinstance(hx, tuple) else [hx]
        out = []
        for k, h in enumerate(hs):
            if h.dim() not in (1, 2):
                what = f"hx[{k}]" if isinstance(hx, tuple) else "hidden"
                raise TensorValueError(
                    f"{name}: Expected {what} to be 1D or 2D, got {h.dim()}D instead")
            h = h if is_batched else h.unsqueeze(0)
            if h.size(0) != input.size(0):
                raise TensorRuntimeError(
                    f"Input batch size {input.size(0)} doesn't match hidden{k} batch size "
                    f"{h.size(0)}")
            if h.size(1) != self.hidden_size:
                raise TensorRuntimeError(
                    f"hidden{k} has inconsistent hidden_size: got {h.size(1)}, expected "
                    f"{self.hidden_size}")
            out.append(h)
        return input, out, is_batched


class RNNCell(RNNCellBase):
    """One step of an Elman RNN: ``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)`` (or relu).

    >>> import jtensor as torch
    >>> cell = torch.nn.RNNCell(10, 20)
    >>> cell(torch.randn(3, 10)).shape
    torch.Size([3, 20])
    """

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh",
                 device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device,
                         dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        """``input`` ``(B, input_size)`` or ``(input_size,)``; ``hx`` like it with
        ``hidden_size`` (zeros when omitted). Returns the next hidden state."""
        x, hs, is_batched = self._prepare("RNNCell", input, hx)
        h = hs[0] if hs else J.zeros(x.size(0), self.hidden_size, dtype=x.dtype,
                                     device=x.device)
        if self.nonlinearity not in ("tanh", "relu"):
            raise TensorRuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        op = rnn_tanh_cell if self.nonlinearity == "tanh" else rnn_relu_cell
        ret = op(x, h, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return ret if is_batched else ret.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step (gates ``i, f, g, o``); returns ``(h', c')``.

    >>> import jtensor as torch
    >>> cell = torch.nn.LSTMCell(10, 20)
    >>> h, c = cell(torch.randn(3, 10))
    >>> h.shape, c.shape
    (torch.Size([3, 20]), torch.Size([3, 20]))
    """

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device,
                         dtype=dtype)

    def forward(self, input, hx=None):
        """``input`` ``(B, input_size)`` or ``(input_size,)``; ``hx`` = ``(h, c)`` (zeros
        when omitted). Returns ``(h', c')``."""
        if hx is not None and (not isinstance(hx, (tuple, list)) or len(hx) != 2):
            raise TensorRuntimeError("LSTMCell: hx must be a tuple (h_0, c_0) of two tensors")
        x, hs, is_batched = self._prepare("LSTMCell", input,
                                          tuple(hx) if hx is not None else None)
        if hs is None:
            zeros = J.zeros(x.size(0), self.hidden_size, dtype=x.dtype, device=x.device)
            hs = [zeros, zeros]
        h, c = lstm_cell(x, (hs[0], hs[1]), self.weight_ih, self.weight_hh, self.bias_ih,
                         self.bias_hh)
        if not is_batched:
            h, c = h.squeeze(0), c.squeeze(0)
        return h, c


class GRUCell(RNNCellBase):
    """One GRU step (gates ``r, z, n``): ``h' = (1 - z) * n + z * h``.

    >>> import jtensor as torch
    >>> cell = torch.nn.GRUCell(10, 20)
    >>> cell(torch.randn(3, 10)).shape
    torch.Size([3, 20])
    """

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device,
                         dtype=dtype)

    def forward(self, input, hx=None):
        """``input`` ``(B, input_size)`` or ``(input_size,)``; ``hx`` the hidden state (zeros
        when omitted). Returns the next hidden state."""
        x, hs, is_batched = self._prepare("GRUCell", input, hx)
        h = hs[0] if hs else J.zeros(x.size(0), self.hidden_size, dtype=x.dtype,
                                     device=x.device)
        ret = gru_cell(x, h, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return ret if is_batched else ret.squeeze(0)
