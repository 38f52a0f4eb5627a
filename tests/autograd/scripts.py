"""Scripts run once with jtensor and once with PyTorch: what they observe must agree.

Each script takes the library and returns a dict of observations: tensors (compared by
value, dtype and shape), booleans, ints, strings (grad_fn names), or the name of the
exception a step raised (``raises(lambda: ...)``).
"""

import warnings


def raises(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return next(c.__name__ for c in type(e).__mro__ if c.__module__ == "builtins")
    return "no error"


def name(t):
    fn = t.grad_fn
    return None if fn is None else fn.name().rsplit(".", 1)[-1].replace("torch::autograd::", "")


def leaf(lib, values, **kw):
    return lib.tensor(values, dtype=lib.float64, requires_grad=True, **kw)


def s_basic_graph(lib):
    a = leaf(lib, [1.0, 2.0, 3.0])
    b = leaf(lib, [4.0, 5.0, 6.0])
    c = a * b + a
    y = c.sum()
    y.backward()
    return {"a.grad": a.grad, "b.grad": b.grad, "c.is_leaf": c.is_leaf, "a.is_leaf": a.is_leaf,
            "c.requires_grad": c.requires_grad, "name_y": name(y), "name_c": name(c),
            "next": [f[0].name().rsplit("::", 1)[-1] if f[0] is not None else None
                     for f in c.grad_fn.next_functions],
            "acc_var_is_a": c.grad_fn.next_functions[1][0].variable is a}


def s_propagation(lib):
    a = leaf(lib, [1.0, 2.0])
    b = lib.tensor([3.0, 4.0], dtype=lib.float64)
    return {"ab": (a * b).requires_grad, "bb": (b * b).requires_grad, "b_leaf": b.is_leaf,
            "mixed_next": [f[0] is None for f in (b * a).grad_fn.next_functions],
            "int_req": raises(lambda: lib.tensor([1, 2]).requires_grad_()),
            "int_ctor": raises(lambda: lib.tensor([1, 2], requires_grad=True)),
            "argmax_req": a.argmax().requires_grad, "eq_req": (a == b).requires_grad,
            "eq_none": a == None, "add_none": raises(lambda: a + None)}  # noqa: E711


def s_to_non_leaf(lib):
    a = leaf(lib, [1.0, 2.0])
    f = a.to(lib.float32)
    same = a.to(lib.float64)
    return {"f.is_leaf": f.is_leaf, "f_name": name(f), "same_is_a": same is a,
            "clone_name": name(a.clone()), "double_name": name(a.float().double())}


def s_accumulate(lib):
    a = leaf(lib, [1.0, 2.0])
    (a * a).sum().backward()
    first = a.grad.clone()
    g = a.grad
    (a * 3).sum().backward()
    return {"first": first, "second": a.grad, "same_object": g is a.grad}


def s_second_backward(lib):
    a = leaf(lib, [1.0, 2.0])
    y = (a * a).sum()
    y.backward()
    err = raises(lambda: y.backward())
    z = (a + a).sum()
    z.backward()
    ok = raises(lambda: z.backward())  # nothing saved: a second pass works
    w = (a * a).sum()
    w.backward(retain_graph=True)
    w.backward()
    return {"err": err, "no_saved": ok, "grad": a.grad}


def s_backward_errors(lib):
    a = leaf(lib, [1.0, 2.0])
    return {"nonscalar": raises(lambda: (a * 2).backward()),
            "no_grad": raises(lambda: lib.ones(2).sum().backward()),
            "shape": raises(lambda: (a * 2).backward(lib.ones(3, dtype=lib.float64))),
            "unused": raises(lambda: lib.autograd.grad((a * 2).sum(), [a, leaf(lib, [1.0])])),
            "out_arg": raises(lambda: lib.mul(a, a, out=lib.empty(2, dtype=lib.float64)))}


def s_grad_fn_call(lib):
    a = leaf(lib, [1.0, 2.0, 3.0])
    b = leaf(lib, [0.5, 0.5, 0.5])
    y = (a * b).sum()
    ga, gb = lib.autograd.grad(y, [a, b], create_graph=True)
    g2, = lib.autograd.grad(ga.sum(), b)
    unused = lib.autograd.grad((a * 2).sum(), [a, b], allow_unused=True)
    return {"ga": ga, "gb": gb, "g2": g2, "ga_req": ga.requires_grad, "a.grad": a.grad is None,
            "unused_none": unused[1] is None}


def s_higher_order(lib):
    x = leaf(lib, [0.3, -1.2])
    y = (x * x * x).sum()
    g, = lib.autograd.grad(y, x, create_graph=True)
    h, = lib.autograd.grad(g.sum(), x, create_graph=True)
    t, = lib.autograd.grad(h.sum(), x)
    return {"g": g, "h": h, "t": t}


def s_retain_grad(lib):
    a = leaf(lib, [1.0, 2.0])
    b = a * 2
    b.retain_grad()
    c = b * b
    c.sum().backward()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        c_grad = c.grad
    return {"b.grad": b.grad, "b.retains": b.retains_grad, "a.retains": a.retains_grad,
            "c.grad_is_none": c_grad is None, "warned": len(w) == 1}


def s_hooks(lib):
    a = leaf(lib, [1.0, 2.0])
    b = a * 3
    seen = []
    b.register_hook(lambda g: seen.append(g.clone()))
    b.register_hook(lambda g: g * 10)
    h = a.register_hook(lambda g: g + 1)
    (b * b).sum().backward()
    first = a.grad.clone()
    h.remove()
    a.grad = None
    c = a * 1
    c.register_hook(lambda g: g[:1])
    return {"seen": seen[0], "a.grad": first,
            "bad_hook": raises(lambda: c.sum().backward())}


def s_seed000_view_of_leaf(lib):
    a = lib.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    b = a.view(2, 2)

    def add_inplace():
        b[:, 0] += 5

    def assign():
        b[:, 0] = 5

    c = b[:, 0] + 5
    return {"iadd": raises(add_inplace), "assign": raises(assign), "c": c.detach(),
            "c_name": name(c), "leaf_inplace": raises(lambda: a.add_(1)),
            "version": a._version}


def s_no_grad_update(lib):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    with lib.no_grad():
        a.add_(1)
        b = a * 2
    return {"a": a.detach(), "version": a._version, "b_req": b.requires_grad,
            "a_leaf": a.is_leaf}


def s_saved_tensor_modified(lib):
    a = leaf(lib, [1.0, 2.0])
    y = a.sigmoid()
    y.add_(1)
    err = raises(lambda: y.sum().backward())
    b = a * 1
    z = b * b
    b.mul_(2)
    err2 = raises(lambda: z.sum().backward())
    e = a.exp()
    f = e * 2  # mul by a number saves nothing, but exp saved its output ``e``
    e.add_(1)
    err3 = raises(lambda: f.sum().backward())
    g = a * 1
    h = g * 2  # nothing in this chain saved ``g``: writing into it is harmless
    g.add_(1)
    h.sum().backward()
    return {"sigmoid": err, "mul_input": err2, "exp_output": err3,
            "versions": [y._version, b._version], "f_name": name(f), "grad": a.grad}


def s_inplace_on_view_of_nonleaf(lib):
    a = leaf(lib, [1.0, 2.0, 3.0, 4.0])
    b = a * 1
    v = b[1:3]
    w = b[0]
    v.mul_(3)
    names = [name(v), name(b), name(w)]
    b[0] = 7.0
    names.append(name(b))
    (b * b).sum().backward()
    return {"names": names, "a.grad": a.grad, "versions": [b._version, v._version]}


def s_setitem_tensor_value(lib):
    x = leaf(lib, [1.0, 2.0, 3.0])
    base = lib.zeros(4, dtype=lib.float64)
    base[1:] = x * 2
    base.sum().backward()
    y = leaf(lib, [[1.0, 2.0], [3.0, 4.0]])
    z = y * 1
    z[lib.tensor([0, 1]), lib.tensor([1, 0])] = 0.0
    z.sum().backward()
    return {"x.grad": x.grad, "base_req": base.requires_grad, "name": name(base),
            "y.grad": y.grad, "z_name": name(z)}


def s_detach(lib):
    a = leaf(lib, [1.0, 2.0])
    b = a * 2
    d = b.detach()
    d.add_(1)
    shared = b._version == d._version
    v = b[0:1]
    return {"shared_version": shared, "d_req": d.requires_grad, "d_leaf": d.is_leaf,
            "detach_view": raises(lambda: v.detach_()),
            "detach_plain_view": raises(lambda: lib.ones(3)[:2].detach_()),
            "data_version": b.data._version,
            "detach_inplace": raises(lambda: (a * 3).detach_())}


def s_data_silently_wrong(lib):
    a = leaf(lib, [1.0, 2.0])
    y = a.sigmoid()
    y.data.mul_(0)  # invisible to the version check: the gradient is silently wrong
    y.sum().backward()
    return {"grad": a.grad, "version": y._version}


def s_copy_and_clone(lib):
    a = leaf(lib, [1.0, 2.0])
    c = lib.zeros(2, dtype=lib.float64)
    c.copy_(a * 2)
    n = name(c)
    c.sum().backward()
    return {"name": n, "a.grad": a.grad, "clone": name(a.clone())}


def s_inference_mode(lib):
    a = leaf(lib, [1.0, 2.0])
    with lib.inference_mode():
        x = lib.ones(2, dtype=lib.float64)
        y = a * 2
        v = x[:1]
        av = a[:1]
        inside = lib.is_inference_mode_enabled()
    return {"x_inf": x.is_inference(), "y_req": y.requires_grad, "inside": inside,
            "views": [v.is_inference(), av.is_inference(), av.requires_grad, av.is_leaf],
            "grad_enabled": lib.is_grad_enabled(), "save": raises(lambda: (x * a).sum()),
            "inplace": raises(lambda: x.add_(1)), "a_inf": a.is_inference()}


def s_grad_mode_decorators(lib):
    @lib.no_grad()
    def f(t):
        return t * 2

    @lib.enable_grad()
    def g(t):
        return t * 2

    @lib.inference_mode()
    def h(t):
        return t * 2

    a = leaf(lib, [1.0])
    with lib.no_grad():
        inner = g(a).requires_grad
    return {"f": f(a).requires_grad, "g_in_no_grad": inner, "h": h(a).requires_grad,
            "set": lib.set_grad_enabled(False) is not None and not lib.is_grad_enabled(),
            "restored": (lib.set_grad_enabled(True), lib.is_grad_enabled())[1]}


def s_backward_inputs(lib):
    a = leaf(lib, [1.0, 2.0])
    b = leaf(lib, [3.0, 4.0])
    (a * b).sum().backward(inputs=[a])
    return {"a.grad": a.grad, "b.grad_none": b.grad is None}


def s_function(lib):
    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            ctx.save_for_backward(x)
            ctx.k = k
            return x ** 3 * k

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return g * 3 * x ** 2 * ctx.k, None

    a = leaf(lib, [1.0, 2.0])
    y = Cube.apply(a, 2.0)
    n = name(y)
    y.sum().backward()
    return {"y": y.detach(), "name": n, "grad": a.grad, "leaf": y.is_leaf}


def s_max_ties(lib):
    a = leaf(lib, [1.0, 3.0, 3.0, 2.0])
    a.max().backward()
    b = leaf(lib, [[1.0, 3.0], [3.0, 3.0]])
    b.max(1).values.sum().backward()
    return {"a.grad": a.grad, "b.grad": b.grad}


def s_where_nan(lib):
    x = leaf(lib, [0.0, 1.0, 4.0])
    y = lib.where(x > 0, x.sqrt(), lib.zeros_like(x))
    y.sum().backward()
    z = leaf(lib, [0.0, 1.0])
    w = lib.where(z > 0, 1 / z, z)
    w.sum().backward()
    return {"x.grad": x.grad, "z.grad": z.grad}


def s_broadcast_reduced(lib):
    a = leaf(lib, [[1.0], [2.0]])
    b = leaf(lib, [1.0, 2.0, 3.0])
    (a * b).sum().backward()
    return {"a.grad": a.grad, "b.grad": b.grad}


def s_matmul_cases(lib):
    out = {}
    shapes = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 2)), ((2, 3), (3, 4)),
              ((2, 2, 3), (3, 4)), ((2, 1, 2, 3), (3, 3, 2))]
    for i, (sa, sb) in enumerate(shapes):
        a = lib.arange(1.0, 1.0 + _numel(sa), dtype=lib.float64).reshape(sa).requires_grad_()
        b = lib.arange(0.5, 0.5 + _numel(sb), dtype=lib.float64).reshape(sb).requires_grad_()
        y = a @ b
        y.sum().backward()
        out[f"{i}"] = (a.grad, b.grad)
        out[f"{i}_name"] = name(y)
    return out


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def s_many_uses(lib):
    a = leaf(lib, [2.0])
    y = a
    for _ in range(5):
        y = y * a + a
    y.backward()
    return {"grad": a.grad}


