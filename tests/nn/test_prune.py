"""``nn.utils.prune`` against PyTorch: masks (random ones from the same seed, L1's choice
among equal magnitudes), the reparametrization (``<name>_orig`` parameter, ``<name>_mask``
buffer, plain ``<name>`` attribute, the pre-hook), iterative pruning through
``PruningContainer``, ``global_unstructured``, ``remove``, ``state_dict`` keys, forward
outputs and gradients through pruned weights, and the errors (types and messages)."""

import re

import numpy as np
import pytest

import jtensor
from tests.harness.conformance import cuda_skip, skip_on_cuda

torch = pytest.importorskip("torch")
pytest.importorskip("torch.nn.utils.prune")  # (torch.nn.utils does not import it)

pytestmark = pytest.mark.devices


def _prune(lib):
    return lib.nn.utils.prune


def _np(t):
    return t.detach().cpu().numpy()


def _same(a, b, tol=1e-6):
    """Values of a jtensor and a PyTorch result (tensors, or nested lists/tuples/dicts of
    them and plain values) agree."""
    if isinstance(b, dict):
        assert list(a) == list(b)
        for k in b:
            _same(a[k], b[k], tol)
    elif isinstance(b, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            _same(x, y, tol)
    elif hasattr(b, "detach"):
        assert tuple(a.shape) == tuple(b.shape)
        assert str(a.dtype) == str(b.dtype)
        np.testing.assert_allclose(_np(a), _np(b), rtol=tol, atol=tol)
    else:
        assert a == b


# Random masks and initialisations come from PyTorch's CPU generator in the oracle.
_RANDOM = cuda_skip("the oracle draws from PyTorch's CPU generator")


def _both(build):
    """``build(lib)`` for jtensor and for PyTorch, each after ``manual_seed(0)`` (so the
    default initialisations and the random masks draw the same numbers)."""
    out = []
    for lib in (jtensor, torch):
        lib.manual_seed(0)
        out.append(build(lib))
    return out


class _LeNet:
    """The pruning tutorial's model, for either library."""

    def __new__(cls, lib):
        nn = lib.nn

        class LeNet(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv1 = nn.Conv2d(1, 6, 3)
                self.conv2 = nn.Conv2d(6, 16, 3)
                self.fc1 = nn.Linear(16 * 5 * 5, 120)
                self.fc2 = nn.Linear(120, 84)
                self.fc3 = nn.Linear(84, 10)

            def forward(self, x):
                F = lib.nn.functional
                x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
                x = F.max_pool2d(F.relu(self.conv2(x)), 2)
                x = x.view(-1, int(x.nelement() / x.shape[0]))
                return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x)))))

        return LeNet()


def _layout(module):
    """What pruning changes in a module's structure: parameter and buffer names, state_dict
    keys, the pre-hooks' classes, whether each name is a plain attribute."""
    return (
        [n for n, _ in module.named_parameters()],
        [n for n, _ in module.named_buffers()],
        list(module.state_dict()),
        [type(h).__name__ for h in module._forward_pre_hooks.values()],
        sorted(n for n in ("weight", "bias") if n in vars(module)),
    )


@_RANDOM
def test_the_tutorial_on_lenet():
    """The official tutorial's steps: random then L1 pruning of conv1, an Ln-structured
    pruning on top (a container of both), remove, per-layer and global pruning, a custom
    method; every mask, name and output as in PyTorch."""

    def build(lib):
        prune = _prune(lib)
        model = _LeNet(lib)
        module = model.conv1
        seen = [_layout(module)]
        prune.random_unstructured(module, name="weight", amount=0.3)
        seen += [_layout(module), module.weight_mask, module.weight]
        prune.l1_unstructured(module, name="bias", amount=3)
        seen += [_layout(module), module.bias_mask, module.bias]
        prune.ln_structured(module, name="weight", amount=0.5, n=2, dim=0)
        hook = next(h for h in module._forward_pre_hooks.values() if h._tensor_name == "weight")
        seen += [_layout(module), module.weight_mask, [type(m).__name__ for m in hook]]
        seen += [list(model.state_dict())]
        prune.remove(module, "weight")
        seen += [_layout(module), module.weight, type(module.weight).__name__]

        fresh = _LeNet(lib)
        for _, m in fresh.named_modules():
            if isinstance(m, lib.nn.Conv2d):
                prune.l1_unstructured(m, name="weight", amount=0.2)
            elif isinstance(m, lib.nn.Linear):
                prune.l1_unstructured(m, name="weight", amount=0.4)
        seen += [list(dict(fresh.named_buffers())), [b for _, b in fresh.named_buffers()]]

        glob = _LeNet(lib)
        pairs = [(getattr(glob, n), "weight") for n in ("conv1", "conv2", "fc1", "fc2", "fc3")]
        prune.global_unstructured(pairs, pruning_method=prune.L1Unstructured, amount=0.2)
        seen += [[int((m.weight == 0).sum()) for m, _ in pairs]]
        x = lib.randn(2, 1, 28, 28)
        seen += [glob(x), prune.is_pruned(glob), prune.is_pruned(_LeNet(lib))]
        return seen

    _same(*_both(build))


