"""Forward-mode AD (``torch.autograd.forward_ad``) against PyTorch: the level API and its
errors, tangents of views and in-place ops, and the tangents of op outputs."""

import numpy as np
import pytest

import jtensor
import jtensor.autograd.forward_ad as fwAD

torch = pytest.importorskip("torch")
tfwAD = torch.autograd.forward_ad

pytestmark = pytest.mark.devices


def _np(t):
    return None if t is None else t.detach().cpu().numpy().copy()


def _pair(shape, seed=0, low=-2.0, high=2.0):
    rng = np.random.default_rng(seed)
    return rng.uniform(low, high, size=shape), rng.uniform(-1, 1, size=shape)


def _outcome(lib, fn):
    """What a call under a dual level does: ``("ok", value)`` or ``("raise", type)``."""
    try:
        return "ok", fn(lib)
    except Exception as e:  # noqa: BLE001 (the exception type is what is compared)
        return "raise", type(e).__mro__[1] if type(e).__module__.startswith("jtensor") else type(e)


# ----------------------------------------------------------------------------- the level API


def _level_errors(lib):
    ad = lib.autograd.forward_ad
    x = lib.ones(3)
    seen = []

    def attempt(f):
        try:
            f()
            seen.append("ok")
        except Exception as e:  # noqa: BLE001
            seen.append((type(e).__name__, str(e).split(".")[0]))

    attempt(lambda: ad.make_dual(x, lib.ones(3)))
    attempt(lambda: ad.exit_dual_level())
    seen.append(ad.unpack_dual(x).tangent is None)
    with ad.dual_level() as level:
        seen.append(level)
        attempt(lambda: ad.enter_dual_level())
        attempt(lambda: ad.make_dual(x, lib.ones(4)))
        attempt(lambda: ad.make_dual(x.long(), lib.ones(3).long()))
        attempt(lambda: ad.make_dual(x, lib.ones(3).long()))
        attempt(lambda: ad.make_dual(x, lib.ones(3), level=3))
        d = ad.make_dual(x, lib.ones(3))
        attempt(lambda: ad.make_dual(d, lib.ones(3)))
        attempt(lambda: ad.unpack_dual(d, level=2))
        attempt(lambda: ad.exit_dual_level(level=1))
    seen.append(ad.unpack_dual(d).tangent is None)
    return seen


def test_level_api_and_its_errors_match_pytorch():
    assert _level_errors(jtensor) == _level_errors(torch)


def test_dual_and_primal_are_views_and_the_tangent_is_kept_or_laid_out():
    def observe(lib):
        ad = lib.autograd.forward_ad
        x = lib.arange(12.0).reshape(3, 4)
        out = []
        with ad.dual_level():
            v = lib.ones(3, 4)
            d = ad.make_dual(x, v)
            p, t = ad.unpack_dual(d)
            out += [d is x, d._base is x, p is x, p._base is x, t is v]
            t2 = ad.unpack_dual(ad.make_dual(x, lib.ones(4, 3).t())).tangent
            out += [t2.stride(), t2.is_contiguous()]
            t3 = ad.unpack_dual(ad.make_dual(x, lib.ones(4).expand(3, 4))).tangent
            out += [t3.stride()]
            x64 = ad.make_dual(x, lib.ones(3, 4, dtype=lib.float64))
            out += [
                str(ad.unpack_dual(x64).tangent.dtype),
                str((x64 * 2).dtype),
                str(ad.unpack_dual(x64 * 2).tangent.dtype),
                str(ad.unpack_dual(lib.atan2(x64, x)).tangent.dtype),
                str(ad.unpack_dual(x64.prod()).tangent.dtype),
                str(ad.unpack_dual(x64.half()).tangent.dtype),
            ]
            out += [ad.unpack_dual(p).tangent is None, ad.unpack_dual(x).tangent is None]
            out += [
                ad.unpack_dual(d.detach()).tangent is None,
                ad.unpack_dual(d.data).tangent is None,
            ]
        return out

    assert observe(jtensor) == observe(torch)