def s_nonleaf_grad_warning(lib):
    a = leaf(lib, [1.0])
    b = a * 2
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        _ = b.grad
        _ = a.grad
    return {"warnings": len(w), "category": w[0].category.__name__ if w else None}


def s_version_counts(lib):
    a = lib.zeros(4, dtype=lib.float64)
    v = a[1:3]
    v.add_(1)
    a.mul_(2)
    v[0] = 3
    d = a.detach()
    d.zero_()
    return {"a": a._version, "v": v._version, "d": d._version, "data": a.data._version}


def s_optimizer_style_loop(lib):
    w = leaf(lib, [1.0, -2.0, 0.5])
    x = lib.tensor([[1.0, 2.0, 3.0], [0.5, 0.0, -1.0]], dtype=lib.float64)
    versions = []
    for _ in range(3):
        loss = ((x @ w) ** 2).mean()
        loss.backward()
        with lib.no_grad():
            w -= 0.1 * w.grad
        versions.append(w._version)
        w.grad.zero_()
    return {"w": w.detach(), "versions": versions, "grad": w.grad, "leaf": w.is_leaf}


def s_requires_grad_rules(lib):
    a = leaf(lib, [1.0, 2.0])
    b = a * 2
    d = b.detach().requires_grad_()
    return {"nonleaf_off": raises(lambda: b.requires_grad_(False)),
            "nonleaf_on": raises(lambda: b.requires_grad_(True)),
            "d_leaf": d.is_leaf, "d_req": d.requires_grad,
            "set_attr": raises(lambda: setattr(b, "requires_grad", False))}


