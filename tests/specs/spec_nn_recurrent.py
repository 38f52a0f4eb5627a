"""Specs of the recurrent ops: ``torch.lstm``/``gru``/``rnn_tanh``/``rnn_relu`` (both
overloads: padded input, packed rows with ``batch_sizes``), the cells ``lstm_cell``,
``gru_cell``, ``rnn_tanh_cell``, ``rnn_relu_cell``, and ``nn.utils.rnn.pack_padded_sequence``.
Both libraries get the same fixed weights; values, layouts, ``requires_grad`` and errors are
compared with PyTorch."""

from tests.harness.conformance import Case, OpSpec, T, arr

TOL = {"atol": 1e-5, "rtol": 1e-5}
GATES = {"lstm": 4, "gru": 3, "rnn_tanh": 1, "rnn_relu": 1}


def R(lib, *shape, seed=0, grad=False):
    return T(lib, arr(*shape, seed=seed, low=-1, high=1), requires_grad=grad)


def weight_shapes(op, input_size, hidden, layers=1, dirs=1, bias=True, proj=0):
    """PyTorch's flat weight list, per layer and direction: w_ih, w_hh[, b_ih, b_hh][, w_hr]."""
    gates = GATES[op] * hidden
    out = proj or hidden
    shapes = []
    for layer in range(layers):
        width = input_size if layer == 0 else out * dirs
        for _ in range(dirs):
            shapes += [(gates, width), (gates, out)]
            if bias:
                shapes += [(gates,), (gates,)]
            if proj:
                shapes.append((proj, hidden))
    return shapes


def layer_call(op, count, packed, bias, layers, dirs, batch_first, train):
    """``run(lib, x, *state_then_weights)``: a call of ``lib.<op>`` in the packed overload
    (``packed`` = its ``batch_sizes``) or the padded one; ``count`` initial-state tensors."""

    def run(lib, x, *rest):
        hs, ws = rest[:count], list(rest[count:])
        hx = tuple(hs) if op == "lstm" else hs[0]
        fn = getattr(lib, op)
        if packed:
            return fn(x, lib.tensor(packed), hx, ws, bias, layers, 0.0, train, dirs == 2)
        return fn(x, hx, ws, bias, layers, 0.0, train, dirs == 2, batch_first)

    return run


def layer_case(op, x_shape, input_size, hidden, layers=1, dirs=1, bias=True, proj=0,
               batch_first=False, packed=None, name="", grad=False):
    """A call of ``lib.<op>`` with seeded inputs, initial state and weights.

    ``packed``: the ``batch_sizes`` of the packed overload (``x_shape`` is then the rows)."""
    shapes = weight_shapes(op, input_size, hidden, layers, dirs, bias, proj)
    batch = packed[0] if packed else x_shape[0 if batch_first else 1]
    state = [(layers * dirs, batch, proj or hidden)]
    if op == "lstm":
        state.append((layers * dirs, batch, hidden))

    def make(lib):
        x = R(lib, *x_shape, grad=grad)
        hs = tuple(R(lib, *s, seed=1 + i) for i, s in enumerate(state))
        ws = tuple(R(lib, *s, seed=10 + i, grad=grad) for i, s in enumerate(shapes))
        return (x,) + hs + ws

    run = layer_call(op, len(state), packed, bias, layers, dirs, batch_first, False)
    return Case(run, make, name=name, **TOL)


def layer_cases(op):
    cases = [
        layer_case(op, (4, 2, 3), 3, 5, name="padded"),
        layer_case(op, (2, 4, 3), 3, 4, layers=2, dirs=2, batch_first=True, grad=True,
                   name="two-layers-bidirectional-batch-first"),
        layer_case(op, (6, 3), 3, 4, packed=[3, 2, 1], name="packed"),
        layer_case(op, (6, 3), 3, 4, layers=2, dirs=2, bias=False, packed=[3, 2, 1],
                   grad=True, name="packed-bidirectional-no-bias"),
    ]
    if op == "lstm":
        cases.append(layer_case(op, (4, 2, 3), 3, 5, proj=2, grad=True, name="projections"))
        cases.append(layer_case(op, (6, 3), 3, 5, proj=2, dirs=2, packed=[3, 2, 1],
                                name="packed-projections"))
    return cases


def cell_case(op, batch, input_size, hidden, bias=True, name="", grad=False):
    gates = GATES[op.removesuffix("_cell")] * hidden
    lead = (batch,) if batch else ()

    def make(lib):
        x = R(lib, *lead, input_size, grad=grad)
        hs = tuple(R(lib, *lead, hidden, seed=1 + i) for i in range(2 if op == "lstm_cell"
                                                                    else 1))
        ws = [R(lib, gates, input_size, seed=10, grad=grad), R(lib, gates, hidden, seed=11)]
        if bias:
            ws += [R(lib, gates, seed=12), R(lib, gates, seed=13, grad=grad)]
        return (x,) + hs + tuple(ws)

    def run(lib, x, *rest):
        count = 2 if op == "lstm_cell" else 1
        hx = tuple(rest[:count]) if op == "lstm_cell" else rest[0]
        return getattr(lib, op)(x, hx, *rest[count:])

    return Case(run, make, name=name, **TOL)


def cell_cases(op):
    return [
        cell_case(op, 3, 4, 5, name="batched"),
        cell_case(op, 2, 3, 4, grad=True, name="grad"),
        cell_case(op, 2, 3, 4, bias=False, name="no-bias"),
        cell_case(op, 0, 3, 4, name="unbatched-refused"),
    ]


def pack(lib, x, lengths, **kwargs):
    return lib.nn.utils.rnn.pack_padded_sequence(x, lengths, **kwargs)


SPECS = [OpSpec(op, layer_cases(op)) for op in GATES] + \
    [OpSpec(f"{op}_cell", cell_cases(f"{op}_cell")) for op in GATES] + [
    OpSpec("pack_padded_sequence", [
        Case(lambda lib, x: pack(lib, x, [4, 2, 1]), lambda lib: R(lib, 4, 3, 2, grad=True)),
        Case(lambda lib, x: pack(lib, x, lib.tensor([2, 4, 1]), batch_first=True,
                                 enforce_sorted=False),
             lambda lib: R(lib, 3, 4, 2), name="batch-first-unsorted"),
        Case(lambda lib, x: pack(lib, x, [1, 3]), lambda lib: R(lib, 3, 2),
             name="lengths-not-sorted"),
        Case(lambda lib, x: pack(lib, x, [3, 2, 1]), lambda lib: R(lib, 3, 2),
             name="too-many-lengths"),
    ]),
]