def test_dual_level_is_a_decorator():
    @fwAD.dual_level()
    def f(x):
        return fwAD.unpack_dual(fwAD.make_dual(x, jtensor.ones(2)) * 3).tangent

    assert f(jtensor.zeros(2)).tolist() == [3.0, 3.0]
    assert fwAD._current_level == -1


# ----------------------------------------------------------------------------- views, in place


def _inplace_story(lib):
    ad = lib.autograd.forward_ad
    x = lib.tensor([1.0, 2.0, 3.0])
    v = lib.tensor([0.5, -1.0, 2.0])
    out = []
    with ad.dual_level():
        d = ad.make_dual(x.clone(), v.clone())
        t = ad.unpack_dual(d).tangent
        d.mul_(2)
        out.append(ad.unpack_dual(d).tangent is t)
        out.append(_np(t))
        view = d[1:]
        view.exp_()
        out += [_np(ad.unpack_dual(d).tangent), _np(ad.unpack_dual(view).tangent)]
        # a plain tensor written with a dual becomes dual; so does its base
        y = lib.zeros(6)
        early = y[4:]
        w = y[:3]
        w.add_(ad.make_dual(x, v))
        out += [
            _np(ad.unpack_dual(w).tangent),
            _np(ad.unpack_dual(y).tangent),
            _np(ad.unpack_dual(early).tangent),
        ]
        z = lib.zeros(2, 3)
        z[0] = ad.make_dual(x, v)
        out.append(_np(ad.unpack_dual(z).tangent))
        c = lib.zeros(3)
        c.copy_(ad.make_dual(x, v) * 2)
        out.append(_np(ad.unpack_dual(c).tangent))
        # the dual's primal written in place: the tangent stays
        p = ad.unpack_dual(d).primal
        p.mul_(10)
        out.append(_np(ad.unpack_dual(d).tangent))
        # view tangents are views of the base's tangent
        m = ad.make_dual(lib.zeros(2, 2), lib.ones(2, 2))
        row = m[0]
        ad.unpack_dual(m).tangent.mul_(3)
        out.append(_np(ad.unpack_dual(row).tangent))
        out.append(_np(ad.unpack_dual(m.T).tangent))
        out.append(_np(ad.unpack_dual(m.mT).tangent))
        out.append(_np(ad.unpack_dual((m * (1 + 1j)).real).tangent))
    return out


def test_inplace_and_view_tangents_match_pytorch():
    ours, theirs = _inplace_story(jtensor), _inplace_story(torch)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs, strict=True):
        if isinstance(b, np.ndarray):
            np.testing.assert_allclose(a, b, rtol=1e-6)
        else:
            assert a == b


def test_tangents_are_dropped_when_the_level_exits():
    x = jtensor.ones(2)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, jtensor.ones(2))
        y = d * 2
        assert fwAD.unpack_dual(y).tangent is not None
    assert d._fw_grads is None and y._fw_grads is None
    assert fwAD.unpack_dual(y).tangent is None


# ----------------------------------------------------------------------------- op tangents

CASES = [
    ("sin", lambda lib, a: a.sin()),
    ("exp", lambda lib, a: lib.exp(a)),
    ("mul", lambda lib, a: a * a + 2 * a),
    ("div", lambda lib, a: a / (a.abs() + 1)),
    ("sum", lambda lib, a: a.sum(0)),
    ("matmul", lambda lib, a: a @ a.t()),
    ("softmax", lambda lib, a: lib.softmax(a, 1)),
    ("relu", lambda lib, a: lib.relu(a)),
    ("cat", lambda lib, a: lib.cat([a, a * 2], 1)),
    ("where", lambda lib, a: lib.where(a > 0, a, a * a)),
    ("getitem", lambda lib, a: a[[0, 1], 1:]),
    ("max_dim", lambda lib, a: a.max(1)),
    ("mixed", lambda lib, a: a + lib.ones(3, 4, dtype=lib.float64)),
]


