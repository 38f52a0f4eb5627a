"""Differences a fifth batch of real teaching programs found, each checked against PyTorch:
``reversed(t)``, a custom Function's gradient for an input that needs none, a custom
Function under ``vmap`` without vmap support, parameter containers' reprs and old code's
``torch.sparse.torch``."""

import pytest

import jtensor

torch = pytest.importorskip("torch")


def test_reversed_is_flip_of_dim_0():
    # (a bidirectional RNN's scratch implementation runs its backward cell on reversed(x))
    seen = []
    for lib in (torch, jtensor):
        x = lib.arange(6.0).reshape(2, 3).t().requires_grad_()
        r = reversed(x)
        s = lib.tensor(2.0)
        seen.append((r.tolist(), r.stride(), r.grad_fn.name(), reversed(s) is s))
    assert seen[0] == seen[1]
    assert seen[0][0] == [[2.0, 5.0], [1.0, 4.0], [0.0, 3.0]]


def _function(lib, wrong_shape):
    class Step(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, t):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            # the gradient for ``t`` has a shape ``t`` cannot take
            return g * 2, lib.ones(*wrong_shape)

    return Step


@pytest.mark.parametrize("t_requires_grad", [False, True])
def test_a_gradient_for_an_input_that_needs_none_is_not_checked(t_requires_grad):
    """An ODE adjoint's backward returns a time gradient of another shape than ``t``, which
    needs none: PyTorch ignores it; once ``t`` requires grad, both raise the same error."""
    outcomes = []
    for lib in (torch, jtensor):
        x = lib.ones(3, requires_grad=True)
        t = lib.ones(2, requires_grad=t_requires_grad)
        try:
            _function(lib, (5, 7)).apply(x, t).sum().backward()
            outcomes.append(x.grad.tolist())
        except RuntimeError as e:
            outcomes.append(str(e).split(" - ")[1])
    assert outcomes[0] == outcomes[1]
    assert (outcomes[0] == [2.0, 2.0, 2.0]) is not t_requires_grad


def _cube(lib, style):
    if style == "old":

        class Cube(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x**3

            @staticmethod
            def backward(ctx, g):
                return g

        return Cube

    class Cube(lib.autograd.Function):
        generate_vmap_rule = style in ("generated", "both")

        @staticmethod
        def forward(x):
            return x**3

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0])

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 3 * g * x**2

        if style in ("rule", "both"):

            @staticmethod
            def vmap(info, in_dims, x):
                return x**3, in_dims[0]

    return Cube


@pytest.mark.parametrize("style", ["old", "no_rule", "both", "generated", "rule"])
def test_a_custom_function_under_vmap_needs_vmap_support(style):
    outcomes = []
    for lib in (torch, jtensor):
        x = lib.tensor([1.0, -2.0, 0.5])
        try:
            outcomes.append(lib.vmap(_cube(lib, style).apply)(x).tolist())
        except RuntimeError as e:
            outcomes.append(str(e))
    assert outcomes[0] == outcomes[1]
    assert isinstance(outcomes[0], list) == (style in ("generated", "rule"))


def test_function_vmap_default_raises_as_pytorchs():
    outcomes = []
    for lib in (torch, jtensor):
        with pytest.raises(NotImplementedError) as info:
            lib.autograd.Function.vmap(None, (0,), lib.ones(2))
        outcomes.append(str(info.value))
    assert outcomes[0] == outcomes[1]


def test_parameter_containers_print_their_parameters():
    shown = []
    for lib in (torch, jtensor):
        m = lib.nn.Module()
        m.pl = lib.nn.ParameterList(
            [
                lib.nn.Parameter(lib.ones(4, 8)),
                lib.nn.Parameter(lib.ones(3, dtype=lib.float64)),
                lib.ones(2),
            ]
        )
        m.pd = lib.nn.ParameterDict(
            {"a": lib.nn.Parameter(lib.ones(2, 3)), "b": lib.ones(0, dtype=lib.float16)}
        )
        m.empty = lib.nn.ParameterList()
        shown.append(repr(m))
    assert shown[0] == shown[1]
    assert "(1): Parameter containing: [torch.float64 of size 3]" in shown[1]


