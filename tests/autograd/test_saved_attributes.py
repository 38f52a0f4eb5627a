"""What a backward node shows of what it saved, against PyTorch: ``grad_fn._saved_<name>``
(the names PyTorch's ``derivatives.yaml`` gives: ``self``, ``other``, ``result``,
``exponent``, ``dim``, ``self_sym_sizes``...; their values and types), ``_raw_saved_<name>``
(``torch._C._autograd.SavedTensor`` with ``register_hooks``), ``dir(grad_fn)``, reads after
the graph was freed, the history of what saved-tensor hooks give back, and
``torch.autograd.graph.save_on_cpu`` (the "Hooks for saved tensors" tutorial)."""

import gc
import warnings

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(7)
X = RNG.uniform(-2, 2, (3, 4))
S = RNG.uniform(0.5, 2, (3, 4))
W = RNG.uniform(-1, 1, (5, 4))
BIAS = RNG.uniform(-1, 1, 5)
V = RNG.uniform(-1, 1, 4)


def _inputs(L):
    def leaf(a):
        return L.tensor(a, dtype=L.float64, requires_grad=True)

    return {"x": leaf(X), "s": leaf(S), "w": leaf(W), "b": leaf(BIAS), "v": leaf(V)}


F = "nn.functional"

# Each case: ``fn(L, x, s, w, b, v)`` returning the output whose ``grad_fn`` is compared (or
# a node itself).
CASES = {
    "mul": lambda L, x, s, w, b, v: x * s,
    "mul-number": lambda L, x, s, w, b, v: x * 2,
    "mul-float": lambda L, x, s, w, b, v: x * 2.5,
    "x*x": lambda L, x, s, w, b, v: x * x,
    "mul-constant": lambda L, x, s, w, b, v: x * s.detach(),
    "add": lambda L, x, s, w, b, v: x + s,
    "add-alpha": lambda L, x, s, w, b, v: L.add(x, s, alpha=2),
    "add-number": lambda L, x, s, w, b, v: x + 1,
    "sub": lambda L, x, s, w, b, v: x - s,
    "sub-alpha": lambda L, x, s, w, b, v: L.sub(x, s, alpha=0.5),
    "rsub": lambda L, x, s, w, b, v: 1 - x,
    "div": lambda L, x, s, w, b, v: x / s,
    "div-number": lambda L, x, s, w, b, v: x / 2,
    "number-div": lambda L, x, s, w, b, v: 2 / s,
    "div-floor": lambda L, x, s, w, b, v: L.div(x, s, rounding_mode="floor"),
    "pow-number": lambda L, x, s, w, b, v: x.pow(2),
    "pow-half": lambda L, x, s, w, b, v: s.pow(0.5),
    "pow-tensors": lambda L, x, s, w, b, v: s.pow(x),
    "pow-0d-exponent": lambda L, x, s, w, b, v: s ** L.tensor(2.0),
    "number-pow": lambda L, x, s, w, b, v: 2**x,
    "square": lambda L, x, s, w, b, v: x.square(),
    "exp": lambda L, x, s, w, b, v: L.exp(x),
    "log": lambda L, x, s, w, b, v: s.log(),
    "sin": lambda L, x, s, w, b, v: x.sin(),
    "cos": lambda L, x, s, w, b, v: x.cos(),
    "tanh": lambda L, x, s, w, b, v: x.tanh(),
    "sigmoid": lambda L, x, s, w, b, v: x.sigmoid(),
    "relu": lambda L, x, s, w, b, v: x.relu(),
    "F.relu": lambda L, x, s, w, b, v: L.nn.functional.relu(x),
    "abs": lambda L, x, s, w, b, v: x.abs(),
    "sqrt": lambda L, x, s, w, b, v: s.sqrt(),
    "neg": lambda L, x, s, w, b, v: -x,
    "sum": lambda L, x, s, w, b, v: x.sum(),
    "sum-dim": lambda L, x, s, w, b, v: x.sum(1),
    "sum-negative-dim": lambda L, x, s, w, b, v: x.sum(-1),
    "sum-dims-keepdim": lambda L, x, s, w, b, v: x.sum((0, 1), keepdim=True),
    "mean": lambda L, x, s, w, b, v: x.mean(),
    "mean-dim": lambda L, x, s, w, b, v: x.mean(1),
    "mm": lambda L, x, s, w, b, v: x.mm(w.t()),
    "mm-constant-self": lambda L, x, s, w, b, v: x.detach().mm(w.t()),
    "mm-constant-mat2": lambda L, x, s, w, b, v: x.mm(w.t().detach()),
    "matmul": lambda L, x, s, w, b, v: x @ w.t(),
    "addmm": lambda L, x, s, w, b, v: L.addmm(b, x, w.t()),
    "linear": lambda L, x, s, w, b, v: L.nn.functional.linear(x, w, b),
    "linear-no-bias": lambda L, x, s, w, b, v: L.nn.functional.linear(x, w),
    "bmm": lambda L, x, s, w, b, v: L.bmm(x[None], w.t()[None]),
    "mv": lambda L, x, s, w, b, v: L.mv(x, v),
    "dot": lambda L, x, s, w, b, v: L.dot(v, v),
    "view": lambda L, x, s, w, b, v: x.view(12),
    "view-inferred": lambda L, x, s, w, b, v: x.view(2, -1),
    "reshape": lambda L, x, s, w, b, v: x.reshape(12),
    "reshape-copy": lambda L, x, s, w, b, v: x.t().reshape(12),
    "flatten": lambda L, x, s, w, b, v: x[None].flatten(),
    "t": lambda L, x, s, w, b, v: x.t(),
    "unsqueeze": lambda L, x, s, w, b, v: x.unsqueeze(-1),
    "squeeze-dim": lambda L, x, s, w, b, v: x[None].squeeze(0),
    "squeeze": lambda L, x, s, w, b, v: x[None].squeeze(),
    "permute": lambda L, x, s, w, b, v: x.permute(-1, 0),
    "transpose": lambda L, x, s, w, b, v: x.transpose(0, 1),
    "expand": lambda L, x, s, w, b, v: v.expand(3, 4),
    "select": lambda L, x, s, w, b, v: x.select(0, -1),
    "getitem-int": lambda L, x, s, w, b, v: x[1],
    "getitem-int-dim1": lambda L, x, s, w, b, v: x[:, -1],
    "getitem-ellipsis": lambda L, x, s, w, b, v: x[..., 1],
    "getitem-slice": lambda L, x, s, w, b, v: x[1:3],
    "getitem-negative-slice": lambda L, x, s, w, b, v: x[-2:],
    "getitem-step": lambda L, x, s, w, b, v: x[:, ::2],
    "getitem-everything": lambda L, x, s, w, b, v: x[:],
    "getitem-none": lambda L, x, s, w, b, v: x[None],
    "getitem-int-then-slice": lambda L, x, s, w, b, v: x[1, 2:3],
    "getitem-ellipsis-none-slice": lambda L, x, s, w, b, v: x[..., None, 1:3],
    "narrow": lambda L, x, s, w, b, v: x.narrow(1, 1, 2),
    "narrow-negative": lambda L, x, s, w, b, v: x.narrow(-1, -2, 2),
    "index": lambda L, x, s, w, b, v: x[L.tensor([0, 2])],
    "index-dim1": lambda L, x, s, w, b, v: x[:, L.tensor([0, 1])],
    "index-two": lambda L, x, s, w, b, v: x[L.tensor([0, 1]), L.tensor([1, 1])],
    "index-mask": lambda L, x, s, w, b, v: x[x > 0],
    "index-list": lambda L, x, s, w, b, v: x[[0, 2]],
    "index-then-slice": lambda L, x, s, w, b, v: x[L.tensor([0, 1]), 1:],
    "index-after-none": lambda L, x, s, w, b, v: x[None, L.tensor([0, 1])],
    "index-mask-after-ellipsis": lambda L, x, s, w, b, v: x[None][..., x.detach() > 0],
    "softmax": lambda L, x, s, w, b, v: x.softmax(1),
    "F.softmax": lambda L, x, s, w, b, v: L.nn.functional.softmax(x, dim=-1),
    "log_softmax": lambda L, x, s, w, b, v: x.log_softmax(-1),
    "cross_entropy-log_softmax": lambda L, x, s, w, b, v: L.nn.functional.cross_entropy(
        x, L.tensor([0, 1, 3])
    ).grad_fn.next_functions[0][0],
    "nll_loss": lambda L, x, s, w, b, v: L.nn.functional.nll_loss(
        x.log_softmax(1), L.tensor([0, 1, 3])
    ),
    "cross_entropy": lambda L, x, s, w, b, v: L.nn.functional.cross_entropy(x, L.tensor([0, 1, 3])),
    "nll_loss-weight-none": lambda L, x, s, w, b, v: L.nn.functional.nll_loss(
        x, L.tensor([0, 1, 3]), weight=v.detach(), reduction="none"
    ),
    "nll_loss-weight-sum": lambda L, x, s, w, b, v: L.nn.functional.nll_loss(
        x, L.tensor([0, 1, 3]), weight=v.detach(), reduction="sum", ignore_index=1
    ),
    "nll_loss-3d": lambda L, x, s, w, b, v: L.nn.functional.nll_loss(
        x.reshape(3, 2, 2), L.tensor([[0, 1], [1, 1], [0, 0]])
    ),
    "max": lambda L, x, s, w, b, v: x.max(),
    "max-dim": lambda L, x, s, w, b, v: x.max(1)[0],
    "max-dim-keepdim": lambda L, x, s, w, b, v: x.max(-1, keepdim=True).values,
    "min-dim": lambda L, x, s, w, b, v: x.min(1)[0],
    "max-binary": lambda L, x, s, w, b, v: L.max(x, s),
    "maximum": lambda L, x, s, w, b, v: L.maximum(x, s),
    "median": lambda L, x, s, w, b, v: x.median(),
    "median-dim": lambda L, x, s, w, b, v: x.median(1).values,
    "sort": lambda L, x, s, w, b, v: x.sort(1).values,
    "topk": lambda L, x, s, w, b, v: x.topk(2).values,
    "amax": lambda L, x, s, w, b, v: x.amax(1),
    "logsumexp": lambda L, x, s, w, b, v: x.logsumexp(1),
    "prod": lambda L, x, s, w, b, v: x.prod(),
    "prod-dim": lambda L, x, s, w, b, v: x.prod(1),
    "norm": lambda L, x, s, w, b, v: x.norm(),
    "norm-dim": lambda L, x, s, w, b, v: x.norm(dim=1),
    "var": lambda L, x, s, w, b, v: x.var(),
    "var-dim": lambda L, x, s, w, b, v: x.var(1, unbiased=False),
    "std": lambda L, x, s, w, b, v: x.std(),
    "std-dim": lambda L, x, s, w, b, v: x.std(1),
    "clone": lambda L, x, s, w, b, v: x.clone(),
    "contiguous": lambda L, x, s, w, b, v: x.t().contiguous(),
    "to": lambda L, x, s, w, b, v: x.to(L.float32),
    "cat": lambda L, x, s, w, b, v: L.cat([x, s], -1),
    "stack": lambda L, x, s, w, b, v: L.stack([x, s]),
    "split": lambda L, x, s, w, b, v: x.split(2)[0],
    "split-sizes": lambda L, x, s, w, b, v: x.split([1, 3], 1)[0],
    "chunk": lambda L, x, s, w, b, v: x.chunk(2, -1)[1],
    "unbind": lambda L, x, s, w, b, v: x.unbind(0)[0],
    "cumsum": lambda L, x, s, w, b, v: x.cumsum(1),
    "gather": lambda L, x, s, w, b, v: x.gather(1, L.tensor([[0], [1], [2]])),
    "index_select": lambda L, x, s, w, b, v: x.index_select(1, L.tensor([0, 2])),
    "where": lambda L, x, s, w, b, v: L.where(x > 0, x, s),
    "masked_fill": lambda L, x, s, w, b, v: x.masked_fill(x > 0, 0.0),
    "clamp": lambda L, x, s, w, b, v: x.clamp(-0.5, 0.5),
    "clamp-min": lambda L, x, s, w, b, v: x.clamp(min=0),
    "clamp-tensor": lambda L, x, s, w, b, v: x.clamp(s.detach()),
    "repeat": lambda L, x, s, w, b, v: x.repeat(2, 1),
    "mul_": lambda L, x, s, w, b, v: x.clone().mul_(s),
    "tanh_": lambda L, x, s, w, b, v: x.clone().tanh_(),
    "mse_loss": lambda L, x, s, w, b, v: L.nn.functional.mse_loss(x, s, reduction="sum"),
    "bce": lambda L, x, s, w, b, v: L.nn.functional.binary_cross_entropy(
        x.sigmoid(), s.detach() / 2, weight=s.detach()
    ),
    "bce_with_logits": lambda L, x, s, w, b, v: L.nn.functional.binary_cross_entropy_with_logits(
        x, s.detach() / 2
    ),
    "bce_with_logits_weights": lambda L, x, s, w, b, v: (
        L.nn.functional.binary_cross_entropy_with_logits(
            x, s.detach() / 2, weight=s.detach(), pos_weight=v.detach(), reduction="sum"
        )
    ),
    "gelu": lambda L, x, s, w, b, v: L.nn.functional.gelu(x),
    "gelu-tanh": lambda L, x, s, w, b, v: L.nn.functional.gelu(x, approximate="tanh"),
    "silu": lambda L, x, s, w, b, v: L.nn.functional.silu(x),
    "leaky_relu": lambda L, x, s, w, b, v: L.nn.functional.leaky_relu(x, 0.2),
    "softplus": lambda L, x, s, w, b, v: L.nn.functional.softplus(x, beta=2, threshold=10),
    "embedding": lambda L, x, s, w, b, v: L.nn.functional.embedding(L.tensor([0, 2]), x),
    "embedding-padding": lambda L, x, s, w, b, v: L.nn.functional.embedding(
        L.tensor([0, 2]), x, padding_idx=1
    ),
}
# Strict xfails: jtensor's Function in ``jtensor/nn`` keeps less than PyTorch's node exposes.


