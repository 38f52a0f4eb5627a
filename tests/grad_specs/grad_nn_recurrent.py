"""Gradient specs of the recurrent ops (``lstm``, ``gru``, ``rnn_tanh``, ``rnn_relu`` in both
overloads, their ``*_cell`` functions) and ``pack_padded_sequence``: float64 gradcheck of
every input (input, initial state, weights), layout variants, and the same gradients and
``grad_fn`` names as PyTorch, and second derivatives: under ``create_graph`` the layers'
fused Function (one per layer and direction) replays its steps as recorded ops, and the
cells are composed of differentiable ops."""

from tests.harness.gradients import G
from tests.specs.spec_nn_recurrent import GATES, layer_call, weight_shapes


def layer(op, steps, batch, input_size, hidden, layers=1, dirs=1, bias=True, proj=0,
          batch_first=False, packed=None):
    """G over ``lib.<op>(x, hx, params, ...)``; ``packed``: the packed overload's
    ``batch_sizes`` (``x`` is then ``sum(batch_sizes) x input_size`` rows)."""
    shapes = weight_shapes(op, input_size, hidden, layers, dirs, bias, proj)
    if packed:
        batch = packed[0]
        x_shape = (sum(packed), input_size)
    else:
        x_shape = (batch, steps, input_size) if batch_first else (steps, batch, input_size)
    state = [(layers * dirs, batch, proj or hidden)]
    if op == "lstm":
        state.append((layers * dirs, batch, hidden))

    fn = layer_call(op, len(state), packed, bias, layers, dirs, batch_first, True)
    return G(op, fn, [x_shape] + state + shapes, low=-1, high=1)


def cell(op, batch, input_size, hidden, bias=True):
    gates = GATES[op.removesuffix("_cell")] * hidden
    count = 2 if op == "lstm_cell" else 1
    shapes = [(batch, input_size)] + [(batch, hidden)] * count + \
        [(gates, input_size), (gates, hidden)] + ([(gates,), (gates,)] if bias else [])

    def fn(lib, x, *rest):
        hx = tuple(rest[:count]) if count == 2 else rest[0]
        return getattr(lib, op)(x, hx, *rest[count:])

    return G(op, fn, shapes, low=-1, high=1)


def _pack(lib, x, lengths, **kwargs):
    return lib.nn.utils.rnn.pack_padded_sequence(x, lengths, **kwargs).data


GRADS = []
for _op in GATES:
    GRADS += [
        layer(_op, 3, 2, 2, 3),
        layer(_op, 3, 2, 2, 2, layers=2, dirs=2, batch_first=True),
        layer(_op, 0, 0, 2, 3, packed=[2, 2, 1]),
        layer(_op, 0, 0, 2, 2, dirs=2, bias=False, packed=[3, 1]),
    ]
    GRADS += [cell(f"{_op}_cell", 2, 3, 2), cell(f"{_op}_cell", 3, 2, 2, bias=False)]
GRADS += [
    layer("lstm", 3, 2, 2, 3, proj=2),
    layer("lstm", 0, 0, 2, 3, proj=2, dirs=2, packed=[2, 1, 1]),
    G("pack_padded_sequence", lambda lib, x: _pack(lib, x, [3, 2, 1]), [(3, 3, 2)]),
    G("pack_padded_sequence",
      lambda lib, x: _pack(lib, x, [1, 3], batch_first=True, enforce_sorted=False), [(2, 3)]),
]