def test_old_code_reaches_the_package_through_sparse_and_functional():
    assert jtensor.sparse.torch is jtensor and torch.sparse.torch is torch
    assert jtensor.nn.functional.torch is jtensor and torch.nn.functional.torch is torch
    labels = jtensor.tensor([2, 0])
    picked = jtensor.sparse.torch.eye(3).index_select(dim=0, index=labels)
    assert picked.tolist() == [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]


def _scalar_tensor_class(lib):
    """The tensor-like of PyTorch's "Extending torch" notes: no Tensor, but every torch
    function that gets one asks its ``__torch_function__``."""
    handled = {}

    class Diagonal:
        def __init__(self, n, value):
            self.n, self.value = n, value

        def tensor(self):
            return self.value * lib.eye(self.n)

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            if func not in handled or not all(issubclass(t, (lib.Tensor, cls)) for t in types):
                return NotImplemented
            return handled[func](*args, **kwargs)

    def mean(input):
        return float(input.value) / input.n

    def add(input, other, alpha=1):
        if isinstance(other, Diagonal):
            return Diagonal(input.n, input.value + alpha * other.value)
        return lib.add(input.tensor(), other, alpha=alpha)

    handled[lib.mean] = mean
    handled[lib.add] = add
    return Diagonal


def test_torch_function_of_an_object_that_is_no_tensor():
    seen = []
    for lib in (torch, jtensor):
        Diagonal = _scalar_tensor_class(lib)
        d = Diagonal(4, 2.0)
        both = lib.add(d, Diagonal(4, 1.0), alpha=3)
        mixed = lib.add(d, lib.ones(4, 4))
        try:
            lib.mul(d, 3)
            refused = None
        except TypeError as e:
            refused = str(e).replace("jtensor.", "torch.")
        seen.append(
            (lib.mean(d), both.value, mixed.tolist(), refused, lib.mean(lib.ones(3)).item())
        )
    assert seen[0] == seen[1]
    assert seen[0][0] == 0.5 and seen[0][1] == 5.0 and "Multiple dispatch failed" in seen[0][3]


def test_distribution_parameters_given_as_numbers_take_the_default_dtype():
    # ``Normal(0, 1.0)``: an int and a float, no tensor (a neural ODE tutorial samples it)
    seen = []
    for lib in (torch, jtensor):
        n = lib.distributions.Normal(0, 1.0)
        b = lib.distributions.Bernoulli(probs=1)
        lib.manual_seed(0)
        seen.append((str(n.loc.dtype), str(n.sample((2,)).dtype), str(b.probs.dtype)))
    assert seen[0] == seen[1] == (("torch.float32",) * 3)


def test_overrides_helpers_answer_as_pytorchs():
    seen = []
    for lib in (torch, jtensor):
        Diagonal = _scalar_tensor_class(lib)
        d = Diagonal(2, 1.0)
        t = lib.ones(2)
        p = lib.nn.Parameter(lib.ones(2))
        ov = lib.overrides
        functions = ov.get_overridable_functions()
        adaptive = sorted(
            f.__name__ for f in functions[lib.nn.functional] if f.__name__.startswith("adaptive_")
        )[:5]
        seen.append(
            (
                ov.is_tensor_like(d),
                ov.is_tensor_like(t),
                ov.is_tensor_like(3),
                ov.has_torch_function((d,)),
                ov.has_torch_function((t, p)),
                ov.has_torch_function_unary(t),
                ov.has_torch_function_variadic(t, d),
                adaptive,
                ov.get_testing_overrides()[lib.add](1, 2),
                ov.handle_torch_function(lib.mean, (d,), d),
                ov.is_tensor_method_or_property(lib.Tensor.add),
                ov.is_tensor_method_or_property(lib.add),
            )
        )
    assert seen[0] == seen[1]
    assert seen[0][9] == 0.5