def _describe(v, known):
    """A saved value, comparable across the two libraries: a tensor by its values, dtype,
    history and identity (which input or output it is), anything else by type and value."""
    if isinstance(v, (jtensor.Tensor, torch.Tensor)):
        tag = next((k for k, t in known.items() if t is v), None)
        values = [round(float(e), 9) for e in v.detach().double().reshape(-1).tolist()]
        fn = v.grad_fn
        return (
            "tensor",
            tuple(v.shape),
            str(v.dtype),
            v.requires_grad,
            fn.name() if fn is not None else None,
            tag,
            str(values),
        )
    if isinstance(v, tuple):
        return tuple(_describe(e, known) for e in v)
    return (type(v).__name__, v)


def _observe(L, case):
    args = _inputs(L)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = CASES[case](L, *args.values())
    node = out if not isinstance(out, (jtensor.Tensor, torch.Tensor)) else out.grad_fn
    known = dict(args)
    if isinstance(out, (jtensor.Tensor, torch.Tensor)):
        known["output"] = out
    saved = sorted(n for n in dir(node) if n.startswith("_saved"))
    raw = sorted(n for n in dir(node) if n.startswith("_raw_saved"))
    values = {n: _describe(getattr(node, n), known) for n in saved}
    raw_types = {n: type(getattr(node, n)).__name__ for n in raw}
    return node.name(), saved, raw, values, raw_types


