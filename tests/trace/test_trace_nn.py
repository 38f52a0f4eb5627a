"""``nn.functional`` ops in a trace (issue 14): each call is one event named after the op,
with its inputs, outputs and autograd node; the ops it uses inside report nothing. A small
CNN training step is recorded with ``jtensor.trace.record()`` and with ``%%tensortrace``."""

import threading

import pytest

import jtensor
import jtensor.nn.functional as F
from jtensor import _dispatch
from jtensor._registry import OPS
from tests.trace.nn_calls_more import MORE_CALLS
from tests.trace.nn_calls_3d import CALLS_3D

CNN_OPS = ["conv2d", "max_pool2d", "relu", "flatten", "linear", "cross_entropy"]


def _cnn():
    """Parameters, an SGD optimizer and a batch for a conv -> pool -> relu -> linear net."""
    jtensor.manual_seed(0)
    conv = jtensor.nn.Conv2d(1, 4, 3, padding=1)
    fc = jtensor.nn.Linear(4 * 4 * 4, 10)
    opt = jtensor.optim.SGD(list(conv.parameters()) + list(fc.parameters()), lr=0.1)
    x = jtensor.randn(2, 1, 8, 8)
    y = jtensor.tensor([1, 7])
    return conv, fc, opt, x, y


def _step(conv, fc, opt, x, y):
    h = F.conv2d(x, conv.weight, conv.bias, padding=1)
    h = F.max_pool2d(h, 2)
    h = F.relu(h)
    h = jtensor.flatten(h, 1)
    logits = F.linear(h, fc.weight, fc.bias)
    loss = F.cross_entropy(logits, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss


def test_cnn_training_step_records_each_op_once_in_order():
    conv, fc, opt, x, y = _cnn()
    with jtensor.trace.record() as t:
        loss = _step(conv, fc, opt, x, y)
    names = [e.name for e in t.ops()]
    # The forward: exactly these six events, in order (nothing from inside the ops).
    assert names[: len(CNN_OPS)] == CNN_OPS
    forward = t.ops()[: len(CNN_OPS)]
    assert [e.grad_fn for e in forward] == [
        "ConvolutionBackward0",
        "MaxPool2DWithIndicesBackward0",
        "ReluBackward0",
        "ViewBackward0",
        "AddmmBackward0",
        "NllLossBackward0",
    ]
    assert {e.op_kind for e in forward} == {"nn", "elementwise", "view"}
    conv_event = forward[0]
    assert [s.ref() for s in conv_event.inputs] == [x, conv.weight, conv.bias]
    assert conv_event.kind == "copy" and conv_event.outputs[0].shape == (2, 4, 8, 8)
    assert conv_event.outputs[0].grad_fn == "ConvolutionBackward0"
    ce = forward[-1]
    assert ce.outputs[0].ref() is loss and ce.inputs[1].ref() is y
    # Then backward and the optimizer step: every node ran, every parameter was updated.
    assert [e.name for e in t.backward_steps()][:2] == ["NllLossBackward0", "LogSoftmaxBackward0"]
    ran = {e.name for e in t.backward_steps()}
    assert {"ConvolutionBackward0", "MaxPool2DWithIndicesBackward0", "AddmmBackward0"} <= ran
    assert len(t.ops(name="add_", kind="in-place")) == 4  # SGD: one update per parameter
    assert all(line for line in (e.line for e in forward))


def test_the_events_do_not_change_the_computation():
    runs = []
    for record in (False, True):
        conv, fc, opt, x, y = _cnn()
        if record:
            with jtensor.trace.record():
                loss = _step(conv, fc, opt, x, y)
        else:
            loss = _step(conv, fc, opt, x, y)
        runs.append((loss.item(), conv.weight.tolist(), fc.bias.tolist()))
    assert runs[0] == runs[1]


def test_tensortrace_magic_shows_the_cnn_ops():
    IPython = pytest.importorskip("IPython")
    from IPython.testing.globalipapp import start_ipython
    from IPython.utils.capture import capture_output

    ip = start_ipython() or IPython.get_ipython()
    ip.display_formatter.formatters["text/html"].enabled = True
    ip.run_line_magic("load_ext", "jtensor")
    try:
        conv, fc, opt, x, y = _cnn()
        ip.user_ns.update(conv=conv, fc=fc, opt=opt, x=x, y=y, F=F, torch=jtensor)
        cell = (
            "%%tensortrace --text\n"
            "h = F.conv2d(x, conv.weight, conv.bias, padding=1)\n"
            "h = F.max_pool2d(h, 2)\n"
            "h = F.relu(h)\n"
            "h = torch.flatten(h, 1)\n"
            "logits = F.linear(h, fc.weight, fc.bias)\n"
            "loss = F.cross_entropy(logits, y)\n"
            "opt.zero_grad()\n"
            "loss.backward()\n"
            "opt.step()\n"
        )
        with capture_output() as captured:
            result = ip.run_cell(cell)
        assert result.success, result.error_in_exec
        text = captured.stdout
        rows = [
            line.split()[1]
            for line in text.splitlines()
            if line.strip() and line.split()[0].isdigit()
        ]
        assert rows[: len(CNN_OPS)] == CNN_OPS, text
        assert "x, conv.weight, conv.bias -> t1 [2, 4, 8, 8]" in text  # h, reassigned
        assert "grad_fn=ConvolutionBackward0" in text
        assert "-> loss [] float32" in text and "grad_fn=NllLossBackward0" in text
        for hidden in ("addmm", "log_softmax", "nll_loss", "unsqueeze", "mm"):
            assert hidden not in rows[: len(CNN_OPS)]
    finally:
        ip.run_line_magic("unload_ext", "jtensor")


# One call of every nn op, with its inputs made beforehand: the recording must hold exactly
# one event, named after the op.
def _x(*shape, grad=False):
    jtensor.manual_seed(sum(shape))
    return jtensor.randn(*shape, requires_grad=grad)


def _rnn_weights(gates, input_size, hidden):
    """w_ih, w_hh, b_ih, b_hh of one layer (w_ih requires grad)."""
    return [
        _x(gates * hidden, input_size, grad=True),
        _x(gates * hidden, hidden),
        _x(gates * hidden),
        _x(gates * hidden),
    ]


def _p(*shape):
    return jtensor.rand(*shape) * 0.8 + 0.1


CALLS = {
    "conv1d": lambda: (F.conv1d, (_x(3, 5), _x(2, 3, 2)), {}),  # unbatched: unsqueeze inside
    "conv2d": lambda: (F.conv2d, (_x(1, 2, 5, 5, grad=True), _x(3, 2, 3, 3)), {"padding": 1}),
    "max_pool1d": lambda: (F.max_pool1d, (_x(2, 3, 8, grad=True), 2), {}),
    "max_pool2d": lambda: (F.max_pool2d, (_x(2, 3, 6, 6, grad=True), 2), {}),
    "max_pool2d_with_indices": lambda: (F.max_pool2d_with_indices, (_x(2, 3, 6, 6), 2), {}),
    "avg_pool1d": lambda: (F.avg_pool1d, (_x(2, 3, 8, grad=True), 2), {}),
    "avg_pool2d": lambda: (F.avg_pool2d, (_x(2, 3, 6, 6, grad=True), 2), {}),
    "adaptive_avg_pool1d": lambda: (F.adaptive_avg_pool1d, (_x(2, 3, 7), 1), {}),
    "adaptive_avg_pool2d": lambda: (F.adaptive_avg_pool2d, (_x(2, 3, 7, 5, grad=True), 2), {}),
    "pad": lambda: (F.pad, (_x(2, 3, 4, grad=True), (1, 1)), {"mode": "reflect"}),
    "hardtanh": lambda: (F.hardtanh, (_x(3, 4, grad=True),), {}),
    "hardtanh_": lambda: (F.hardtanh_, (_x(3, 4),), {}),
    "relu6": lambda: (F.relu6, (_x(3, 4, grad=True),), {}),
    "leaky_relu": lambda: (F.leaky_relu, (_x(3, 4, grad=True),), {}),
    "leaky_relu_": lambda: (F.leaky_relu_, (_x(3, 4),), {}),
    "gelu": lambda: (F.gelu, (_x(3, 4, grad=True),), {}),
    "silu": lambda: (F.silu, (_x(3, 4, grad=True),), {}),
    "elu": lambda: (F.elu, (_x(3, 4, grad=True),), {}),
    "elu_": lambda: (F.elu_, (_x(3, 4),), {}),
    "softplus": lambda: (F.softplus, (_x(3, 4, grad=True),), {}),
    "logsigmoid": lambda: (F.logsigmoid, (_x(3, 4, grad=True),), {}),
    "softmin": lambda: (F.softmin, (_x(3, 4, grad=True), 1), {}),
    "one_hot": lambda: (F.one_hot, (jtensor.tensor([0, 2, 1]), 3), {}),
    "cross_entropy": lambda: (
        F.cross_entropy,
        (_x(3, 4, grad=True), jtensor.tensor([0, 3, 1])),
        {"label_smoothing": 0.1},
    ),
    "nll_loss": lambda: (F.nll_loss, (_x(3, 4, grad=True), jtensor.tensor([0, 3, 1])), {}),
    "binary_cross_entropy": lambda: (F.binary_cross_entropy, (_p(3, 4), _p(3, 4)), {}),
    "binary_cross_entropy_with_logits": lambda: (
        F.binary_cross_entropy_with_logits,
        (_x(3, 4, grad=True), _p(3, 4)),
        {},
    ),
    "mse_loss": lambda: (F.mse_loss, (_x(3, 4, grad=True), _x(3, 4)), {}),
    "l1_loss": lambda: (F.l1_loss, (_x(3, 4, grad=True), _x(3, 4)), {}),
    "smooth_l1_loss": lambda: (F.smooth_l1_loss, (_x(3, 4, grad=True), _x(3, 4)), {}),
    "huber_loss": lambda: (F.huber_loss, (_x(3, 4, grad=True), _x(3, 4)), {}),
    "kl_div": lambda: (F.kl_div, (_x(3, 4, grad=True), _p(3, 4)), {"reduction": "batchmean"}),
    "linear": lambda: (F.linear, (_x(2, 3, 4), _x(5, 4, grad=True), _x(5)), {}),
    "bilinear": lambda: (F.bilinear, (_x(3, 2), _x(3, 4), _x(5, 2, 4, grad=True)), {}),
    "layer_norm": lambda: (F.layer_norm, (_x(3, 4, grad=True), (4,)), {}),
    "batch_norm": lambda: (
        F.batch_norm,
        (_x(4, 3, grad=True), jtensor.zeros(3), jtensor.ones(3)),
        {"training": True},
    ),
    "group_norm": lambda: (F.group_norm, (_x(2, 4, 3, grad=True), 2), {}),
    "rms_norm": lambda: (F.rms_norm, (_x(3, 4, grad=True), (4,)), {}),
    "normalize": lambda: (F.normalize, (_x(3, 4, grad=True),), {}),
    "embedding": lambda: (F.embedding, (jtensor.tensor([[0, 2]]), _x(4, 3, grad=True)), {}),
    "dropout": lambda: (F.dropout, (_x(3, 4, grad=True), 0.5), {}),
    "dropout1d": lambda: (F.dropout1d, (_x(2, 3, 4), 0.5), {}),
    "dropout2d": lambda: (F.dropout2d, (_x(2, 3, 4, 4), 0.5), {}),
    "dropout3d": lambda: (F.dropout3d, (_x(2, 3, 2, 2, 2), 0.5), {}),
    "pixel_shuffle": lambda: (F.pixel_shuffle, (_x(1, 8, 2, 2, grad=True), 2), {}),
    "pixel_unshuffle": lambda: (F.pixel_unshuffle, (_x(1, 2, 4, 4, grad=True), 2), {}),
    "conv_transpose2d": lambda: (
        F.conv_transpose2d,
        (_x(1, 4, 3, 3, grad=True), _x(4, 2, 3, 3)),
        {"stride": 2},
    ),
    "conv_transpose1d": lambda: (F.conv_transpose1d, (_x(1, 4, 3, grad=True), _x(4, 2, 3)), {}),
    "scaled_dot_product_attention": lambda: (
        F.scaled_dot_product_attention,
        (_x(2, 3, 4, grad=True), _x(2, 5, 4), _x(2, 5, 3)),
        {"is_causal": True},
    ),
    # the recurrent ops (jtensor.lstm...: what nn.LSTM/GRU/RNN and their cells call)
    "lstm": lambda: (
        jtensor.lstm,
        (
            _x(4, 2, 3),
            (_x(1, 2, 5), _x(1, 2, 5)),
            _rnn_weights(4, 3, 5),
            True,
            1,
            0.0,
            True,
            False,
            False,
        ),
        {},
    ),
    "gru": lambda: (
        jtensor.gru,
        (
            _x(6, 3),
            jtensor.tensor([3, 2, 1]),
            _x(1, 3, 5),
            _rnn_weights(3, 3, 5),
            True,
            1,
            0.0,
            True,
            False,
        ),
        {},
    ),
    "rnn_tanh": lambda: (
        jtensor.rnn_tanh,
        (_x(2, 4, 3), _x(1, 2, 5), _rnn_weights(1, 3, 5), True, 1, 0.0, True, False, True),
        {},
    ),
    "rnn_relu": lambda: (
        jtensor.rnn_relu,
        (_x(4, 2, 3), _x(1, 2, 5), _rnn_weights(1, 3, 5), True, 1, 0.0, True, False, False),
        {},
    ),
    "lstm_cell": lambda: (
        jtensor.lstm_cell,
        (_x(2, 3), (_x(2, 5), _x(2, 5)), *_rnn_weights(4, 3, 5)),
        {},
    ),
    "gru_cell": lambda: (jtensor.gru_cell, (_x(2, 3), _x(2, 5), *_rnn_weights(3, 3, 5)), {}),
    "rnn_tanh_cell": lambda: (
        jtensor.rnn_tanh_cell,
        (_x(2, 3), _x(2, 5), *_rnn_weights(1, 3, 5)),
        {},
    ),
    "rnn_relu_cell": lambda: (
        jtensor.rnn_relu_cell,
        (_x(2, 3), _x(2, 5), *_rnn_weights(1, 3, 5)),
        {},
    ),
    "pack_padded_sequence": lambda: (
        jtensor.nn.utils.rnn.pack_padded_sequence,
        (_x(4, 3, 2, grad=True), [2, 4, 1]),
        {"enforce_sorted": False},
    ),
}
CALLS.update(MORE_CALLS)  # issue 15's added ops (tests/trace/nn_calls_more.py)
CALLS.update(CALLS_3D)  # the 3-d layers and last gaps (tests/trace/nn_calls_3d.py)


def test_every_nn_op_has_a_call_here():
    nn_ops = sorted(name for name, op in OPS.items() if op.kind == "nn")
    assert sorted(CALLS) == nn_ops


@pytest.mark.parametrize("name", sorted(CALLS))
def test_one_event_per_nn_call(name):
    fn, args, kwargs = CALLS[name]()
    with jtensor.trace.record() as t:
        out = fn(*args, **kwargs)
    events = t.events
    assert [e.name for e in events if e.op_kind is not None] == [name]
    (event,) = [e for e in events if e.op_kind is not None]
    assert event.op_kind == "nn"
    outs = out if isinstance(out, tuple) else (out,)
    assert [s.ref() for s in event.outputs[: len(outs)]] == list(outs)
    got = outs[0].grad_fn
    assert event.grad_fn == (None if got is None else got.name())
    assert event.outputs[0].grad_fn == event.grad_fn
    tensors = [a for a in list(args) + list(kwargs.values()) if isinstance(a, jtensor.Tensor)]
    assert [s.ref() for s in event.inputs] == tensors


@pytest.mark.parametrize(
    "call",
    [
        lambda x: F.elu_(x),
        lambda x: F.leaky_relu(x, inplace=True),
        lambda x: F.hardtanh(x, inplace=True),
        lambda x: F.silu(x, inplace=True),
        lambda x: F.dropout(x, 0.5, inplace=True),
    ],
)
def test_inplace_nn_ops_write_once(call):
    x = jtensor.randn(3, 4)
    with jtensor.trace.record() as t:
        out = call(x)
    assert out is x and x._version == 1
    (event,) = t.ops()
    assert event.kind == "in-place" and event.modified.ref() is x
    assert (event.modified.version_before, event.modified.version) == (0, 1)


def test_out_and_max_norm_are_reported_as_written():
    x, out = jtensor.randn(3, 4), jtensor.empty(3, 4)
    w, i = jtensor.randn(4, 3) * 5, jtensor.tensor([0, 1])
    with jtensor.trace.record() as t:
        F.normalize(x, out=out)
        F.embedding(i, w, max_norm=1.0)
        F.embedding(i, w, max_norm=2.0)  # nothing left to renormalize
    first, second, third = t.ops()
    assert first.kind == "in-place" and first.modified.ref() is out and out._version == 1
    assert second.kind == "in-place" and second.modified.ref() is w
    assert third.kind == "copy" and third.modified is None and w._version == 1


def test_nested_nn_ops_report_only_the_outer_call():
    x = jtensor.randn(2, 3, 8, requires_grad=True)
    target = jtensor.zeros(2, 8, dtype=jtensor.int64)
    with jtensor.trace.record() as t:
        F.max_pool1d(x, 2)  # max_pool2d inside
        F.relu6(x)  # hardtanh inside
        F.cross_entropy(x, target)  # nll_loss inside
    assert [e.name for e in t.ops()] == ["max_pool1d", "relu6", "cross_entropy"]


def test_a_failing_nn_call_restores_the_hook():
    x = jtensor.randn(1, 2, 5, 5)
    with jtensor.trace.record() as t:
        with pytest.raises(RuntimeError):
            F.conv2d(x, jtensor.randn(3, 4, 3, 3))
        assert _dispatch.trace_hook is not None
        x.sum()
    assert [e.name for e in t.ops()] == ["randn", "sum"]


def test_other_threads_keep_the_hook():
    """Only the recording thread detaches the hook: ops of other threads are still counted
    (and the recording thread's events are all kept)."""
    x = jtensor.randn(1, 2, 6, 6)
    w = jtensor.randn(3, 2, 3, 3)
    done = threading.Event()
    errors = []

    def other():
        try:
            for _ in range(20):
                F.conv2d(x, w)
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            done.set()

    with jtensor.trace.record() as t:
        thread = threading.Thread(target=other)
        thread.start()
        for _ in range(20):
            F.max_pool2d(x, 2)
        done.wait(30)
        thread.join()
    assert not errors
    assert [e.name for e in t.ops()] == ["max_pool2d"] * 20
    assert t.other_threads >= 20
    assert _dispatch.trace_hook is None


def test_other_threads_are_counted_while_a_body_runs_untraced():
    """While the recording thread runs a functional's body (its ops out of the trace), the
    ops of another thread still reach the recorder and are counted: the hook is swapped for
    one that hears other threads only, not removed. (The other thread runs exactly inside
    that window here; the test above only overlaps the two at random.)"""
    x = jtensor.randn(4, 4)
    started, finished = threading.Event(), threading.Event()

    def other():
        started.wait(30)
        for _ in range(10):
            x.exp()
        finished.set()

    thread = threading.Thread(target=other)
    with jtensor.trace.record() as t:
        thread.start()

        def body():
            x.sin()  # (the recording thread's own op: not recorded)
            started.set()
            assert finished.wait(30)
            return x.cos()

        _dispatch.untraced(body)
        thread.join()
        x.sum()
    assert [e.name for e in t.ops()] == ["sum"]
    assert t.other_threads == 10
    assert _dispatch.trace_hook is None


def test_a_plain_hook_still_sees_every_op(monkeypatch):
    """A hook that is not a recorder (no ``_thread``) is never detached."""
    seen = []
    monkeypatch.setattr(_dispatch, "trace_hook", lambda op, *rest: seen.append(op.name))
    F.conv1d(jtensor.randn(3, 5), jtensor.randn(2, 3, 2))
    monkeypatch.setattr(_dispatch, "trace_hook", None)
    assert seen[-1] == "conv1d" and "unsqueeze" in seen
