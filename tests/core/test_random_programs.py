"""Random programs run side by side in jtensor and in PyTorch (the oracle), step by step.

A Hypothesis state machine keeps a few live tensors (float64 leaves, mostly, and what was
made from them) and applies random steps to them: views (``view``/``reshape``/``t``/
``transpose``/``permute``/``narrow``/``select``/slicing with steps/``expand``/``unsqueeze``/
``squeeze``/``as_strided`` near its storage's bounds/``diagonal``/``unfold``/``split``/
``unbind``), in-place writes (``add_``/``mul_``/``copy_``/``fill_``/``zero_``/``x[i] = v``/
``masked_fill_``/``clamp_``), basic and advanced indexing, ``detach``/``detach_``,
``torch.no_grad()`` blocks, ``requires_grad_``, ``retain_grad`` and ``backward``. Each step runs
on both libraries; then every live pair is compared: values, shape, stride, storage offset,
contiguity, storage sharing (the ``untyped_storage().data_ptr()`` equality pattern),
``_version``, ``requires_grad``, ``is_leaf``, ``retains_grad``, ``grad_fn`` name and
``.grad``. A step that raises must raise the same builtin exception type on both sides
(messages may differ) and leave every live tensor as PyTorch leaves it.

The normal suite runs a bounded, derandomized number of programs (reproducible in CI). A long
run on demand::

    JTENSOR_LONG_FUZZ=1 .venv/bin/python -m pytest -p no:cacheprovider -n 0 \\
        tests/core/test_random_programs.py

(``JTENSOR_LONG_FUZZ=N`` with N > 1 runs N programs; ``1`` means 3000; the long run draws
fresh programs, so it is not derandomized.) A failure prints the program so far as
PyTorch-like code.

Known difference, skipped where it would show (the log says so): whether an op on a view is
recorded follows the base's ``requires_grad`` when the view was made. A view made before its
base started (or stopped) requiring grad reports PyTorch's ``requires_grad`` (read through
the base), but jtensor does not record ops on it as PyTorch does.

Known PyTorch bug, skipped where it would show (the log says so): ``t.fill_(v)`` or
``t[None] = v`` with an integer ``t`` and a 0-d ``v`` that requires grad records FillBackward3
on the integer tensor (which then requires grad, and backward fails an internal assert).

A step where PyTorch fails one of its internal asserts (a PyTorch bug) drops every live
tensor: there is nothing to compare against.

Known difference by design (the program drops the tensors concerned, the log says so): a
PyTorch kernel that raises part way may already have written (``x[[0, 1]] = 0`` on a
one-element ``x`` writes ``x[0]``, then raises IndexError); jtensor checks first and leaves
its inputs untouched.

Open finding of the long run (skipped where it would show, the log says so):
``v = x[()]; v.requires_grad_(); v[()] = 1.5`` with ``x`` not requiring grad is refused by
PyTorch ("a view of a leaf Variable that requires grad") and allowed by jtensor.
"""

import os
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

import jtensor

pytestmark = pytest.mark.devices  # device-independent: also runs with --device cuda

torch = pytest.importorskip("torch")

LIBS = {"j": jtensor, "t": torch}
MAX_LIVE = 8  # live tensors kept; the oldest is dropped past this
BUILTINS = (IndexError, TypeError, ValueError, NotImplementedError, RuntimeError)


def _kind(exc):
    """The builtin exception type PyTorch's users catch (LinAlgError is a RuntimeError...)."""
    for base in BUILTINS:
        if isinstance(exc, base):
            return base.__name__
    return f"leaked {type(exc).__module__}.{type(exc).__name__}"


def _numpy(t):
    return t.detach().cpu().numpy() if t.device.type != "cpu" else t.detach().numpy()


def _grad_fn_name(t):
    try:
        fn = t.grad_fn
    except RuntimeError:  # a view whose history cannot be rebuilt (made under no_grad...)
        return "raises RuntimeError"
    return None if fn is None else fn.name()


def _records(t):
    """Whether PyTorch records an op taking ``t`` (grad mode on)."""
    try:
        t.grad_fn  # noqa: B018 - a view whose history cannot be rebuilt raises on use
    except RuntimeError:
        return True
    return t.requires_grad


def _read(read, t):
    """A property's value, or the exception it raises (``is_leaf`` of a view whose history
    cannot be rebuilt raises, in PyTorch too)."""
    try:
        return read(t)
    except RuntimeError as exc:
        return f"raises {_kind(exc)}"