@pytest.mark.parametrize("case", sorted(CASES))
def test_saved_attributes_are_pytorchs(case):
    expected = _observe(torch, case)
    assert _observe(jtensor, case) == expected


@pytest.mark.parametrize("lib", [jtensor, torch], ids=["jtensor", "torch"])
def test_the_tutorials_identities(lib):
    # Inputs come back as the very objects saved; an output as a new tensor object on the
    # same storage, with its node.
    a = lib.randn(5, requires_grad=True)
    b = lib.ones(5, requires_grad=True)
    y = a * b
    assert y.grad_fn._saved_self is a and y.grad_fn._saved_other is b
    h = a.exp()
    z = h * h
    assert z.grad_fn._saved_self is h and z.grad_fn._saved_other is h
    result = h.grad_fn._saved_result
    assert result is not h and result.equal(h) and result.grad_fn is h.grad_fn
    assert result.data_ptr() == h.data_ptr()
    assert h.grad_fn._saved_result is not result  # a new one on each read
    assert type(y.grad_fn._raw_saved_self).__name__ == "SavedTensor"
    assert type(y.grad_fn._raw_saved_self).__module__ == "torch._C._autograd"
    assert y.grad_fn._raw_saved_self is y.grad_fn._raw_saved_self


def _freed_reads(lib):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = {}
    for label, y in (
        ("pow", x.pow(2)),
        ("exp", x.exp()),
        ("mul-number", x * 2),
        ("sum", x.sum(1 - 1)),
        ("mm", x[None].mm(x[:, None])),
        ("mm-constant", x[None].mm(x.detach()[:, None])),
        ("max-dim", x[None].max(1).values),
        ("sort", x.sort().values),
        ("index", x[lib.tensor([0, 2])]),
    ):
        fn = y.grad_fn
        y.sum().backward()
        for name in sorted(n for n in dir(fn) if n.startswith("_saved")):
            try:
                value = getattr(fn, name)
                out[label, name] = _describe(value, {"x": x})
            except RuntimeError as exc:
                out[label, name] = str(exc)
    return out


