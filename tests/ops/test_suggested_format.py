"""``cat``, ``stack`` and ``roll`` lay their result out as PyTorch's
``suggest_memory_format`` of their inputs says: the order of the strides decides, the batch
dim's stride included, for 4-d (``channels_last``) and 5-d (``channels_last_3d``) tensors.
A dataset that returns ``from_numpy(hwc).permute(2, 0, 1)`` images is stacked by the
DataLoader into a contiguous batch, which ``x.view(n, -1)`` accepts after a CNN."""

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")


def _layouts(L):
    base = L.arange(120, dtype=L.float32).reshape(2, 3, 4, 5)
    volume = L.arange(240, dtype=L.float32).reshape(2, 3, 2, 4, 5)
    return {
        "contiguous": base,
        "channels last": base.contiguous(memory_format=L.channels_last),
        "channels last, sliced": base.contiguous(memory_format=L.channels_last)[..., ::2],
        "one image from HWC, unsqueezed": L.arange(60.0).reshape(4, 5, 3).permute(2, 0, 1)[None],
        "one channel": L.arange(40.0).reshape(2, 1, 4, 5),
        "1 x 1 images": L.arange(6.0).reshape(2, 3, 1, 1),
        "transposed": base.transpose(2, 3),
        "channels last 3d": volume.contiguous(memory_format=L.channels_last_3d),
        "channels last 3d, sliced": volume.contiguous(memory_format=L.channels_last_3d)[..., ::2],
        "expanded": L.arange(5.0).expand(2, 3, 4, 5),
    }


CALLS = {
    "cat dim 0": lambda L, t: L.cat([t, t], 0),
    "cat dim 1": lambda L, t: L.cat([t, t], 1),
    "stack of the first items": lambda L, t: L.stack([t[0], t[0]]),
    "roll": lambda L, t: L.roll(t, 1, 2),
    "cat with a contiguous tensor": lambda L, t: L.cat([t, t.contiguous()], 0),
}


def _same_layout(calls, inputs, call, layout):
    """``calls[call]`` of ``inputs(lib)[layout]`` under both libraries: the same strides and
    values (to float32 rounding: convolutions add in another order)."""
    got = calls[call](jtensor, inputs(jtensor)[layout])
    expected = calls[call](torch, inputs(torch)[layout])
    assert got.stride() == expected.stride()
    np.testing.assert_allclose(got.numpy(), expected.numpy(), atol=1e-5)


@pytest.mark.parametrize("layout", sorted(_layouts(torch)))
@pytest.mark.parametrize("call", sorted(CALLS))
def test_result_layout_matches_torch(layout, call):
    _same_layout(CALLS, _layouts, call, layout)


def test_a_batch_of_hwc_images_views_after_a_cnn():
    shapes = []
    for L in (jtensor, torch):
        images = L.arange(2 * 8 * 8 * 3, dtype=L.float32).reshape(2, 8, 8, 3)
        mean = L.tensor([0.5, 0.4, 0.3]).view(3, 1, 1)
        batch = L.stack([(img.permute(2, 0, 1) - mean) / 2 for img in images])
        L.manual_seed(0)
        x = L.nn.MaxPool2d(2)(L.nn.Conv2d(3, 4, 3, padding=1)(batch))
        shapes.append((batch.stride(), x.stride(), tuple(x.view(2, -1).shape)))
    assert shapes[0] == shapes[1]


def _images(L):
    base = L.arange(2 * 4 * 6 * 6, dtype=L.float32).reshape(2, 4, 6, 6) / 100
    return {
        "contiguous": base,
        "channels last": base.contiguous(memory_format=L.channels_last),
        "channels last, sliced": base.contiguous(memory_format=L.channels_last)[..., ::2],
        "one HWC image, unsqueezed": (L.arange(144.0).reshape(6, 6, 4) / 100).permute(2, 0, 1)[
            None
        ],
        "transposed": base.transpose(2, 3),
    }


NN_CALLS = {
    "conv2d": lambda L, t: L.nn.functional.conv2d(t, L.ones(3, 4, 3, 3) / 9),
    "conv_transpose2d": lambda L, t: L.nn.functional.conv_transpose2d(t, L.ones(4, 3, 3, 3) / 9),
    "max_pool2d": lambda L, t: L.nn.functional.max_pool2d(t, 2),
    "avg_pool2d": lambda L, t: L.nn.functional.avg_pool2d(t, 2),
    "adaptive_avg_pool2d": lambda L, t: L.nn.functional.adaptive_avg_pool2d(t, 2),
    "nearest": lambda L, t: L.nn.functional.interpolate(t, scale_factor=2),
    "bilinear": lambda L, t: L.nn.functional.interpolate(t, scale_factor=2, mode="bilinear"),
}


@pytest.mark.parametrize("layout", sorted(_images(torch)))
@pytest.mark.parametrize("call", sorted(NN_CALLS))
def test_image_op_layout_matches_torch(layout, call):
    _same_layout(NN_CALLS, _images, call, layout)
