"""The lazy modules and UninitializedParameter/Buffer against PyTorch: reprs before and
after the first forward, the class they become, parameter shapes and PyTorch's initial
values (the same draws), outputs."""

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.devices

CASES = [
    ("LazyLinear", (3,), {}, (2, 5)),
    ("LazyLinear", (4,), {"bias": False}, (2, 3, 6)),
    ("LazyConv1d", (2, 2), {"groups": 2}, (4, 6)),
    ("LazyConv2d", (4, 3), {"padding": 1}, (1, 2, 5, 5)),
    ("LazyConvTranspose1d", (2, 3), {"stride": 2}, (2, 4, 5)),
    ("LazyConvTranspose2d", (3, 2), {}, (1, 2, 3, 3)),
    ("LazyBatchNorm1d", (), {}, (4, 3)),
    ("LazyBatchNorm2d", (), {"affine": False}, (2, 3, 2, 2)),
    ("LazyBatchNorm3d", (), {"track_running_stats": False}, (2, 2, 2, 2, 2)),
    ("LazyInstanceNorm1d", (), {}, (2, 3, 5)),
    ("LazyInstanceNorm2d", (), {}, (2, 3, 4, 4)),
    ("LazyInstanceNorm3d", (), {"affine": False}, (2, 2, 3, 2, 2)),
]


@pytest.mark.parametrize(
    "name,args,kwargs,shape", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)]
)
def test_lazy_module_matches_pytorch(name, args, kwargs, shape):
    a = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    runs = []
    for lib in (jtensor, torch):
        lib.manual_seed(0)
        m = getattr(lib.nn, name)(*args, **kwargs)
        before = (repr(m), m.has_uninitialized_params(), [repr(p) for p in m.parameters()])
        y = m(lib.tensor(a))
        state = {k: v.detach().clone() for k, v in m.state_dict().items()}
        runs.append(
            (before, repr(m), type(m).__name__, y.detach(), state, hasattr(m, "_initialize_hook"))
        )
    (b1, r1, c1, y1, s1, h1), (b2, r2, c2, y2, s2, h2) = runs
    assert (b1, r1, c1, h1) == (b2, r2, c2, h2)
    np.testing.assert_allclose(y1.cpu().numpy(), y2.numpy(), rtol=1e-5, atol=1e-5)
    assert list(s1) == list(s2)
    for k in s1:
        np.testing.assert_allclose(
            s1[k].cpu().numpy(), s2[k].numpy(), rtol=1e-5, atol=1e-7, err_msg=k
        )


def test_uninitialized_parameter_materializes_into_a_parameter():
    p = jtensor.nn.UninitializedParameter(dtype=jtensor.float64)
    assert repr(p) == "<UninitializedParameter>" and p.requires_grad
    with pytest.raises(RuntimeError, match="Can't access the shape"):
        _ = p.shape
    p.materialize((2, 3))
    assert type(p) is jtensor.nn.Parameter and p.shape == (2, 3)
    assert p.dtype == jtensor.float64
    b = jtensor.nn.UninitializedBuffer()
    b.materialize((4,))
    assert type(b) is jtensor.Tensor and b.shape == (4,)


def test_lazy_conv_checks_the_input_as_pytorch():
    with pytest.raises(RuntimeError, match=r"Expected 3D \(unbatched\) or 4D \(batched\)"):
        jtensor.nn.LazyConv2d(2, 3)(jtensor.ones(5, 5))
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        jtensor.nn.LazyConv1d(2, 2, groups=2)(jtensor.ones(3, 5))
    # as PyTorch: the lazy norms read the features from dimension 1, even unbatched
    with pytest.raises(ValueError, match="to match num_features"):
        jtensor.nn.LazyInstanceNorm1d()(jtensor.ones(3, 5))


def _load_before_forward(T):
    """A checkpoint loaded into lazy modules that never ran (d2l's file I/O section saves a
    trained lazy MLP and loads it into a fresh one): the parameters take the checkpoint's
    shapes, then the first forward only fills in what is left (PyTorch's quirks included:
    a loaded LazyConv2d keeps in_channels 0)."""
    T.manual_seed(0)
    src = T.nn.LazyLinear(3)
    src(T.ones(2, 4))
    dst = T.nn.LazyLinear(3)
    seen = [str(dst.load_state_dict(src.state_dict())), tuple(dst.weight.shape),
            type(dst.weight).__name__, bool((dst.weight == src.weight).all()),
            dst.weight.requires_grad]
    seen += [tuple(dst(T.ones(1, 4)).shape), repr(dst)]
    conv = T.nn.LazyConv2d(2, 3)
    conv(T.ones(1, 3, 5, 5))
    conv2 = T.nn.LazyConv2d(2, 3)
    conv2.load_state_dict(conv.state_dict())
    conv2(T.ones(1, 3, 5, 5))
    seen += [tuple(conv2.weight.shape), repr(conv2)]
    norm = T.nn.LazyBatchNorm1d()
    norm(T.randn(4, 3))
    norm2 = T.nn.LazyBatchNorm1d()
    norm2.load_state_dict(norm.state_dict())
    seen += [tuple(norm2.running_mean.shape), type(norm2.running_mean).__name__]
    partial = T.nn.LazyLinear(3)
    for bad in (lambda: partial.load_state_dict({"weight": T.ones(3, 4)}),
                lambda: T.nn.LazyLinear(3).load_state_dict(src.state_dict()) and None):
        try:
            bad()
            seen.append("ok")
        except RuntimeError as e:
            seen.append(str(e))
    mismatched = T.nn.LazyLinear(3)
    mismatched.load_state_dict(src.state_dict())
    try:
        mismatched(T.ones(1, 5))
    except AssertionError as e:
        seen.append(str(e))
    return seen


def test_lazy_modules_load_a_checkpoint_before_their_first_forward():
    torch = pytest.importorskip("torch")
    assert _load_before_forward(jtensor) == _load_before_forward(torch)