def test_reading_after_the_graph_was_freed():
    # Saved tensors raise PyTorch's error once backward freed them; numbers, flags, sizes
    # and values that were never saved (None) stay readable.
    expected = _freed_reads(torch)
    assert _freed_reads(jtensor) == expected
    assert (
        "Trying to backward through the graph a second time (or directly access saved "
        "tensors after they have already been freed)" in expected["pow", "_saved_self"]
    )


def test_retain_graph_keeps_them_readable():
    x = jtensor.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    y.sum().backward(retain_graph=True)
    assert y.grad_fn._saved_result.tolist() == y.tolist()


def test_unknown_names_raise_attribute_error():
    y = jtensor.ones(2, requires_grad=True) * 3
    with pytest.raises(AttributeError):
        y.grad_fn._saved_nothing  # noqa: B018
    with pytest.raises(AttributeError):
        y.grad_fn._raw_saved_alpha  # noqa: B018
    assert not hasattr(y.grad_fn.next_functions[0][0], "_saved_self")  # AccumulateGrad
    assert "_saved" not in dir(y.grad_fn)


# ----------------------------------------------------------------------------- register_hooks


def _register_hooks_story(lib):
    log = []
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x.pow(2)
    raw = y.grad_fn._raw_saved_self

    def pack(t):
        log.append(("pack", t.requires_grad, t.grad_fn is None, t is x))
        return t * 1

    def unpack(t):
        log.append(("unpack", t.requires_grad))
        return t

    raw.register_hooks(pack, unpack)
    s = y.grad_fn._saved_self
    log.append(("read", s is x, s.requires_grad, s.is_leaf, s.tolist()))
    for attempt in (
        lambda: raw.register_hooks(pack, unpack),
        lambda: y.grad_fn._raw_saved_self.register_hooks(pack, unpack),
        lambda: (x * 2).grad_fn._raw_saved_self.register_hooks(pack, unpack),
    ):
        try:
            attempt()
        except RuntimeError as exc:
            log.append(str(exc))
    y.sum().backward()
    log.append(("grad", x.grad.tolist()))
    try:
        y.grad_fn._raw_saved_self.register_hooks(pack, unpack)
    except RuntimeError as exc:
        log.append(str(exc))
    with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        z = x.exp()
    try:
        z.grad_fn._raw_saved_result.register_hooks(pack, unpack)
    except RuntimeError as exc:
        log.append(str(exc))
    h = x * 1
    w = h * x
    w.grad_fn._raw_saved_self.register_hooks(pack, unpack)
    w.grad_fn._raw_saved_other.register_hooks(pack, unpack)
    s, o = w.grad_fn._saved_self, w.grad_fn._saved_other
    log.append(("non-leaf", s.grad_fn is h.grad_fn, o.is_leaf, o.requires_grad))
    x.grad = None
    w.sum().backward()
    log.append(("grad", x.grad.tolist()))
    return log