PROPERTIES = [
    ("shape", lambda t: tuple(t.shape)),
    ("dtype", lambda t: str(t.dtype)),
    ("stride", lambda t: t.stride()),
    ("storage_offset", lambda t: t.storage_offset()),
    ("is_contiguous", lambda t: t.is_contiguous()),
    ("_version", lambda t: t._version),
    ("requires_grad", lambda t: t.requires_grad),
    ("is_leaf", lambda t: t.is_leaf),
    ("retains_grad", lambda t: t.retains_grad),
    ("grad_fn", _grad_fn_name),
    ("storage nbytes", lambda t: t.untyped_storage().nbytes()),
]


VIEW_OPS = (
    "view",
    "reshape",
    "t",
    "transpose",
    "permute",
    "narrow",
    "select",
    "expand",
    "unsqueeze",
    "squeeze",
    "squeeze_dim",
    "as_strided",
    "diagonal",
    "unfold",
    "split",
    "unbind",
    "detach",
    "flatten",
    "movedim",
    "view_as_self",
)
INPLACE_OPS = (
    "add_",
    "mul_",
    "copy_",
    "fill_",
    "zero_",
    "masked_fill_",
    "clamp_",
    "add_scalar",
    "mul_scalar",
    "fill_tensor",
)


def _op_and_mode(data, ops, odds):
    """One of ``ops``, and whether it runs under no_grad (one time in ``odds + 1``)."""
    op = data.draw(st.sampled_from(ops), label="op")
    return op, data.draw(st.integers(0, odds), label="no_grad") == 0


class Pair:
    """One tensor of the program: its jtensor and its torch value, and a name for the log."""

    __slots__ = ("j", "t", "name")

    def __init__(self, j, t, name):
        self.j, self.t, self.name = j, t, name