def _pruned_twice(lib, out_features):
    """A ``Linear(4, out_features)`` whose weight went through L1 then random pruning (so
    its hook is a ``PruningContainer``)."""
    m = lib.nn.Linear(4, out_features)
    _prune(lib).l1_unstructured(m, "weight", 0.5)
    _prune(lib).random_unstructured(m, "weight", 1)
    return m


def test_forward_pre_hooks_print_as_pytorch():
    def build(lib):
        text = repr(_pruned_twice(lib, 2)._forward_pre_hooks)
        text = re.sub(r"\((\d+), ", "(ID, ", text)  # (hook ids count every hook made so far)
        return re.sub(r"0x[0-9a-f]+", "ADDR", text.replace("jtensor.", "torch."))

    mine, theirs = _both(build)
    assert mine == theirs
    assert "torch.nn.utils.prune.PruningContainer object" in mine


@_RANDOM
@pytest.mark.parametrize("amount", [0, 1, 5, 12, 0.0, 0.25, 0.5, 1.0])
def test_random_unstructured_draws_as_pytorch(amount):
    def build(lib):
        m = lib.nn.Linear(4, 3)
        _prune(lib).random_unstructured(m, "weight", amount=amount)
        return m.weight_mask, m.weight, lib.rand(2)  # (the generator is left as PyTorch's)

    _same(*_both(build))


@_RANDOM
@pytest.mark.parametrize("dim", [0, 1, -1, 2, -3])
@pytest.mark.parametrize("amount", [0, 1, 2, 0.5, 0.7])
def test_random_structured_draws_as_pytorch(dim, amount):
    def build(lib):
        m = lib.nn.Conv2d(3, 4, 2)
        _prune(lib).random_structured(m, "weight", amount=amount, dim=dim)
        return m.weight_mask, lib.rand(2)

    _same(*_both(build))


@pytest.mark.parametrize("n", [1, 2, 3, float("inf"), float("-inf"), "fro", 0.5])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_ln_structured(n, dim):
    def build(lib):
        # ("fro" over more than two dims is matrix_norm's error, tested below)
        m = lib.nn.Linear(4, 5) if n == "fro" else lib.nn.Conv2d(3, 5, 2)
        _prune(lib).ln_structured(m, "weight", amount=0.4, n=n, dim=dim)
        return m.weight_mask, m.weight

    _same(*_both(build))


@pytest.mark.parametrize("amount", [0, 3, 11, 12, 0.1, 0.5, 1.0])
def test_l1_unstructured(amount):
    def build(lib):
        m = lib.nn.Linear(4, 3)
        _prune(lib).l1_unstructured(m, "weight", amount=amount)
        return m.weight_mask, m.weight, _layout(m)

    _same(*_both(build))