@pytest.mark.parametrize("name,fn", CASES, ids=[c[0] for c in CASES])
def test_op_tangents_match_pytorch(name, fn):
    x, v = _pair((3, 4))

    def run(lib):
        ad = lib.autograd.forward_ad
        with ad.dual_level():
            d = ad.make_dual(lib.tensor(x, dtype=lib.float32), lib.tensor(v, dtype=lib.float32))
            out = fn(lib, d)
            outs = out if isinstance(out, tuple) else (out,)
            return [
                (
                    tuple(o.shape),
                    str(o.dtype),
                    _np(ad.unpack_dual(o).tangent),
                    None
                    if ad.unpack_dual(o).tangent is None
                    else (str(ad.unpack_dual(o).tangent.dtype), ad.unpack_dual(o).tangent.stride()),
                )
                for o in outs
            ]

    ours, theirs = run(jtensor), run(torch)
    for (s1, d1, t1, m1), (s2, d2, t2, m2) in zip(ours, theirs, strict=True):
        assert (s1, d1, m1) == (s2, d2, m2)
        if t2 is None:
            assert t1 is None
        else:
            np.testing.assert_allclose(t1, t2, rtol=1e-5, atol=1e-6)


def test_tangent_of_a_primal_that_requires_grad_is_differentiable():
    """Reverse over forward: d/dx of the tangent of sin(x) along v is -sin(x) v."""

    def run(lib):
        ad = lib.autograd.forward_ad
        x = lib.tensor([0.3, 1.2], dtype=lib.float64, requires_grad=True)
        v = lib.tensor([1.0, 2.0], dtype=lib.float64)
        with ad.dual_level():
            t = ad.unpack_dual(lib.sin(ad.make_dual(x, v))).tangent
            (g,) = lib.autograd.grad(t.sum(), x)
        return _np(g)

    np.testing.assert_allclose(run(jtensor), run(torch), rtol=1e-12)


def test_out_and_unsupported_ops_raise_pytorch_errors():
    def run(lib):
        ad = lib.autograd.forward_ad
        with ad.dual_level():
            d = ad.make_dual(lib.ones(3) * 2, lib.ones(3))
            return [
                _outcome(lib, lambda lib: lib.abs(d, out=lib.empty(3)))[1],
                _outcome(lib, lambda lib: d.clone().acosh_())[1],
            ]

    assert run(jtensor) == run(torch) == [NotImplementedError, NotImplementedError]


# ----------------------------------------------------------------------------- every op

from tests.harness.gradients import G, load_specs, make_inputs, tensors_in  # noqa: E402

SPEC_CASES = [s for s in load_specs() if isinstance(s, G)]
_spec_ids = {}


def _spec_id(case):
    n = _spec_ids.get(case.op, 0)
    _spec_ids[case.op] = n + 1
    return f"{case.op}-{n}"


SPEC_IDS = [_spec_id(c) for c in SPEC_CASES]


def _random_like(t, rng):
    values = rng.uniform(-1, 1, size=tuple(t.shape))
    if t.is_complex():
        values = values + 1j * rng.uniform(-1, 1, size=tuple(t.shape))
    return jtensor.tensor(values, dtype=t.dtype, device=t.device)


def _real_dot(a, b):
    """Re <a, b> = Re sum(conj(a) b): the inner product PyTorch's complex vjp is the adjoint
    for."""
    prod = a.conj() * b if a.is_complex() or b.is_complex() else a * b
    return float(prod.sum().real.item()) if prod.is_complex() else float(prod.sum().item())


