"""``StrideExplorer``: try shapes, strides and offsets over one storage (``as_strided``)."""

from ._base import Visual
from ._geometry import extent, overlaps
from ._read import is_storage, is_tensor, storage_length, storage_values, user_names
from ._strip import draw_grid, draw_strip
from ._svg import BAD, MUTED, Svg, colour, paragraph, shape_text, wrap
from .._errors import type_name


def _ints(text, what):
    """``"2, 3"`` / ``(2, 3)`` / ``[2, 3]`` -> a tuple of ints, or a ValueError naming it."""
    if isinstance(text, (tuple, list)):
        items = list(text)
    else:
        cleaned = str(text).strip().strip("()[]")
        items = [p.strip() for p in cleaned.split(",") if p.strip()]
    try:
        return tuple(int(p) for p in items)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be integers separated by commas, got {text!r}") from None


class StrideExplorer(Visual):
    """A view of a storage with a shape, stride and offset of your choosing.

    Starts from the tensor's own layout (or a flat view of a storage); ``set(shape=,
    stride=, offset=)`` or the widget's controls change it, and the logical grid and the
    storage strip follow. Overlap (two indices on one cell) and out-of-bounds layouts (cells
    past the storage's end, drawn in red) are flagged, with the error PyTorch would raise,
    and the equivalent call is shown.

    >>> import jtensor as torch
    >>> from jtensor.widgets import StrideExplorer
    >>> x = torch.arange(6.)
    >>> e = StrideExplorer(x)
    >>> e.set(shape=(3, 2), stride=(1, 3))
    >>> e.call()
    'torch.as_strided(x, size=(3, 2), stride=(1, 3), storage_offset=0)'
    >>> e.set(shape=(3, 3), stride=(1, 1)); e.problems()
    ['overlapping: different indices read the same storage cell']
    """

    kind = "stride-explorer"

    def __init__(self, tensor_or_storage, dtype=None, name=None):
        if is_tensor(tensor_or_storage):
            t = tensor_or_storage
            self.storage = t.untyped_storage()
            self.dtype = dtype or t.dtype
            if self.dtype.itemsize != t.dtype.itemsize:
                raise ValueError(f"dtype {self.dtype} has {self.dtype.itemsize}-byte elements "
                                 f"but the tensor's {t.dtype} has {t.dtype.itemsize}")
            self.shape, self.stride = tuple(t.shape), tuple(t.stride())
            self.offset = t.storage_offset()
            self.from_storage = False
        elif is_storage(tensor_or_storage):
            from .._dtypes import uint8

            self.storage = tensor_or_storage
            self.dtype = dtype or uint8
            n = storage_length(self.storage, self.dtype.itemsize)
            self.shape, self.stride, self.offset = (n,), (1,), 0
            self.from_storage = True
        else:
            raise TypeError("StrideExplorer() takes a Tensor or a storage "
                            f"(tensor.untyped_storage()), not {type_name(tensor_or_storage)}")
        self.name = name if name is not None else user_names([tensor_or_storage], None,
                                                             depth=1)[0]
        if self.name.startswith("tensor "):
            self.name = "s" if self.from_storage else "x"
        self.length = storage_length(self.storage, self.dtype.itemsize)
        self.error = None  # the last rejected input, shown in the picture

    # ------------------------------------------------------------------ state
    def set(self, shape=None, stride=None, offset=None):
        """Change the layout; a malformed value raises ValueError and keeps the old one."""
        new_shape = self.shape if shape is None else _ints(shape, "shape")
        new_stride = self.stride if stride is None else _ints(stride, "stride")
        new_offset = self.offset if offset is None else int(offset)
        if len(new_shape) != len(new_stride):
            raise ValueError(f"mismatch in length of strides and shape: shape "
                             f"{shape_text(new_shape)} has {len(new_shape)} dimensions, stride "
                             f"{shape_text(new_stride)} has {len(new_stride)}")
        if any(n < 0 for n in new_shape):
            raise ValueError(f"shape {shape_text(new_shape)} has a negative size")
        if len(new_shape) > 6:
            raise ValueError(f"the explorer draws at most 6 dimensions, got {len(new_shape)}")
        self.shape, self.stride, self.offset = new_shape, new_stride, new_offset
        self.error = None
        self._refresh()

    def call(self):
        """The jtensor/PyTorch call that makes this view."""
        if self.from_storage:
            return (f"torch.tensor([], dtype={self.dtype}).set_({self.name}, "
                    f"storage_offset={self.offset}, size={shape_text(self.shape)}, "
                    f"stride={shape_text(self.stride)})")
        return (f"torch.as_strided({self.name}, size={shape_text(self.shape)}, "
                f"stride={shape_text(self.stride)}, storage_offset={self.offset})")

    def problems(self):
        """What is wrong or notable about the layout, in words (empty: a fine layout)."""
        out = []
        if any(s < 0 for s in self.stride):
            return [f"as_strided: Negative strides are not supported at the moment, got "
                    f"strides: {list(self.stride)}"]
        if self.offset < 0:
            return [f"Tensor: invalid storage offset {self.offset}"]
        if 0 not in self.shape:
            _, last = extent(self.shape, self.stride, self.offset)
            if last >= self.length:
                need = (last + 1) * self.dtype.itemsize
                out.append(f"out of bounds: setStorage: sizes {list(self.shape)}, strides "
                           f"{list(self.stride)}, storage offset {self.offset}, and itemsize "
                           f"{self.dtype.itemsize} requiring a storage size of {need} are out "
                           f"of bounds for storage of size {self.length * self.dtype.itemsize}")
        over = overlaps(self.shape, self.stride)
        if over:
            out.append("overlapping: different indices read the same storage cell")
        elif over is None:
            out.append("may overlap (too large to check cell by cell)")
        return out

    # ------------------------------------------------------------------ snapshot
    def text(self):
        lines = [f"{self.call()}  # over {self.length:,} x {self.dtype}"]
        lines += self.problems()
        return "\n".join(lines)

    def html(self):
        svg = Svg()
        svg.text(0, 13, f"storage · {self.length:,} × {self.dtype} on {self.storage.device}",
                 size=12, weight="bold")
        values = None
        if str(self.storage.device) == "cpu":
            def values(a, b):
                return storage_values(self.storage, self.dtype, a, b)
        problems = self.problems()
        negative = any(s < 0 for s in self.stride) or self.offset < 0
        y = 30
        width = 520
        if not negative:
            layouts = [(self.shape, self.stride, self.offset)]
            w, h = draw_strip(svg, 0, y, self.length, layouts, [colour(0)], values)
            width = max(width, w)
            y += h + 6
            svg.text(0, y + 10, f"view  shape {shape_text(self.shape)}  stride "
                     f"{shape_text(self.stride)}  offset {self.offset}", size=11, weight="bold")
            y += 18
            gw, gh = draw_grid(svg, 0, y, self.shape, self.stride, self.offset, colour(0),
                               values, None, self.length)
            width = max(width, gw)
            y += gh + 4
        picture = svg.render(width + 4, y, self.kind,
                             f"stride explorer: {self.call()}")
        parts = [paragraph(self.call(), bold=True), picture]
        for p in problems:
            parts.append(paragraph(p, colour_=BAD))
        if not problems:
            parts.append(paragraph("a valid view: every index reads its own cell",
                                   colour_=MUTED))
        if self.error:
            parts.append(paragraph(self.error, colour_=BAD))
        return wrap(self.kind, "".join(parts))

    # ------------------------------------------------------------------ interactive layer
    def _controls(self, ipywidgets):
        shape = ipywidgets.Text(value=", ".join(map(str, self.shape)), description="shape",
                                continuous_update=False)
        stride = ipywidgets.Text(value=", ".join(map(str, self.stride)), description="stride",
                                 continuous_update=False)
        offset = ipywidgets.IntText(value=self.offset, description="offset",
                                    continuous_update=False)

        def apply(_change=None):
            try:
                self.set(shape=shape.value, stride=stride.value, offset=offset.value)
            except ValueError as error:
                self.error = str(error)
                self._refresh()

        for control in (shape, stride, offset):
            control.observe(apply, names="value")
        return [("shape", shape), ("stride", stride), ("offset", offset)]