def s_grad_outputs_and_nonleaf_inputs(lib):
    a = leaf(lib, [1.0, 2.0, 3.0])
    h = a * a
    y = (h * 3).sum()
    gh, = lib.autograd.grad(y, h, retain_graph=True)
    ga, gh2 = lib.autograd.grad([h.sum(), y], [a, h], allow_unused=True, retain_graph=True)
    z = a * 2
    g, = lib.autograd.grad(z, a, grad_outputs=lib.tensor([1.0, 0.5, 0.25], dtype=lib.float64))
    y.backward(inputs=[h])
    return {"gh": gh, "ga": ga, "gh2": gh2, "g": g, "a.grad_none": a.grad is None}


def s_inplace_chain_versions(lib):
    a = leaf(lib, [1.0, 2.0, 3.0])
    b = a.clone()
    b.mul_(2).add_(1)
    b.exp_()
    v = b[1:]
    v.sub_(1)
    names = [name(b), name(v)]
    stale = raises(lambda: b.sum().backward())  # exp_ saved its output; sub_ changed it
    c = a.clone()
    c.mul_(2).add_(1)
    c[1:].sub_(1)
    (c * c).sum().backward()
    return {"names": names, "stale": stale, "grad": a.grad, "version": b._version}


def s_view_then_base_write(lib):
    a = leaf(lib, [1.0, 2.0, 3.0, 4.0])
    b = a * 1
    v = b.view(2, 2)
    r = v[0]
    b.mul_(2)
    names = [name(v), name(r)]
    (r * r).sum().backward()
    return {"names": names, "grad": a.grad}