@pytest.mark.parametrize("case", SPEC_CASES, ids=SPEC_IDS)
def test_forward_jvp_equals_reverse_mode_product(case):
    """For every gradient spec: <w, J v> from forward mode equals <J^T w, v> from reverse mode
    (float64, random v and w), and outputs without a gradient have no nonzero tangent."""
    rng = np.random.default_rng(7 + SPEC_IDS.index(_spec_id_of(case)))
    inputs, _ = make_inputs(jtensor, case, 1000)
    diff = [
        i
        for i, x in enumerate(inputs)
        if isinstance(x, jtensor.Tensor)
        and x.requires_grad
        and (x.is_floating_point() or x.is_complex())
    ]
    vs = {i: _random_like(inputs[i], rng) for i in diff}
    out = case.fn(jtensor, *inputs)
    outs = tensors_in(out)
    try:
        with fwAD.dual_level():
            duals = [
                fwAD.make_dual(x.detach(), vs[i]) if i in vs else x for i, x in enumerate(inputs)
            ]
            fouts = tensors_in(case.fn(jtensor, *duals))
            tangents = [fwAD.unpack_dual(o).tangent for o in fouts]
    except NotImplementedError as e:
        # PyTorch refuses forward AD for this op too (same exception type and message).
        tinputs, _ = make_inputs(torch, case, 1000)
        with tfwAD.dual_level():
            tduals = [
                tfwAD.make_dual(x.detach(), torch.ones_like(x)) if i in vs else x
                for i, x in enumerate(tinputs)
            ]
            with pytest.raises(NotImplementedError) as theirs:
                case.fn(torch, *tduals)
        assert str(e).split(" that ")[0] == str(theirs.value).split(" that ")[0]
        return
    assert len(fouts) == len(outs)
    for k, (o, t) in enumerate(zip(outs, tangents, strict=True)):
        if not o.requires_grad:
            assert t is None or not t.abs().sum().item(), f"output {k}"
            continue
        if t is None:
            # Only where PyTorch drops the tangent too (linear_cross_entropy's chunked path).
            assert _torch_tangents(case, vs)[k] is None, f"output {k} has no tangent"
            continue
        assert tuple(t.shape) == tuple(o.shape)
        w = _random_like(o, rng)
        grads = jtensor.autograd.grad(
            o, [inputs[i] for i in diff], w, retain_graph=True, allow_unused=True
        )
        expected = sum(
            _real_dot(g, vs[i]) for g, i in zip(grads, diff, strict=True) if g is not None
        )
        got = _real_dot(w, t)
        assert got == pytest.approx(expected, rel=1e-6, abs=1e-8), f"output {k}"


def _torch_tangents(case, vs):
    """PyTorch's tangents for ``case`` with the same tangent vectors ``vs``."""
    tinputs, _ = make_inputs(torch, case, 1000)
    with tfwAD.dual_level():
        tduals = [
            tfwAD.make_dual(x.detach(), torch.from_numpy(vs[i].cpu().numpy())) if i in vs else x
            for i, x in enumerate(tinputs)
        ]
        return [tfwAD.unpack_dual(o).tangent for o in tensors_in(case.fn(torch, *tduals))]


def _spec_id_of(case):
    return SPEC_IDS[next(i for i, c in enumerate(SPEC_CASES) if c is case)]


# ----------------------------------------------------------------------------- Function.jvp


def _function_story(lib):
    ad = lib.autograd.forward_ad
    seen = []

    class Scaled(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, y, k):
            ctx.save_for_forward(x, y)
            ctx.k = k
            seen.append(ad.unpack_dual(x).tangent is None)  # no tangents inside forward
            return x * y * k, x + y

        @staticmethod
        def backward(ctx, g1, g2):
            return g1, g2, None

        @staticmethod
        def jvp(ctx, tx, ty, tk):
            seen.append((_np(tx).tolist(), _np(ty).tolist(), tk))
            x, y = ctx.saved_tensors
            return (tx * y + x * ty) * ctx.k, tx + ty

    class NoJvp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class Doubler(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2

        @staticmethod
        def jvp(ctx, t):
            t.mul_(2)
            return t

    x, y = lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0])
    with ad.dual_level():
        d = ad.make_dual(x, lib.ones(2))
        a, b = Scaled.apply(d, y, 3)
        seen += [_np(ad.unpack_dual(a).tangent).tolist(), _np(ad.unpack_dual(b).tangent).tolist()]
        try:
            NoJvp.apply(d)
        except NotImplementedError as e:
            seen.append(str(e))
        seen.append(ad.unpack_dual(NoJvp.apply(x)).tangent is None)
        c = ad.make_dual(x.clone(), lib.ones(2))
        r = Doubler.apply(c)
        seen += [r is c, _np(ad.unpack_dual(c).tangent).tolist()]
    return seen


