"""Specs of advanced indexing: ``x[key]`` and ``x[key] = value`` with tensors, lists, masks and
bools (results are copies laid out as TensorIterator lays them out)."""

import numpy as np

from tests.harness.conformance import Case, OpSpec, T, arr
from .spec_views import SPECS as _VIEW_SPECS


def x34(lib):
    return T(lib, arr(3, 4))


def x234(lib):
    return T(lib, arr(2, 3, 4))


def case(run, make=x34, name=""):
    return Case(run, make=make, name=name)


def ix(lib, values, dtype=None):
    out = lib.tensor(values)
    return out if dtype is None else out.to(getattr(lib, dtype))


def scalar(lib, value):
    # A 0-d tensor built by selection (independent of how tensor(5) is built).
    return lib.tensor([value])[0]


MASK = np.array([[True, False, True], [False, True, False]])

ADVANCED_GETITEM_CASES = [
    case(lambda lib, x: x[[0, 2]], name="list"),
    case(lambda lib, x: x[:, [0, 2]], name="list-dim1"),
    case(lambda lib, x: x[[0, 1], [1, 2]], name="two-lists"),
    case(lambda lib, x: x.t()[[0, 2]], name="transposed"),
    case(lambda lib, x: x.t()[:, [1, 0]], name="transposed-dim1"),
    case(lambda lib, x: x[::2, [0, 3]], name="strided"),
    case(lambda lib, x: x[ix(lib, [[0, 1], [2, 0]])], name="2d-index"),
    case(lambda lib, x: x[:, ix(lib, [[0, 1], [2, 0]]).t()], name="transposed-index"),
    case(lambda lib, x: x[ix(lib, [0, 1, 2]).expand(2, 3)], name="expanded-index"),
    case(lambda lib, x: x[ix(lib, [1, 2], "int32")], name="int32"),
    case(lambda lib, x: x[ix(lib, [1, 2], "int16")], name="int16-error"),
    case(lambda lib, x: x[ix(lib, [0.0, 1.0])], name="float-index-error"),
    case(lambda lib, x: x[[0.0, 1.0]], name="float-list-truncates"),
    case(lambda lib, x: x[[-1, -3]], name="negative"),
    case(lambda lib, x: x[[0, 5]], name="out-of-bounds"),
    case(lambda lib, x: x[:, [0, 5]], name="out-of-bounds-dim1"),
    case(lambda lib, x: x[[-4]], name="out-of-bounds-negative"),
    case(lambda lib, x: x[[0, 1], [1, 2, 3]], name="broadcast-error"),
    case(lambda lib, x: x[[0, 1], [0, 1], [0]], name="too-many"),
    case(lambda lib, x: x[ix(lib, [True, False, True])], name="mask"),
    case(lambda lib, x: x[ix(lib, [True, False, True, True])], name="mask-shape-error"),
    case(lambda lib, x: x[ix(lib, x.cpu().numpy() > 0) if lib.__name__ == "jtensor"
                          else ix(lib, x.cpu().numpy() > 0)], name="2d-mask"),
    case(lambda lib, x: x[ix(lib, np.zeros((3, 4), bool))], name="mask-empty-result"),
    case(lambda lib, x: x[[True, False, True]], name="bool-list"),
    case(lambda lib, x: x[ix(lib, [1, 0, 1], "uint8")], name="uint8-mask"),
    case(lambda lib, x: x[True], name="true"),
    case(lambda lib, x: x[False], name="false"),
    case(lambda lib, x: x[None, [0, 1]], name="none-first"),
    case(lambda lib, x: x[[0, 1], None], name="none-after"),
    case(lambda lib, x: x[1, [1, 2]], name="int-and-list"),
    case(lambda lib, x: x[..., [1, 2]], name="ellipsis"),
    case(lambda lib, x: x[[], :], name="empty-list"),
    case(lambda lib, x: x[:0][[0]], name="size-0-dim"),
    case(lambda lib, x: x[:, :0][[0]], name="empty-result"),
    case(lambda lib, x: x[scalar(lib, 1)], name="0d-int-tensor-is-a-view"),
    case(lambda lib, x: x[scalar(lib, True)], name="0d-bool-tensor"),
    case(lambda lib, x: x[[[0, 1], [1, 2]]], name="list-of-lists-is-a-tuple"),
    case(lambda lib, x: x[[0, slice(None)]], name="list-with-slice-is-a-view"),
    case(lambda lib, x: x[1.5], name="float-key"),
    case(lambda lib, x: x[[0, 2]].add_(1), name="copy-not-view"),
    case(lambda lib, x: x.to(lib.int32)[[2, 0]], name="int-dtype"),
    case(lambda lib, x: x[[0, 1], :, [1, 2]], make=x234, name="separated-to-front"),
    case(lambda lib, x: x[:, [[0], [1]], [1, 2]], make=x234, name="adjacent-broadcast"),
    case(lambda lib, x: x[[0, 1], None, [0, 1]], make=x234, name="separated-by-none"),
    case(lambda lib, x: x[0, :, [0, 1]], make=x234, name="int-then-list"),
    case(lambda lib, x: x[[1, 0], ..., [0, 1]], make=x234, name="separated-by-ellipsis"),
    case(lambda lib, x: x.permute(2, 0, 1)[:, [1, 0]], make=x234, name="permuted"),
    case(lambda lib, x: x.transpose(0, 2)[[1, 0], :, [0, 1]], make=x234,
         name="permuted-separated"),
    case(lambda lib, x: x[:, :, ::2][[0], [1], [1]], make=x234, name="all-dims"),
    case(lambda lib, x: x[ix(lib, MASK)], make=x234, name="mask-2d"),
    case(lambda lib, x: x[ix(lib, MASK), 1], make=x234, name="mask-2d-then-int"),
    case(lambda lib, x: x[None, ix(lib, MASK)], make=x234, name="none-mask"),
    case(lambda lib, x: x.transpose(0, 2)[ix(lib, MASK)], make=x234, name="mask-mismatch"),
    case(lambda lib, x: x[:, [True, False, True], [1, 2]], make=x234, name="mask-and-list"),
    case(lambda lib: lib.zeros(2, 0, 3)[:, :, [0, 1]], make=None, name="zero-size-other-dim"),
    case(lambda lib: scalar(lib, 5.0)[None, True], make=None, name="0d-true"),
    case(lambda lib: scalar(lib, 5.0)[[0]], make=None, name="0d-too-many"),
]