def s_retain_grad_through_inplace(lib):
    a = leaf(lib, [1.0, 2.0])
    b = a * 2
    b.retain_grad()
    b.add_(1)
    (b * b).sum().backward()
    return {"b.grad": b.grad, "a.grad": a.grad}


def s_zero_size_and_scalar(lib):
    a = leaf(lib, 3.0)
    (a * a).backward()
    e = lib.zeros(0, dtype=lib.float64, requires_grad=True)
    e.sum().backward()
    return {"a.grad": a.grad, "e.grad": e.grad}


def s_scalar_leaves_broadcast_then_step(lib):
    # The fit-a-polynomial pattern of introductory courses: 0-d parameters broadcast over the
    # data, one backward, a hand-written update and an optimizer step.
    x = lib.linspace(-1.0, 1.0, 7, dtype=lib.float64)
    a = lib.tensor(0.5, dtype=lib.float64, requires_grad=True)
    b = lib.tensor(-0.25, dtype=lib.float64, requires_grad=True)
    c = lib.tensor(2.0, dtype=lib.float64, requires_grad=True)
    loss = (a + b * x + c * x ** 2 - x.sin()).pow(2).sum()
    loss.backward()
    shapes = [tuple(p.grad.shape) for p in (a, b, c)]
    with lib.no_grad():
        a -= 0.1 * a.grad
    opt = lib.optim.SGD([b, c], lr=0.1, momentum=0.9)
    opt.step()
    d = lib.tensor(1.5, dtype=lib.float64, requires_grad=True)
    (d * x).sum().backward()
    e = lib.tensor(1.5, dtype=lib.float64, requires_grad=True)
    (x + e).sum().backward()
    return {"shapes": shapes, "a": a, "b": b, "c": c, "d.grad": d.grad, "e.grad": e.grad}