def test_custom_function_jvp_matches_pytorch():
    assert _function_story(jtensor) == _function_story(torch)


# ----------------------------------------------------------------------------- forward over reverse


def _mlp_loss(lib, ps, x, y):
    F = lib.nn.functional
    h = F.layer_norm(F.gelu(F.linear(x, ps[0], ps[1])), (5,))
    out = F.linear(lib.tanh(h), ps[2], ps[3])
    return (
        F.mse_loss(out, y)
        + F.cross_entropy(out, lib.tensor([0, 1, 1]))
        + F.softplus(out).sum()
        + F.dropout(out, 0.0).sum()
    )


def test_forward_over_reverse_hessian_vector_product_matches_double_backward():
    """HVP of an MLP loss: the tangent of the gradient (forward over reverse) equals
    PyTorch's double backward."""
    rng = np.random.default_rng(0)
    shapes = [(5, 4), (5,), (2, 5), (2,)]
    values = [rng.standard_normal(s) for s in shapes]
    vectors = [rng.standard_normal(s) for s in shapes]
    x, y = rng.standard_normal((3, 4)), rng.standard_normal((3, 2))

    def f64(lib, a, grad=False):
        return lib.tensor(a, dtype=lib.float64, requires_grad=grad)

    ps = [f64(torch, a, True) for a in values]
    g = torch.autograd.grad(
        _mlp_loss(torch, ps, f64(torch, x), f64(torch, y)), ps, create_graph=True
    )
    expected = torch.autograd.grad(g, ps, [f64(torch, v) for v in vectors])
    jps = [f64(jtensor, a, True) for a in values]
    with fwAD.dual_level():
        duals = [fwAD.make_dual(p, f64(jtensor, v)) for p, v in zip(jps, vectors, strict=True)]
        grads = jtensor.autograd.grad(
            _mlp_loss(jtensor, duals, f64(jtensor, x), f64(jtensor, y)), duals, create_graph=True
        )
        got = [fwAD.unpack_dual(gr).tangent for gr in grads]
    for a, b in zip(got, expected, strict=True):
        np.testing.assert_allclose(_np(a), b.numpy(), rtol=1e-9, atol=1e-12)


def test_every_differentiable_op_has_a_forward_rule_or_a_reason():
    """A new differentiable op must get a direct forward rule (``forward/direct.py``), or an
    entry in ``GENERIC_BY_DESIGN`` saying why the generic double-vjp rule is right for it,
    or be one PyTorch refuses (``UNSUPPORTED``)."""
    from jtensor._registry import OPS
    from jtensor.autograd.forward.direct import GENERIC_BY_DESIGN
    from jtensor.autograd.forward.rules import RULES, UNSUPPORTED
    from jtensor.autograd.graph import NONDIFF

    def covered(name, op):
        if op.backward is NONDIFF or (op.backward is None and op.kind != "nn"):
            return True  # no tangent: integer results, factories, queries
        if op.kind in ("view", "nn"):
            return True  # linear views; nn ops run their body under the level
        base = name[:-1] if op.kind == "inplace" else name
        return any(n in RULES or n in UNSUPPORTED or n in GENERIC_BY_DESIGN for n in (name, base))

    missing = sorted(name for name, op in OPS.items() if not covered(name, op))
    assert not missing, f"ops without a forward rule or a reason for the generic one: {missing}"
    stale = sorted(n for n in GENERIC_BY_DESIGN if n not in OPS)
    assert not stale, f"GENERIC_BY_DESIGN names unknown ops: {stale}"


