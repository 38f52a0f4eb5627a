"""``padding='same'`` where the kernel's reach is even (an even kernel at an odd dilation) needs
one more row or column of zeros after the input than before it. PyTorch then pads a copy of
the input (``ConstantPadNdBackward0``) and convolves it with the symmetric padding, warning
once per process that it does; jtensor takes the same steps: the same graph, output,
gradients, warning and errors."""

import warnings

import pytest

import jtensor

torch = pytest.importorskip("torch")


def _names(fn):
    out, stack = [], [fn]
    while stack:
        f = stack.pop()
        if f is not None:
            out.append(type(f).__name__)
            stack.extend(n for n, _ in f.next_functions)
    return sorted(out)


CALLS = {
    "2d-even": ("conv2d", (1, 2, 4, 4), (3, 2, 2, 2), {}),
    "2d-even-odd": ("conv2d", (1, 2, 4, 4), (3, 2, 2, 3), {}),
    "2d-odd": ("conv2d", (1, 2, 4, 4), (3, 2, 3, 3), {}),
    "2d-even-dilated": ("conv2d", (1, 2, 4, 4), (3, 2, 2, 2), {"dilation": 2}),
    "2d-even-half-dilated": ("conv2d", (1, 2, 5, 4), (3, 2, 2, 2), {"dilation": (1, 2)}),
    "2d-unbatched": ("conv2d", (2, 4, 4), (1, 2, 2, 2), {}),
    "1d-even": ("conv1d", (1, 1, 5), (2, 1, 4), {}),
    "3d-even": ("conv3d", (1, 1, 3, 3, 3), (1, 1, 2, 2, 2), {"bias": True}),
    "2d-channels-error": ("conv2d", (1, 3, 4, 4), (1, 2, 2, 2), {}),
}


def _run(lib, name):
    fn, xs, ws, kw = CALLS[name]
    kw = dict(kw)
    x = lib.arange(float(lib.tensor(xs).prod())).reshape(xs).div(7).requires_grad_()
    w = lib.arange(float(lib.tensor(ws).prod())).reshape(ws).div(5).requires_grad_()
    if kw.pop("bias", False):
        kw["bias"] = lib.ones(ws[0], requires_grad=True)
    previous = lib.is_warn_always_enabled()
    lib.set_warn_always(True)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                out = getattr(lib.nn.functional, fn)(x, w, padding="same", **kw)
            except RuntimeError as e:
                return "RuntimeError", str(e)
    finally:
        lib.set_warn_always(previous)
    out.pow(2).sum().backward()
    messages = [str(c.message).split(" (Triggered internally")[0] for c in caught]
    return (
        tuple(out.shape),
        out.stride(),
        _names(out.grad_fn),
        out.detach().tolist(),
        x.grad.tolist(),
        w.grad.tolist(),
        messages,
        [c.filename for c in caught],
    )


@pytest.mark.parametrize("name", sorted(CALLS))
def test_same_padding_takes_pytorchs_steps(name):
    ours, theirs = _run(jtensor, name), _run(torch, name)
    if theirs[0] == "RuntimeError":
        assert ours == theirs
        return
    assert ours[:3] == theirs[:3]
    for a, b in zip(ours[3:6], theirs[3:6], strict=True):
        assert jtensor.tensor(a).allclose(jtensor.tensor(b), rtol=1e-5, atol=1e-4)
    assert ours[6] == theirs[6]
    assert all(f == __file__ for f in ours[7]), ours[7]  # (the caller's line)