def s_reflected_operators_put_the_tensor_first(lib):
    # ``2 * b`` is ``b.__rmul__(2)``, PyTorch's ``mul(b, 2)``: b's edge comes first.
    b = leaf(lib, [0.5, 1.5]).sin()
    out = {}
    for label, c in (("2*b", 2 * b), ("2.5+b", 2.5 + b), ("b*2", b * 2), ("True*b", True * b)):
        out[label] = [f[0].name().rsplit("::", 1)[-1] if f[0] is not None else None
                      for f in c.grad_fn.next_functions]
    return out


def s_transpose_properties_are_recorded(lib):
    # x.T, x.mT, x.H, x.mH are views that autograd records (x.T is a permute, as NumPy's T).
    a = leaf(lib, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]) * 2
    c = lib.tensor([[1 + 2j, 3 - 1j]], dtype=lib.complex128, requires_grad=True) * 1
    out = {}
    for label, v in (("T", a.T), ("mT", a.mT), ("H", a.H), ("mH", a.mH), ("cT", c.T)):
        out[label] = (name(v), tuple(v.shape), v._is_view())
    # (A complex H/mH is a view with PyTorch's lazy conjugate bit; jtensor conjugates eagerly.)
    for label, v in (("cH", c.H), ("cmH", c.mH)):
        out[label] = (name(v), tuple(v.shape))
    w = leaf(lib, [[1.0, 2.0], [3.0, 4.0]])
    (w.T * lib.tensor([[1.0, 10.0], [100.0, 1000.0]], dtype=lib.float64)).sum().backward()
    out["grad"] = w.grad
    return out


SCRIPTS = {name_: fn for name_, fn in sorted(globals().items()) if name_.startswith("s_")}