def test_nested_levels_give_second_derivatives():
    """``_enter_dual_level(nested=True)`` (what ``torch.func.jvp`` of a ``jvp`` needs): the
    inner level's tangent carries the outer one's, a second derivative."""
    x = jtensor.tensor([0.5, 1.0], dtype=jtensor.float64)
    outer = fwAD._enter_dual_level()
    try:
        d0 = fwAD.make_dual(x, jtensor.ones(2, dtype=jtensor.float64), level=outer)
        inner = fwAD._enter_dual_level(nested=True)
        try:
            d1 = fwAD.make_dual(d0, jtensor.ones(2, dtype=jtensor.float64), level=inner)
            first = fwAD.unpack_dual(d1.sin() * d1, level=inner).tangent
        finally:
            fwAD.exit_dual_level(level=inner)
        second = fwAD.unpack_dual(first, level=outer).tangent
    finally:
        fwAD.exit_dual_level(level=outer)
    xs = x.cpu().numpy()
    np.testing.assert_allclose(_np(first), np.cos(xs) * xs + np.sin(xs), rtol=1e-12)
    np.testing.assert_allclose(_np(second), -np.sin(xs) * xs + 2 * np.cos(xs), rtol=1e-12)
    with pytest.raises(RuntimeError, match="Nested forward mode AD is not supported"):
        with fwAD.dual_level(), fwAD.dual_level():
            pass
    assert fwAD._current_level == -1


def _mixed_story(lib):
    """Duals mixed with plain tensors, methods, properties, operators and autograd."""
    ad = lib.autograd.forward_ad
    x = lib.arange(6.0).reshape(2, 3)
    xr = lib.tensor([1.0, 2.0], requires_grad=True)
    out = []

    def t(o):
        r = ad.unpack_dual(o).tangent
        return None if r is None else r.tolist()

    with ad.dual_level():
        d = ad.make_dual(x, lib.ones(2, 3) * 0.5)
        out += [[t(r) for r in d], [t(r) for r in d.unbind(1)], t(d.mT), t(d.H), t(d.mH)]
        out += [t(d.view(3, 2)), t(d.flatten()), t(d.reshape(-1)), t(d.contiguous())]
        out += [t(d.to(lib.float64)), t(d.double()), t(d.half()), t(d.int())]
        out += [t(d.sum()), t(d.mean(1)), t(-d), t(d - 1), t(1 - d), t(2 / (d + 1))]
        out += [t(d**2), t(2**d), t(abs(d)), t(d @ d.T), t(lib.where(d > 2, d, 0.0))]
        out += [t(d.clamp(1, 4)), t(d.masked_fill(d > 3, 1.0))]
        dr = ad.make_dual(xr, lib.ones(2))
        out += [dr.requires_grad, type(dr.grad_fn).__name__, dr.is_leaf]
        p = ad.unpack_dual(dr).primal
        out += [p.requires_grad, p.is_leaf]
        (dr * 3).sum().backward()
        out.append(xr.grad.tolist())
        z = lib.zeros(2, 3)
        z[:, 1] = d[:, 0]
        w = lib.zeros(3)
        w += d[0]
        e = d.clone()
        e.zero_()
        f = d.clone()
        f.fill_(2.0)
        g = d.clone()
        g.detach_()
        out += [t(z), t(w), t(e), t(f), t(g), t(lib.cat([d, x])), t(lib.stack([x, d]))]
        out.append(ad.unpack_dual(d.clone().requires_grad_()).tangent is not None)
    return out


def test_duals_mixed_with_plain_tensors_match_pytorch():
    assert _mixed_story(jtensor) == _mixed_story(torch)