def test_register_hooks_as_pytorch():
    # pack runs at once on the values without history; unpack on every read (backward's
    # too), and what it gives gets the saved tensor's history back. Once per saved tensor,
    # not on None, not after the graph was freed, not under saved_tensors_hooks.
    expected = _register_hooks_story(torch)
    assert _register_hooks_story(jtensor) == expected


def test_register_hooks_wants_two_callables():
    raw = jtensor.ones(2, requires_grad=True).exp().grad_fn._raw_saved_result
    with pytest.raises(TypeError, match="register_hooks"):
        raw.register_hooks(1, 2)


# ----------------------------------------------------------------------------- hook contexts


def _context_story(lib):
    log = []
    w = lib.tensor([0.5, 1.0, 1.5], dtype=lib.float64, requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(lambda t: t.detach().clone(), lambda t: t):
        h = w.exp()
        y = h * h
        z = w * w
    s = y.grad_fn._saved_self
    log.append(("non-leaf", s is h, s.requires_grad, s.grad_fn is h.grad_fn))
    r = h.grad_fn._saved_result
    log.append(("result", r.requires_grad, r.grad_fn is h.grad_fn))
    leaf = z.grad_fn._saved_self
    log.append(("leaf", leaf is w, leaf.requires_grad, leaf.is_leaf))
    (g,) = lib.autograd.grad(y.sum() + z.sum(), w, create_graph=True)
    (g2,) = lib.autograd.grad(g.sum(), w)
    log.append(("second", [round(v, 9) for v in g2.tolist()]))
    kept = []
    c = lib.tensor([1.0, 2.0], dtype=lib.float64)
    with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: kept.append(t) or t):
        q = c * w[:2]
    log.append(("constant", q.grad_fn._saved_self is kept[-1]))
    for pack, unpack in ((lambda t: t.mul_(1), lambda t: t), (lambda t: t, lambda t: 3)):
        try:
            with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
                u = w.clone()
                v = u * u
            v.grad_fn._saved_self  # noqa: B018
        except (RuntimeError, TypeError) as exc:
            log.append((type(exc).__name__, str(exc)))
    return log