class Programs(RuleBasedStateMachine):
    """The program under construction, mirrored in both libraries."""

    def __init__(self):
        super().__init__()
        self.live = []
        self.log = []
        self.counter = 0

    # ------------------------------------------------------------------ helpers
    def fail(self, what):
        raise AssertionError(what + "\nprogram:\n    " + "\n    ".join(self.log))

    def add(self, j, t, code):
        name = f"t{self.counter}"
        self.counter += 1
        self.log.append(f"{name} = {code}")
        self.live.append(Pair(j, t, name))
        if len(self.live) > MAX_LIVE:
            self.live.pop(0)

    def pick(self, data, label="x"):
        return self.live[data.draw(st.integers(0, len(self.live) - 1), label=label)]

    def step(self, code, fn, *pairs, keep=True, no_grad=False, flags=False):
        """Run ``fn(lib, *tensors)`` on both sides; compare the outcome; keep a tensor result."""
        if no_grad:
            code = f"with torch.no_grad(): {code}"
        elif not flags and any(_records(p.t) != p.j._requires_grad for p in pairs):
            # KNOWN DIFFERENCE: jtensor decides whether to record a view made before its
            # base required grad (or before it stopped) from the base's flag at the view's
            # creation (see the docstring).
            self.log.append(f"# skipped (known difference): {code}")
            return
        before = [p.t.detach().clone() for p in pairs]
        results = {}
        for key, lib in LIBS.items():
            args = [getattr(p, key) for p in pairs]
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    if no_grad:
                        with lib.no_grad():
                            results[key] = ("ok", fn(lib, *args))
                    else:
                        results[key] = ("ok", fn(lib, *args))
            except Exception as exc:  # noqa: BLE001 - the type is what is compared
                results[key] = ("raised", _kind(exc), exc)
        (jk, *jrest), (tk, *trest) = results["j"], results["t"]
        if tk == "raised" and trest[0] == "IndexError" and self._deferred_on_cuda(pairs, jk, jrest):
            # DEVICE DIFFERENCE (issue 20): on CUDA an index out of range is a device-side
            # assert, reported at a later synchronisation, and the context is broken; the
            # oracle, PyTorch on the CPU, raises IndexError at once. The emulated context is
            # repaired and the tensors involved are dropped (a kernel may have written).
            self.log.append(f"# skipped (CUDA reports it as a device-side assert): {code}")
            ptrs = {p.t.untyped_storage().data_ptr() for p in pairs}
            self.live = [q for q in self.live if q.t.untyped_storage().data_ptr() not in ptrs]
            return
        if tk == "raised" and "INTERNAL ASSERT FAILED" in str(trest[1]):
            # A PyTorch bug (``retain_grad(); detach_()`` then an in-place op trips one):
            # nothing to compare against; the program's tensors are dropped.
            self.log.append(f"{code}  # PyTorch internal assert: tensors dropped")
            self.live.clear()
            return
        if jk != tk or (jk == "raised" and jrest[0] != trest[0]):
            jdesc = jrest[0] if jk == "raised" else "no error"
            tdesc = trest[0] if tk == "raised" else "no error"
            extra = f" ({jrest[1]!r})" if jk == "raised" else ""
            self.log.append(code)
            self.fail(
                f"step `{code}`: jtensor {jdesc}{extra}, torch {tdesc}"
                + (f" ({trest[1]!r})" if tk == "raised" else "")
            )
        if jk == "raised":
            self.log.append(f"{code}  # raises {jrest[0]}")
            self._drop_partly_written(pairs, before)
            return
        jv, tv = jrest[0], trest[0]
        if keep and isinstance(tv, torch.Tensor):
            if not isinstance(jv, jtensor.Tensor):
                self.fail(f"step `{code}`: jtensor returned {type(jv).__name__}")
            self.add(jv, tv, code)
        else:
            self.log.append(code)

    def _integer_fill_bug(self, x, y, no_grad, code):
        """PyTorch's fill_ with a 0-d value that requires grad (``t.fill_(v)``, ``t[None] = v``)
        records FillBackward3 even on an integer tensor, which then requires grad and makes
        backward fail an internal assert: a PyTorch bug jtensor does not copy (skipped)."""
        if no_grad or x.t.is_floating_point() or x.t.is_complex():
            return False
        if not (y.t.requires_grad and y.t.dim() == 0):
            return False
        self.log.append(f"# skipped (PyTorch bug, integer fill from a grad value): {code}")
        return True

    def _leaf_view_of_plain_base(self, x, code):
        """KNOWN DIFFERENCE (the open finding in the docstring): an in-place write into a
        view given requires_grad_() itself over a base that needs no grad, or into a view of
        such a view: PyTorch refuses some of these ("a view of a leaf Variable"), jtensor
        does not track the intermediate leaf. Skipped, and logged."""
        j = x.j
        base = j._base
        if base is None or base._requires_grad or not j._requires_grad:
            return False
        self.log.append(f"# skipped (known difference): {code}")
        return True

    @staticmethod
    def _deferred_on_cuda(pairs, jk, jrest):
        """Whether jtensor, on a CUDA device, reported the step's error as a device-side
        assert (at once, or at the next synchronisation): then the emulated context is
        repaired. False when nothing failed on the device (a missing error is a bug)."""
        if not any(p.j.device.type == "cuda" for p in pairs):
            return False
        if jk == "raised" and not isinstance(jrest[1], jtensor.AcceleratorError):
            return False
        if jk != "raised":
            try:
                jtensor.cuda.synchronize()
                return False
            except jtensor.AcceleratorError:
                pass
        jtensor.cuda._reset_broken_context()
        return True

    def _drop_partly_written(self, pairs, before):
        """KNOWN DIFFERENCE, by design: a PyTorch kernel that raises part way may already
        have written (``x[[0, 1]] = 0`` on one element writes x[0], then raises IndexError);
        jtensor checks first and leaves its inputs untouched. Tensors over such a storage
        are dropped from the program rather than compared."""
        for p, old in zip(pairs, before, strict=True):
            now = p.t.detach()
            if torch.equal(now, old) or (
                now.is_floating_point() and torch.allclose(now, old, rtol=0, atol=0, equal_nan=True)
            ):
                continue
            ptr = p.t.untyped_storage().data_ptr()
            self.log.append(f"# dropped (torch wrote part of {p.name} before raising)")
            self.live = [q for q in self.live if q.t.untyped_storage().data_ptr() != ptr]

    # ------------------------------------------------------------------ comparison
    @invariant()
    def same_state(self):
        for p in self.live:
            self.compare(p)
        # Which live tensors share storage (skip empty storages: their data_ptr is 0).
        ptrs = []
        for p in self.live:
            ts = p.t.untyped_storage()
            js = p.j.untyped_storage()
            ptrs.append(None if ts.nbytes() == 0 else (js.data_ptr(), ts.data_ptr()))
        for a in range(len(ptrs)):
            for b in range(a + 1, len(ptrs)):
                if ptrs[a] is None or ptrs[b] is None:
                    continue
                js = ptrs[a][0] == ptrs[b][0]
                ts = ptrs[a][1] == ptrs[b][1]
                if js != ts:
                    self.fail(
                        f"{self.live[a].name} and {self.live[b].name} share storage: "
                        f"jtensor {js}, torch {ts}"
                    )

    def compare(self, p):
        j, t = p.j, p.t
        for what, read in PROPERTIES:
            mine, theirs = _read(read, j), _read(read, t)
            if mine != theirs:
                self.fail(f"{p.name}.{what}: jtensor {mine!r}, torch {theirs!r}")
        self.same_values(f"{p.name}", _numpy(j), _numpy(t))
        if _read(lambda t: t.is_leaf or t.retains_grad, t) is True:
            jg, tg = j.grad, t.grad
            if (jg is None) != (tg is None):
                self.fail(f"{p.name}.grad: jtensor {jg!r}, torch {tg!r}")
            if tg is not None:
                if tuple(jg.shape) != tuple(tg.shape) or jg.stride() != tg.stride():
                    self.fail(
                        f"{p.name}.grad layout: jtensor {tuple(jg.shape)} {jg.stride()}, "
                        f"torch {tuple(tg.shape)} {tg.stride()}"
                    )
                self.same_values(f"{p.name}.grad", _numpy(jg), _numpy(tg))

    def same_values(self, what, mine, theirs):
        # Agree to float32's ulp: float32 values (ops on int64 tensors, e.g. (t / 8).exp())
        # may be one ulp apart, and a float64 result computed from them carries that on.
        rtol = 1e-6
        if mine.shape != theirs.shape or not np.allclose(
            mine, theirs, rtol=rtol, atol=0, equal_nan=True
        ):
            self.fail(f"{what} values:\njtensor {mine!r}\ntorch   {theirs!r}")

    # ------------------------------------------------------------------ tensors
    @rule(data=st.data())
    def new_tensor(self, data):
        shape = tuple(data.draw(st.lists(st.integers(0, 4), max_size=3), label="shape"))
        kind = data.draw(st.sampled_from(["leaf", "leaf", "plain", "nonleaf", "int"]), label="kind")
        n = int(np.prod(shape))
        values = ((np.arange(n) * 7 + self.counter) % 11 - 5).reshape(shape)
        if kind == "int":
            code = f"torch.tensor({values.tolist()})"
            self.step(code, lambda L: L.tensor(values.tolist()))
            return
        rg = kind in ("leaf", "nonleaf")
        code = f"torch.tensor({values.tolist()}, dtype=torch.float64, requires_grad={rg})"

        def make(L):
            t = L.tensor(values.tolist(), dtype=L.float64, requires_grad=rg)
            return t * 1 if kind == "nonleaf" else t  # a non-leaf: in-place writes allowed

        self.step(code + (" * 1" if kind == "nonleaf" else ""), make)

    # ------------------------------------------------------------------ views
    def _dim(self, data, t, extra=1):
        nd = max(t.dim(), 1)
        return data.draw(st.integers(-nd - extra, nd - 1 + extra), label="dim")

    def _shape_for(self, data, numel):
        """A shape with ``numel`` elements (with a -1 sometimes), or a wrong one."""
        if data.draw(st.integers(0, 9), label="wrong shape") == 0:
            return tuple(data.draw(st.lists(st.integers(-1, 4), max_size=3), label="shape"))
        dims, rest = [], numel
        for _ in range(data.draw(st.integers(0, 3), label="ndim")):
            divisors = [d for d in range(1, 7) if rest % d == 0] if rest else [0, 1, 2]
            d = data.draw(st.sampled_from(divisors), label="size")
            dims.append(d)
            rest = rest // d if d else rest
        if rest != 1 or not dims:
            dims.append(rest)
        if data.draw(st.booleans(), label="-1") and numel:
            dims[data.draw(st.integers(0, len(dims) - 1), label="at")] = -1
        return tuple(data.draw(st.permutations(dims), label="order"))

    @precondition(lambda self: self.live)
    @rule(data=st.data())
    def view_op(self, data):
        x = self.pick(data)
        t = x.t
        nd = t.dim()
        op, no_grad = _op_and_mode(data, VIEW_OPS, 5)
        if op in ("view", "reshape"):
            shape = self._shape_for(data, t.numel())
            code, fn = f"{x.name}.{op}({shape})", lambda L, a: getattr(a, op)(shape)
        elif op == "t":
            code, fn = f"{x.name}.t()", lambda L, a: a.t()
        elif op == "transpose":
            d0, d1 = self._dim(data, t), self._dim(data, t)
            code, fn = f"{x.name}.transpose({d0}, {d1})", lambda L, a: a.transpose(d0, d1)
        elif op == "permute":
            perm = list(data.draw(st.permutations(range(nd)), label="perm"))
            if perm and data.draw(st.integers(0, 5), label="negate") == 0:
                perm[0] -= nd
            if data.draw(st.integers(0, 9), label="bad") == 0:
                perm.append(0)
            code, fn = f"{x.name}.permute({perm})", lambda L, a: a.permute(perm)
        elif op == "narrow":
            d = self._dim(data, t)
            size = t.shape[d] if -nd <= d < nd else 2
            start = data.draw(st.integers(-size - 1, size + 1), label="start")
            length = data.draw(st.integers(-1, size + 1), label="length")
            code = f"{x.name}.narrow({d}, {start}, {length})"
            fn = lambda L, a: a.narrow(d, start, length)  # noqa: E731
        elif op == "select":
            d = self._dim(data, t)
            size = t.shape[d] if -nd <= d < nd else 2
            i = data.draw(st.integers(-size - 1, size), label="index")
            code, fn = f"{x.name}.select({d}, {i})", lambda L, a: a.select(d, i)
        elif op == "expand":
            sizes = [
                s if s != 1 else data.draw(st.sampled_from([1, 2, 3, -1]), label="to")
                for s in t.shape
            ]
            if data.draw(st.booleans(), label="lead"):
                sizes = [data.draw(st.integers(0, 3), label="lead size")] + sizes
            if sizes and data.draw(st.integers(0, 3), label="minus") == 0:
                sizes[-1] = -1
            code, fn = f"{x.name}.expand({sizes})", lambda L, a: a.expand(sizes)
        elif op == "unsqueeze":
            d = data.draw(st.integers(-nd - 2, nd + 1), label="dim")
            code, fn = f"{x.name}.unsqueeze({d})", lambda L, a: a.unsqueeze(d)
        elif op == "squeeze":
            code, fn = f"{x.name}.squeeze()", lambda L, a: a.squeeze()
        elif op == "squeeze_dim":
            d = self._dim(data, t)
            code, fn = f"{x.name}.squeeze({d})", lambda L, a: a.squeeze(d)
        elif op == "as_strided":
            n = t.untyped_storage().nbytes() // t.element_size()
            k = data.draw(st.integers(0, 3), label="ndim")
            size = [data.draw(st.integers(0, 3), label="size") for _ in range(k)]
            stride = [data.draw(st.integers(0, 3), label="stride") for _ in range(k)]
            extent = sum((s - 1) * st_ for s, st_ in zip(size, stride, strict=True) if s > 0)
            room = max(n - 1 - extent, 0)
            offset = data.draw(st.integers(0, room + 1), label="offset")
            code = f"{x.name}.as_strided({size}, {stride}, {offset})"
            fn = lambda L, a: a.as_strided(size, stride, offset)  # noqa: E731
        elif op == "diagonal":
            off = data.draw(st.integers(-3, 3), label="offset")
            d0, d1 = self._dim(data, t), self._dim(data, t)
            code = f"{x.name}.diagonal({off}, {d0}, {d1})"
            fn = lambda L, a: a.diagonal(off, d0, d1)  # noqa: E731
        elif op == "unfold":
            d = self._dim(data, t)
            size = data.draw(st.integers(0, 4), label="size")
            step = data.draw(st.integers(0, 3), label="step")
            code = f"{x.name}.unfold({d}, {size}, {step})"
            fn = lambda L, a: a.unfold(d, size, step)  # noqa: E731
        elif op == "split":
            d = self._dim(data, t)
            size = data.draw(st.integers(1, 3), label="size")
            which = data.draw(st.integers(0, 3), label="which")
            code = f"{x.name}.split({size}, {d})[{which}]"
            fn = lambda L, a: a.split(size, d)[which]  # noqa: E731
        elif op == "unbind":
            d = self._dim(data, t)
            which = data.draw(st.integers(0, 3), label="which")
            code = f"{x.name}.unbind({d})[{which}]"
            fn = lambda L, a: a.unbind(d)[which]  # noqa: E731
        elif op == "detach":
            code, fn = f"{x.name}.detach()", lambda L, a: a.detach()
        elif op == "flatten":
            d0, d1 = self._dim(data, t), self._dim(data, t)
            code, fn = f"{x.name}.flatten({d0}, {d1})", lambda L, a: a.flatten(d0, d1)
        elif op == "movedim":
            d0, d1 = self._dim(data, t), self._dim(data, t)
            code, fn = f"{x.name}.movedim({d0}, {d1})", lambda L, a: a.movedim(d0, d1)
        else:
            code, fn = f"{x.name}.view_as({x.name})", lambda L, a: a.view_as(a)
        self.step(code, fn, x, no_grad=no_grad)

    # ------------------------------------------------------------------ indexing
    def _key(self, data, t):
        """A basic or advanced key for ``t``, built per library."""
        parts = []  # (code, builder(L))
        dims = list(t.shape)
        used_ellipsis = False
        for _ in range(data.draw(st.integers(0, max(len(dims), 1)), label="parts")):
            size = dims.pop(0) if dims else 2
            kind = data.draw(
                st.sampled_from(
                    ["int", "slice", "slice", "none", "ellipsis", "list", "long", "mask"]
                ),
                label="part",
            )
            if kind == "int":
                i = data.draw(st.integers(-size - 1, size), label="i")
                parts.append((str(i), lambda L, i=i: i))
            elif kind == "slice":
                start = data.draw(st.none() | st.integers(-size - 1, size + 1), label="start")
                stop = data.draw(st.none() | st.integers(-size - 1, size + 1), label="stop")
                step = data.draw(st.none() | st.integers(1, 3) | st.just(-1), label="step")
                s = slice(start, stop, step)
                code = f"{'' if start is None else start}:{'' if stop is None else stop}" + (
                    "" if step is None else f":{step}"
                )
                parts.append((code, lambda L, s=s: s))
            elif kind == "none":
                dims.insert(0, size)
                parts.append(("None", lambda L: None))
            elif kind == "ellipsis" and not used_ellipsis:
                used_ellipsis = True
                dims.insert(0, size)
                parts.append(("...", lambda L: Ellipsis))
            elif kind == "list":
                idx = data.draw(
                    st.lists(st.integers(-size - 1, size), min_size=1, max_size=3), label="list"
                )
                parts.append((str(idx), lambda L, idx=idx: idx))
            elif kind == "long":
                idx = data.draw(
                    st.lists(st.integers(-size, size - 1) if size else st.just(0), max_size=3),
                    label="long",
                )
                parts.append(
                    (
                        f"torch.tensor({idx}, dtype=torch.long)",
                        lambda L, idx=idx: L.tensor(idx, dtype=L.long),
                    )
                )
            else:
                rest = [size] + dims[: data.draw(st.integers(0, len(dims)), label="mask dims")]
                del dims[: len(rest) - 1]
                n = int(np.prod(rest))
                bits = data.draw(st.lists(st.booleans(), min_size=n, max_size=n), label="mask")
                mask = np.array(bits, dtype=bool).reshape(rest)
                parts.append(
                    (
                        f"mask{list(mask.shape)}",
                        lambda L, m=mask: L.tensor(m.tolist(), dtype=L.bool),
                    )
                )
        if len(parts) == 1 and data.draw(st.booleans(), label="bare"):
            code, build = parts[0]
            return code, build
        code = ", ".join(c for c, _ in parts) if parts else "()"
        return code, lambda L: tuple(b(L) for _, b in parts)

    @precondition(lambda self: self.live)
    @rule(data=st.data())
    def index_read(self, data):
        x = self.pick(data)
        code, key = self._key(data, x.t)
        no_grad = data.draw(st.integers(0, 5), label="no_grad") == 0
        self.step(f"{x.name}[{code}]", lambda L, a: a[key(L)], x, no_grad=no_grad)

    @precondition(lambda self: self.live)
    @rule(data=st.data())
    def index_write(self, data):
        x = self.pick(data)
        code, key = self._key(data, x.t)
        no_grad = data.draw(st.integers(0, 4), label="no_grad") == 0
        if not no_grad and self._leaf_view_of_plain_base(x, f"{x.name}[{code}] = ..."):
            return
        if data.draw(st.booleans(), label="scalar value"):
            v = data.draw(st.sampled_from([0.0, 1.5, -2.0]), label="value")

            def write(L, a):
                a[key(L)] = v

            self.step(f"{x.name}[{code}] = {v}", write, x, keep=False, no_grad=no_grad)
        else:
            y = self.pick(data, "value")
            if y.j._creation_meta is not None and y.j.requires_grad and not no_grad:
                # KNOWN DIFFERENCE (open): a value that is a no_grad view given
                # requires_grad_() itself; jtensor refuses reading its history, PyTorch
                # writes it.
                self.log.append(f"# skipped (known difference): {x.name}[{code}] = {y.name}")
                return

            if (
                y.j.device.type == "cuda"
                and y.j.dim() == 0
                and y.j.untyped_storage().data_ptr() == x.j.untyped_storage().data_ptr()
            ):
                # DEVICE DIFFERENCE: PyTorch fills from a 0-d CPU value but copies a 0-d CUDA
                # value through its expanded view, which then overlaps the target
                # (``t[None] = t`` raises on CUDA only); the oracle here is PyTorch's CPU.
                self.log.append(f"# skipped (CUDA differs): {x.name}[{code}] = {y.name}")
                return

            if self._integer_fill_bug(x, y, no_grad, f"{x.name}[{code}] = {y.name}"):
                return

            def write(L, a, b):
                a[key(L)] = b

            self.step(f"{x.name}[{code}] = {y.name}", write, x, y, keep=False, no_grad=no_grad)

    # ------------------------------------------------------------------ in-place writes
    @precondition(lambda self: self.live)
    @rule(data=st.data())
    def inplace(self, data):
        x = self.pick(data)
        op, no_grad = _op_and_mode(data, INPLACE_OPS, 4)
        if not no_grad and self._leaf_view_of_plain_base(x, f"{x.name}.{op}(...)"):
            return
        if op in ("add_", "mul_", "copy_"):
            y = self.pick(data, "other")
            if op == "add_" and data.draw(st.booleans(), label="alpha"):
                self.step(
                    f"{x.name}.add_({y.name}, alpha=2)",
                    lambda L, a, b: a.add_(b, alpha=2),
                    x,
                    y,
                    keep=False,
                    no_grad=no_grad,
                )
                return
            self.step(
                f"{x.name}.{op}({y.name})",
                lambda L, a, b: getattr(a, op)(b),
                x,
                y,
                keep=False,
                no_grad=no_grad,
            )
        elif op in ("add_scalar", "mul_scalar"):
            v = data.draw(st.sampled_from([2, -1, 0.5, 3.0]), label="value")
            name = op[:3] + "_"
            self.step(
                f"{x.name}.{name}({v})",
                lambda L, a: getattr(a, name)(v),
                x,
                keep=False,
                no_grad=no_grad,
            )
        elif op == "fill_":
            v = data.draw(st.sampled_from([0, 1.5, -3.0]), label="value")
            self.step(
                f"{x.name}.fill_({v})", lambda L, a: a.fill_(v), x, keep=False, no_grad=no_grad
            )
        elif op == "fill_tensor":
            y = self.pick(data, "value")
            if self._integer_fill_bug(x, y, no_grad, f"{x.name}.fill_({y.name})"):
                return
            self.step(
                f"{x.name}.fill_({y.name})",
                lambda L, a, b: a.fill_(b),
                x,
                y,
                keep=False,
                no_grad=no_grad,
            )
        elif op == "zero_":
            self.step(f"{x.name}.zero_()", lambda L, a: a.zero_(), x, keep=False, no_grad=no_grad)
        elif op == "masked_fill_":
            shape = list(x.t.shape)
            if shape and data.draw(st.booleans(), label="broadcast"):
                shape = shape[data.draw(st.integers(0, len(shape)), label="drop") :]
            n = int(np.prod(shape))
            bits = data.draw(st.lists(st.booleans(), min_size=n, max_size=n), label="mask")
            mask = np.array(bits, dtype=bool).reshape(shape)
            v = data.draw(st.sampled_from([0.0, 9.0, -1.5]), label="value")
            self.step(
                f"{x.name}.masked_fill_(mask{shape}, {v})",
                lambda L, a: a.masked_fill_(L.tensor(mask.tolist(), dtype=L.bool), v),
                x,
                keep=False,
                no_grad=no_grad,
            )
        else:
            lo = data.draw(st.none() | st.sampled_from([-2, 0.5]), label="min")
            hi = data.draw(st.none() | st.sampled_from([1, 3.0]), label="max")
            self.step(
                f"{x.name}.clamp_({lo}, {hi})",
                lambda L, a: a.clamp_(lo, hi),
                x,
                keep=False,
                no_grad=no_grad,
            )

    # ------------------------------------------------------------------ arithmetic
    @precondition(lambda self: self.live)
    @rule(data=st.data())
    def compute(self, data):
        x = self.pick(data)
        op = data.draw(
            st.sampled_from(["mul", "add", "clone", "contiguous", "sum_dim", "exp"]), label="op"
        )
        if op in ("mul", "add"):
            y = self.pick(data, "other")
            sym = "*" if op == "mul" else "+"
            self.step(
                f"{x.name} {sym} {y.name}", lambda L, a, b: a * b if op == "mul" else a + b, x, y
            )
        elif op == "sum_dim":
            d = self._dim(data, x.t)
            self.step(f"{x.name}.sum({d})", lambda L, a: a.sum(d), x)
        elif op == "exp":
            self.step(f"({x.name} / 8).exp()", lambda L, a: (a / 8).exp(), x)
        else:
            self.step(f"{x.name}.{op}()", lambda L, a: getattr(a, op)(), x)

    # ------------------------------------------------------------------ autograd
    @precondition(lambda self: self.live)
    @rule(data=st.data())
    def autograd_flags(self, data):
        x = self.pick(data)
        op = data.draw(
            st.sampled_from(["requires_grad_", "requires_grad_false", "retain_grad", "detach_"]),
            label="op",
        )
        if op == "requires_grad_":
            self.step(
                f"{x.name}.requires_grad_()",
                lambda L, a: a.requires_grad_(),
                x,
                keep=False,
                flags=True,
            )
        elif op == "requires_grad_false":
            self.step(
                f"{x.name}.requires_grad_(False)",
                lambda L, a: a.requires_grad_(False),
                x,
                keep=False,
                flags=True,
            )
        elif op == "retain_grad":
            self.step(
                f"{x.name}.retain_grad()", lambda L, a: a.retain_grad(), x, keep=False, flags=True
            )
        else:
            self.step(f"{x.name}.detach_()", lambda L, a: a.detach_(), x, keep=False, flags=True)

    @precondition(lambda self: self.live)
    @rule(data=st.data())
    def backward(self, data):
        x = self.pick(data)
        retain = data.draw(st.booleans(), label="retain_graph")
        how = data.draw(st.sampled_from(["weighted", "sum", "gradient"]), label="how")
        n = x.t.numel()
        w = ((np.arange(n) % 3) + 1.0).reshape(tuple(x.t.shape))

        def weights(L):
            return L.tensor(w.tolist(), dtype=L.float64)

        if how == "weighted":
            code = f"({x.name} * w).sum().backward(retain_graph={retain})"
            fn = lambda L, a: (a * weights(L)).sum().backward(retain_graph=retain)  # noqa: E731
        elif how == "sum":
            code = f"{x.name}.sum().backward(retain_graph={retain})"
            fn = lambda L, a: a.sum().backward(retain_graph=retain)  # noqa: E731
        else:
            code = f"{x.name}.backward(w, retain_graph={retain})"
            fn = lambda L, a: a.backward(weights(L), retain_graph=retain)  # noqa: E731
        self.step(code, fn, x, keep=False)

    @precondition(lambda self: len(self.live) > 4)
    @rule(data=st.data())
    def forget(self, data):
        x = self.pick(data)
        self.live.remove(x)
        self.log.append(f"del {x.name}")


def _settings():
    long = os.environ.get("JTENSOR_LONG_FUZZ", "")
    common = dict(
        deadline=None,
        stateful_step_count=25,
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.filter_too_much,
        ],
    )
    if long and long != "0":
        n = int(long) if long.isdigit() and int(long) > 1 else 3000
        return settings(max_examples=n, derandomize=False, **common)
    # 100 derandomized programs (reproducible; JTENSOR_FUZZ_EXAMPLES=N runs N of them).
    examples = int(os.environ.get("JTENSOR_FUZZ_EXAMPLES", "100"))
    # No example database: the same programs on every machine (a saved failure from a
    # long run would otherwise be replayed here).
    return settings(max_examples=examples, derandomize=True, database=None, **common)


Programs.TestCase.settings = _settings()
TestRandomPrograms = Programs.TestCase