next(s for s in _VIEW_SPECS if s.name == "__getitem__").cases.extend(ADVANCED_GETITEM_CASES)


def setter(key, value):
    """A case body: ``x[key(lib, x)] = value(lib, x)``, returning ``x`` and its version."""

    def run(lib, x):
        x[key(lib, x)] = value(lib, x)
        return x, x._version

    return run


def S(key, value, make=x34, name=""):
    return Case(setter(key, value), make=make, name=name)


SETITEM_CASES = [
        S(lambda lib, x: [0, 2], lambda lib, x: 2.5, name="list-scalar"),
        S(lambda lib, x: [0, 2], lambda lib, x: ix(lib, [1.0, 2, 3, 4]), name="broadcast-row"),
        S(lambda lib, x: [0, 2], lambda lib, x: lib.ones(1, 1, 2, 4), name="leading-ones"),
        S(lambda lib, x: [0, 2], lambda lib, x: lib.ones(2, 2, 4), name="shape-error"),
        S(lambda lib, x: [0, 2], lambda lib, x: ix(lib, [1, 2, 3, 4]), name="dtype-error"),
        S(lambda lib, x: [0, 2], lambda lib, x: 1 + 2j, name="complex-overflow"),
        S(lambda lib, x: [0, 5], lambda lib, x: 1.0, name="out-of-bounds-untouched"),
        S(lambda lib, x: ([0, 1], [1, 2]), lambda lib, x: ix(lib, [7.0, 8.0]), name="pairs"),
        S(lambda lib, x: (slice(None), [1, 3]), lambda lib, x: ix(lib, [[1.0], [2.0], [3.0]]),
          name="column-broadcast"),
        S(lambda lib, x: ([0, 2], None, [1, 3]), lambda lib, x: ix(lib, [9.0, 8.0]),
          name="separated"),
        S(lambda lib, x: ix(lib, x.cpu().numpy() > 0), lambda lib, x: -1.0, name="mask-fill"),
        S(lambda lib, x: ix(lib, x.cpu().numpy() > 0), lambda lib, x: scalar(lib, 5),
          name="mask-fill-0d-other-dtype"),
        S(lambda lib, x: ix(lib, [True, False, True]), lambda lib, x: ix(lib, [1.0, 2, 3, 4]),
          name="mask-rows"),
        S(lambda lib, x: ix(lib, [True, False, True]),
          lambda lib, x: ix(lib, [[1.0, 2, 3, 4]] * 2), name="mask-values"),
        S(lambda lib, x: ix(lib, [True, False, True]), lambda lib, x: lib.ones(3, 4),
          name="mask-values-mismatch"),
        S(lambda lib, x: ix(lib, [1, 0, 1], "uint8"), lambda lib, x: scalar(lib, 5),
          name="uint8-mask-fill-error"),
        S(lambda lib, x: [0, 1], lambda lib, x: x[1], name="overlap-error"),
        S(lambda lib, x: False, lambda lib, x: 5.0, name="false-noop"),
        S(lambda lib, x: True, lambda lib, x: 5.0, name="true"),
        S(lambda lib, x: ix(lib, [0.0, 1.0]), lambda lib, x: 5.0, name="float-index-error"),
        S(lambda lib, x: [0, 1], lambda lib, x: "a", name="bad-value-type"),
        S(lambda lib, x: scalar(lib, 1), lambda lib, x: 7, name="0d-index-copies"),
        S(lambda lib, x: [0, slice(None)], lambda lib, x: ix(lib, [9]), name="tuple-list-basic"),
        S(lambda lib, x: [0, 2], lambda lib, x: 2.7,
          make=lambda lib: T(lib, arr(3, 4, dtype="int32")), name="int-truncates"),
        S(lambda lib, x: [0], lambda lib, x: 300, make=lambda lib: T(lib, arr(4, dtype="int8")),
          name="int8-overflow"),
        S(lambda lib, x: [0], lambda lib, x: float("nan"),
          make=lambda lib: T(lib, arr(4, dtype="int64")), name="nan-into-int"),
        S(lambda lib, x: [1, 0], lambda lib, x: ix(lib, [[1.0, 2, 3], [4, 5, 6]]).t(),
          make=lambda lib: T(lib, arr(2, 3)).t(), name="transposed-target"),
        S(lambda lib, x: ([0, 0], [1, 1]), lambda lib, x: ix(lib, [3.0, 3.0]),
          name="duplicates-same-value"),
        S(lambda lib, x: (slice(None), [True, False, True], [1, 2]),
          lambda lib, x: ix(lib, [0.5, 0.25]), make=x234, name="3d-mask-and-list"),
]


def _existing_setitem_spec():
    # The basic-key __setitem__ cases may already live in another spec module (spec_copies);
    # one op has one spec, so the advanced cases join it when it exists.
    try:
        from .spec_copies import SPECS as _COPY_SPECS
    except ImportError:
        return None
    return next((s for s in _COPY_SPECS if s.name == "__setitem__"), None)


_existing = _existing_setitem_spec()
if _existing is not None:
    if not any(c is SETITEM_CASES[0] for c in _existing.cases):
        _existing.cases.extend(SETITEM_CASES)
    SPECS = []
else:
    SPECS = [OpSpec("__setitem__", SETITEM_CASES)]