@pytest.mark.parametrize("size", [10, 70, 200, 1000])
def test_l1_pruning_picks_pytorchs_entries_among_equal_magnitudes(size):
    """PyTorch picks the smallest magnitudes with ``topk(..., largest=False)`` on the CPU,
    which leaves the choice among equal values to libstdc++'s unstable selection
    (``nth_element``, or ``partial_sort`` when 64 * k <= n); jtensor's ``topk`` replays it."""
    skip_on_cuda("PyTorch's CPU topk kernel breaks the ties")
    values = np.random.default_rng(size).integers(-3, 4, size).astype(np.float32)
    for amount in (1, 2, 3, size // 10, size // 3, 0.5, size - 1):

        def build(lib, amount=amount):
            m = lib.nn.Linear(size, 1, bias=False)
            with lib.no_grad():
                m.weight.copy_(lib.tensor(values).view(1, size))
            _prune(lib).l1_unstructured(m, "weight", amount=amount)
            # and again: the container prunes among the entries left
            _prune(lib).l1_unstructured(m, "weight", amount=0.3)
            return m.weight_mask

        _same(*_both(build))


def test_importance_scores():
    def build(lib):
        prune = _prune(lib)
        m = lib.nn.Conv2d(2, 4, 2)
        scores = lib.arange(32.0).view(4, 2, 2, 2).flip(0)
        prune.l1_unstructured(m, "weight", amount=5, importance_scores=scores)
        prune.ln_structured(m, "weight", 1, n=1, dim=0, importance_scores=scores.flip(1))
        w = lib.nn.Linear(3, 2)
        prune.L1Unstructured.apply(w, "weight", 2, importance_scores=-w.weight.detach())
        return m.weight_mask, w.weight_mask

    _same(*_both(build))


@_RANDOM
def test_iterative_pruning_goes_through_a_container():
    def build(lib):
        prune = _prune(lib)
        m = lib.nn.Conv2d(2, 6, 3)
        prune.random_structured(m, "weight", amount=2, dim=0)
        first = m.weight_mask.clone()
        prune.l1_unstructured(m, "weight", amount=0.25)
        prune.ln_structured(m, "weight", amount=1, n=1, dim=0)
        prune.random_unstructured(m, "weight", amount=5)
        prune.identity(m, "bias")
        prune.custom_from_mask(m, "bias", mask=lib.tensor([1, 0, 1, 1, 0, 1]))
        hooks = list(m._forward_pre_hooks.values())
        container = hooks[0]
        return (
            first,
            m.weight_mask,
            m.bias_mask,
            len(container),
            [type(h).__name__ for h in container],
            [type(h).__name__ for h in hooks],
            [h._tensor_name for h in container],
            container[1].amount,
            _layout(m),
        )

    _same(*_both(build))


@pytest.mark.parametrize("amount", [0, 10, 0.3, 1.0])
def test_global_unstructured(amount):
    def build(lib):
        prune = _prune(lib)
        a, b = lib.nn.Linear(5, 4), lib.nn.Conv2d(2, 3, 2)
        prune.l1_unstructured(a, "weight", 3)  # a mask already there is respected
        pairs = ((a, "weight"), (b, "weight"), (b, "bias"))
        scores = {(b, "bias"): lib.tensor([10.0, 0.0, 10.0])}
        prune.global_unstructured(
            pairs, prune.L1Unstructured, importance_scores=scores, amount=amount
        )
        prune.global_unstructured([(a, "bias")], prune.RandomUnstructured, amount=2)
        return (a.weight_mask, b.weight_mask, b.bias_mask, a.bias_mask, _layout(a), _layout(b))

    _same(*_both(build))


def test_remove_makes_the_pruning_permanent():
    def build(lib):
        prune = _prune(lib)
        m = _pruned_twice(lib, 3)
        orig = m.weight_orig
        prune.remove(m, "weight")
        kept = m.weight is orig
        return (
            m.weight,
            type(m.weight).__name__,
            m.weight.requires_grad,
            kept,
            _layout(m),
            prune.is_pruned(m),
        )

    _same(*_both(build))


def test_state_dict_round_trip_between_pruned_models():
    def build(lib):
        prune = _prune(lib)
        src, dst = lib.nn.Linear(4, 3), lib.nn.Linear(4, 3)
        prune.l1_unstructured(src, "weight", 0.5)
        prune.identity(dst, "weight")
        state = src.state_dict()
        dst.load_state_dict(state)
        x = lib.linspace(-1, 1, 8).view(2, 4)
        return list(state), dst.weight_mask, dst(x), src(x)  # the hook recomputes dst.weight

    _same(*_both(build))


def test_forward_and_gradients_through_pruned_weights():
    def build(lib):
        prune = _prune(lib)
        m = lib.nn.Linear(6, 4)
        prune.random_unstructured(m, "weight", 0.5)
        prune.l1_unstructured(m, "bias", 2)
        x = lib.linspace(-2, 2, 18).view(3, 6).requires_grad_()
        y = m(x)
        (y * y).sum().backward()
        return (
            y,
            x.grad,
            m.weight_orig.grad,
            m.bias_orig.grad,
            m.weight.grad_fn.name(),
            m.weight.is_leaf,
            m.weight_mask.requires_grad,
            m.weight_mask,
        )

    mine, theirs = _both(build)
    _same(mine, theirs, tol=1e-5)
    pruned = _np(mine[-1]) == 0
    assert pruned.any() and (_np(mine[2])[pruned] == 0).all()


def test_gradcheck_of_a_pruned_linear():
    prune = _prune(jtensor)
    m = jtensor.nn.Linear(5, 3).double()
    prune.random_unstructured(m, "weight", 0.4)
    prune.l1_unstructured(m, "bias", 1)
    x = jtensor.randn(4, 5, dtype=jtensor.float64, requires_grad=True)
    # gradcheck nudges weight_orig/bias_orig in place; the pre-hook reads them every call
    assert jtensor.autograd.gradcheck(lambda x, w, b: m(x), (x, m.weight_orig, m.bias_orig))
    assert jtensor.autograd.gradgradcheck(lambda x, w, b: m(x), (x, m.weight_orig, m.bias_orig))
    m(x).sum().backward()
    assert (m.weight_orig.grad.cpu().numpy()[m.weight_mask.cpu().numpy() == 0] == 0).all()


@_RANDOM
def test_prune_and_methods_without_a_module():
    def build(lib):
        prune = _prune(lib)
        t = lib.arange(12.0).view(3, 4) - 5
        return (
            prune.L1Unstructured(amount=4).prune(t),
            prune.L1Unstructured(0.5).prune(t, importance_scores=-t),
            prune.RandomUnstructured(3).prune(t, default_mask=lib.ones(3, 4)),
            prune.LnStructured(1, n=1, dim=1).prune(t),
            prune.RandomStructured(0.5, dim=0).compute_mask(t, lib.ones(3, 4)),
            prune.Identity().prune(t),
            prune.CustomFromMask(lib.tensor([[1, 0, 1, 0]] * 3)).prune(t),
            [
                c.PRUNING_TYPE
                for c in (
                    prune.Identity,
                    prune.RandomUnstructured,
                    prune.L1Unstructured,
                    prune.RandomStructured,
                    prune.LnStructured,
                    prune.CustomFromMask,
                )
            ],
        )

    _same(*_both(build))


def test_a_user_defined_method():
    def build(lib):
        prune = _prune(lib)

        class EveryOther(prune.BasePruningMethod):
            PRUNING_TYPE = "unstructured"

            def compute_mask(self, t, default_mask):
                mask = default_mask.clone()
                mask.view(-1)[::2] = 0
                return mask

        m = lib.nn.Linear(3, 5)
        EveryOther.apply(m, "bias")
        EveryOther.apply(m, "bias")  # the container hands it the entries still alive
        return m.bias_mask, m.bias, _layout(m)

    _same(*_both(build))


def _message(exc):
    text = re.sub(r"0x[0-9a-f]+", "ADDR", str(exc))
    return text.replace("jtensor.", "torch.")


ERRORS = {
    "negative int": lambda lib, P, m: P.l1_unstructured(m, "weight", -1),
    "float above 1": lambda lib, P, m: P.random_unstructured(m, "weight", 1.5),
    "negative float": lambda lib, P, m: P.RandomStructured(-0.1),
    "string amount": lambda lib, P, m: P.l1_unstructured(m, "weight", "half"),
    "tensor amount": lambda lib, P, m: P.L1Unstructured(lib.tensor(0.5)),
    "too many": lambda lib, P, m: P.l1_unstructured(m, "weight", 13),
    "too many channels": lambda lib, P, m: P.ln_structured(m, "weight", 5, n=2, dim=0),
    "structured 1-d": lambda lib, P, m: P.random_structured(m, "bias", 1, dim=0),
    "dim too large": lambda lib, P, m: P.ln_structured(m, "weight", 1, n=1, dim=2),
    "dim too small": lambda lib, P, m: P.random_structured(m, "weight", 1, dim=-3),
    "bad norm": lambda lib, P, m: P.ln_structured(m, "weight", 1, n="nuc", dim=0),
    "fro over three dims": lambda lib, P, m: P.ln_structured(
        lib.nn.Conv2d(1, 2, 2), "weight", 1, n="fro", dim=0
    ),
    "bool amount": lambda lib, P, m: P.l1_unstructured(m, "weight", True),
    "scores shape": lambda lib, P, m: P.l1_unstructured(
        m, "weight", 1, importance_scores=lib.ones(3, 4)
    ),
    "prune scores shape": lambda lib, P, m: P.L1Unstructured(1).prune(
        lib.ones(2, 3), importance_scores=lib.ones(3)
    ),
    "not a parameter": lambda lib, P, m: P.identity(m, "kernel"),
    "remove unpruned": lambda lib, P, m: P.remove(m, "weight"),
    "global structured": lambda lib, P, m: P.global_unstructured(
        [(m, "weight")], P.RandomStructured, amount=1
    ),
    "global not iterable": lambda lib, P, m: P.global_unstructured(3, P.L1Unstructured),
    "global scores": lambda lib, P, m: P.global_unstructured(
        [(m, "weight")], P.L1Unstructured, importance_scores=[1], amount=1
    ),
    "global too many": lambda lib, P, m: P.global_unstructured(
        [(m, "weight"), (m, "bias")], P.L1Unstructured, amount=20
    ),
    "custom mask shape": lambda lib, P, m: P.custom_from_mask(m, "weight", lib.ones(3)),
    "abstract": lambda lib, P, m: P.BasePruningMethod(),
    "container of non-method": lambda lib, P, m: P.PruningContainer(P.Identity(), 3),
    "container names": lambda lib, P, m: _container_with_names(P, "weight", "bias"),
    "container add non-method": lambda lib, P, m: _container_with_names(P, "w").add_pruning_method(
        "x"
    ),
    "unapplied apply_mask": lambda lib, P, m: P.Identity().apply_mask(m),
    "structured without dim": lambda lib, P, m: _weird_method(P, "structured").apply(
        P.identity(m, "weight"), "weight"
    ),
    "unknown type": lambda lib, P, m: _weird_method(P, "sparse").apply(
        P.identity(m, "weight"), "weight"
    ),
}


def _container_with_names(P, *names):
    methods = []
    for name in names:
        method = P.Identity()
        method._tensor_name = name
        methods.append(method)
    container = P.PruningContainer(methods[0])
    for method in methods[1:]:
        container.add_pruning_method(method)
    return container


def _weird_method(P, kind):
    class Weird(P.BasePruningMethod):
        PRUNING_TYPE = kind

        def compute_mask(self, t, default_mask):
            return default_mask

    return Weird


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_as_pytorch(name):
    """The same exception type and message, and the module left as PyTorch leaves it."""

    def build(lib):
        m = lib.nn.Linear(3, 4)
        with pytest.raises(Exception) as info:
            ERRORS[name](lib, _prune(lib), m)
        return type(info.value).__name__, _message(info.value), _layout(m)

    mine, theirs = _both(build)
    assert mine == theirs


def test_a_failed_pruning_leaves_what_pytorch_leaves():
    """A bad amount on a pruned tensor: PyTorch has already dropped the earlier hook when the
    new method's constructor raises (the mask and ``weight_orig`` stay)."""

    def build(lib):
        prune = _prune(lib)
        m = lib.nn.Linear(3, 4)
        prune.l1_unstructured(m, "weight", 2)
        with pytest.raises(ValueError):
            prune.l1_unstructured(m, "weight", -2)
        first = _layout(m)
        n = lib.nn.Linear(3, 4)
        with pytest.raises(ValueError):
            prune.l1_unstructured(n, "weight", 20)  # the parameter is put back
        return first, _layout(n), prune.is_pruned(m)

    mine, theirs = _both(build)
    assert mine == theirs


def test_the_module_and_its_names():
    import jtensor.nn.utils.prune as ours

    theirs = torch.nn.utils.prune
    public = {n for n in dir(theirs) if not n.startswith("_")}
    imported = {"ABC", "Iterable", "abstractmethod", "numbers", "torch"}
    assert public - imported <= set(dir(ours))
    assert set(ours.__all__) == public - imported
    assert jtensor.nn.utils.prune is ours
    assert ours.L1Unstructured.__module__ == "jtensor.nn.utils.prune"
    for name in ours.__all__:
        assert getattr(ours, name).__doc__, name