NN_CASES = {
    "embedding": lambda F, lib, x, d, d2, w: F.embedding(lib.tensor([0, 2]), w),
    "rrelu": lambda F, lib, x, d, d2, w: F.rrelu(d),
    "multilabel_margin": lambda F, lib, x, d, d2, w: F.multilabel_margin_loss(
        d2, lib.tensor([[0, -1, 1], [1, -1, 0]])
    ),
    "multi_margin": lambda F, lib, x, d, d2, w: F.multi_margin_loss(d2, lib.tensor([0, 1])),
    "max_unpool": lambda F, lib, x, d, d2, w: F.max_unpool2d(
        *F.max_pool2d(d, 2, return_indices=True), 2
    ),
    "adaptive_max": lambda F, lib, x, d, d2, w: F.adaptive_max_pool2d(d, 2),
    "interp_bicubic": lambda F, lib, x, d, d2, w: F.interpolate(d, scale_factor=2, mode="bicubic"),
    "pdist": lambda F, lib, x, d, d2, w: F.pdist(d2),
    "nll2d": lambda F, lib, x, d, d2, w: F.nll_loss(
        d.log_softmax(1), lib.zeros(2, 6, 6, dtype=lib.long)
    ),
    "lp_pool": lambda F, lib, x, d, d2, w: F.lp_pool2d(d, 2, 2),
    "local_response": lambda F, lib, x, d, d2, w: F.local_response_norm(d, 2),
    "instance_norm": lambda F, lib, x, d, d2, w: F.instance_norm(d),
    "group_norm": lambda F, lib, x, d, d2, w: F.group_norm(d, 3),
}


@pytest.mark.parametrize("name", sorted(NN_CASES))
def test_nn_functionals_propagate_or_refuse_as_pytorch(name):
    """nn functionals run their bodies under the level: same tangent as PyTorch, or the same
    refusal (PyTorch has no forward formula for some kernels)."""
    rng = np.random.default_rng(3)
    xv, v4 = rng.uniform(0.1, 1.1, (2, 3, 6, 6)), rng.uniform(-1, 1, (2, 3, 6, 6))
    wv, vw = rng.uniform(0, 1, (5, 3)), rng.uniform(-1, 1, (5, 3))

    def run(lib):
        F = lib.nn.functional
        ad = lib.autograd.forward_ad
        f64 = lambda a: lib.tensor(a, dtype=lib.float64)  # noqa: E731
        x = f64(xv)
        with ad.dual_level():
            d = ad.make_dual(x, f64(v4))
            d2 = ad.make_dual(x[:, :, 0, 0], f64(v4[:, :, 0, 0]))
            w = ad.make_dual(f64(wv), f64(vw))
            try:
                r = NN_CASES[name](F, lib, x, d, d2, w)
            except NotImplementedError as e:
                return "refused", str(e).split(" that ")[0]
            r = r[0] if isinstance(r, tuple) else r
            return "ok", _np(ad.unpack_dual(r).tangent)

    torch.manual_seed(0)
    theirs = run(torch)
    jtensor.manual_seed(0)
    ours = run(jtensor)
    assert ours[0] == theirs[0]
    if ours[0] == "refused":
        assert ours[1] == theirs[1]
    else:
        np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-7, atol=1e-10)


def test_module_parameters_as_duals_like_the_tutorial():
    """PyTorch's forward-AD tutorial: a module's parameters replaced by duals."""
    rng = np.random.default_rng(0)
    weight, bias = rng.standard_normal((5, 5)), rng.standard_normal(5)
    data = rng.standard_normal((16, 5))
    tangents = {"weight": rng.standard_normal((5, 5)), "bias": rng.standard_normal(5)}

    def run(lib):
        ad = lib.autograd.forward_ad
        model = lib.nn.Linear(5, 5)
        with lib.no_grad():
            model.weight.copy_(lib.tensor(weight, dtype=lib.float32))
            model.bias.copy_(lib.tensor(bias, dtype=lib.float32))
        params = dict(model.named_parameters())
        with ad.dual_level():
            for name, p in params.items():
                delattr(model, name)
                setattr(model, name, ad.make_dual(p, lib.tensor(tangents[name], dtype=lib.float32)))
            out = model(lib.tensor(data, dtype=lib.float32))
            return _np(ad.unpack_dual(out).tangent)

    np.testing.assert_allclose(run(jtensor), run(torch), rtol=1e-5, atol=1e-5)


def test_the_plain_path_stores_nothing():
    """Outside a level no tensor gets a ``_fw_grads`` entry and no transform is pushed."""
    x = jtensor.ones(3, requires_grad=True)
    y = (x * 2).sin().sum()
    y.backward()
    assert "_fw_grads" not in x.__dict__ and "_fw_grads" not in y.__dict__
    assert jtensor._dispatch.transforms.active == 0