def test_hooks_give_back_the_saved_history():
    # What unpack returns stands for the saved tensor: a saved leaf's gradient still reaches
    # the leaf and a non-leaf's node, so a double backward through detaching hooks is right.
    expected = _context_story(torch)
    assert _context_story(jtensor) == expected


def test_custom_function_raw_saved_tensors():
    def run(lib):
        class Twice(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                ctx.save_for_backward(a, None)
                return a * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2

        x = lib.ones(2, requires_grad=True)
        y = Twice.apply(x)
        raws = y.grad_fn._raw_saved_tensors
        out = [len(raws), [type(r).__name__ for r in raws]]
        y.sum().backward()
        try:
            y.grad_fn._raw_saved_tensors  # noqa: B018
        except RuntimeError as exc:
            out.append(str(exc)[:40])
        out.append("_raw_saved_tensors" in dir(y.grad_fn))
        loss = lib.nn.functional.mse_loss(x, lib.zeros(2))
        out.append(hasattr(loss.grad_fn, "_raw_saved_tensors"))
        return out

    assert run(jtensor) == run(torch)


# ----------------------------------------------------------------------------- save_on_cpu


def test_save_on_cpu_on_the_cpu():
    # Already on the CPU: the values are kept (``cpu()`` hands the tensor back) and the
    # gradient is unchanged; without CUDA nothing is pinned.
    def run(lib):
        x = lib.tensor([1.0, -2.0, 3.0], dtype=lib.float64, requires_grad=True)
        hooks = lib.autograd.graph.save_on_cpu(pin_memory=True)
        packed = []
        with lib.autograd.graph.saved_tensors_hooks(
            lambda t: packed.append(hooks.pack_hook(t)) or packed[-1], hooks.unpack_hook
        ):
            y = (x * x).exp()
        y.sum().backward()
        return (
            [(str(d), p.device.type, p.is_pinned(), p.tolist()) for d, p in packed],
            [round(v, 6) for v in x.grad.tolist()],
        )

    assert run(jtensor) == run(torch)
    assert isinstance(
        jtensor.autograd.graph.save_on_cpu(), jtensor.autograd.graph.saved_tensors_hooks
    )


def test_save_on_cpu_in_a_module():
    # The tutorial's model: its saved tensors go through the context.
    x = jtensor.randn(5)
    w = jtensor.nn.Parameter(jtensor.randn(5))
    with jtensor.autograd.graph.save_on_cpu(pin_memory=True):
        loss = (w * x).sum()
    loss.backward()
    assert jtensor.equal(w.grad, x)
    gc.collect()
