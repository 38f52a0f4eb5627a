"""``StorageMap``: tensors drawn over the storages they look into."""

from ._base import Visual
from ._geometry import extent, overlaps, position
from ._read import (is_tensor, storage_key, storage_length, storage_values, tensor_values,
                    user_names)
from ._strip import draw_grid, draw_strip
from ._svg import (BAD, INK, MUTED, Svg, colour, error_note, number, paragraph, shape_text,
                   wrap)
from .._errors import type_name


class StorageMap(Visual):
    """Each storage as a strip of cells, each tensor's elements highlighted in its colour.

    Tensors that share memory are drawn over one strip; each gets a lane under the strip
    (``×k`` where k of its elements sit on one cell: overlap or stride 0) and its logical
    grid, every grid cell showing the storage index it reads (``@7``). ``select(k, index)``
    (or the controls of the interactive widget) lights one element and its storage cell and
    writes out ``offset + sum(i_k * s_k)``.

    >>> import jtensor as torch
    >>> from jtensor.widgets import StorageMap
    >>> x = torch.arange(6.)
    >>> m = StorageMap(x, x.view(2, 3).t(), names=["x", "xt"])
    >>> m.select(1, (2, 1))
    >>> m.formula()
    'xt[2, 1] -> storage[0 + 2*1 + 1*3] = storage[5]'
    """

    kind = "storage-map"

    def __init__(self, *tensors, names=None):
        if not tensors:
            raise TypeError("StorageMap() needs at least one tensor")
        for k, t in enumerate(tensors):
            if not is_tensor(t):
                raise TypeError(f"StorageMap() argument {k} must be a Tensor, not "
                                f"{type_name(t)}")
        self.tensors = list(tensors)
        self.names = user_names(self.tensors, names, depth=1)
        self.selected = None  # (tensor number, index tuple)
        # Groups: tensors reading the same memory with the same element size, first-seen order.
        self.groups = []
        keys = {}
        for k, t in enumerate(self.tensors):
            key = (storage_key(t), t.dtype.itemsize)
            if key not in keys:
                keys[key] = len(self.groups)
                self.groups.append([])
            self.groups[keys[key]].append(k)

    # ------------------------------------------------------------------ state
    def select(self, tensor, index=None):
        """Light element ``index`` of tensor number ``tensor`` (or None to clear)."""
        if tensor is None:
            self.selected = None
            self._refresh()
            return
        if not 0 <= tensor < len(self.tensors):
            raise IndexError(f"tensor number {tensor} is out of range for {len(self.tensors)} "
                             "tensors")
        t = self.tensors[tensor]
        index = tuple(int(i) for i in (index if index is not None else (0,) * t.dim()))
        if len(index) != t.dim():
            raise IndexError(f"{self.names[tensor]} has {t.dim()} dimensions but the index "
                             f"{index} has {len(index)}")
        for d, (i, n) in enumerate(zip(index, t.shape, strict=True)):
            if not 0 <= i < n:
                raise IndexError(f"index {i} is out of bounds for dimension {d} with size {n}")
        self.selected = (tensor, index)
        self._refresh()

    def formula(self):
        """``name[i, j] -> storage[offset + i*s0 + j*s1] = storage[p]`` for the selection."""
        if self.selected is None:
            return ""
        k, index = self.selected
        t = self.tensors[k]
        terms = "".join(f" + {i}*{s}" for i, s in zip(index, t.stride(), strict=True))
        where = position(index, t.stride(), t.storage_offset())
        return (f"{self.names[k]}[{', '.join(map(str, index))}] -> "
                f"storage[{t.storage_offset()}{terms}] = storage[{where}]")

    # ------------------------------------------------------------------ snapshot
    def text(self):
        lines = []
        for g, members in enumerate(self.groups):
            first = self.tensors[members[0]]
            n = storage_length(first.untyped_storage(), first.dtype.itemsize)
            lines.append(f"storage {g}: {n:,} x {first.dtype} on {first.device}")
            for k in members:
                t = self.tensors[k]
                lines.append(f"  {self.names[k]}: shape {shape_text(t.shape)} stride "
                             f"{shape_text(t.stride())} offset {t.storage_offset()}"
                             + self._flags(t, prefix=", "))
        if self.selected is not None:
            lines.append(self.formula())
        return "\n".join(lines)

    @staticmethod
    def _flags(t, prefix=""):
        flags = []
        zero = [d for d, (n, s) in enumerate(zip(t.shape, t.stride(), strict=True))
                if s == 0 and n > 1]
        if zero:
            flags.append("stride 0 in dim " + ", ".join(map(str, zero)))
        over = overlaps(tuple(t.shape), tuple(t.stride()))
        if over and not zero:
            flags.append("overlapping")
        elif over is None:
            flags.append("may overlap (too large to check)")
        if not t.is_contiguous():
            flags.append("not contiguous")
        return (prefix + ", ".join(flags)) if flags else ""

    def html(self):
        parts = []
        for g, members in enumerate(self.groups):
            parts.append(self._group_svg(g, members))
        if self.selected is not None:
            k, index = self.selected
            t = self.tensors[k]
            values = tensor_values(t)
            value = "" if values is None else f" = {number(values[index].item())}"
            parts.append(paragraph(self.formula() + value, bold=True))
        return wrap(self.kind, "".join(parts))

    def _group_svg(self, g, members):
        first = self.tensors[members[0]]
        storage = first.untyped_storage()
        dtype = first.dtype
        length = storage_length(storage, dtype.itemsize)
        svg = Svg()
        sharing = ", ".join(self.names[k] for k in members)
        header = (f"storage {g} · {length:,} × {dtype} ({storage.nbytes():,} bytes) on "
                  f"{first.device} · read by {sharing}")
        svg.text(0, 13, header, size=12, weight="bold")
        values = None
        if str(first.device) == "cpu":
            def values(a, b):
                return storage_values(storage, dtype, a, b)
        else:
            svg.text(0, 27, f"values not read: reading {first.device} memory would "
                     "synchronize", size=10, fill=MUTED, italic=True)
        layouts = [(tuple(self.tensors[k].shape), tuple(self.tensors[k].stride()),
                    self.tensors[k].storage_offset()) for k in members]
        colours = [colour(k) for k in members]
        selected_cell = None
        selected_colour = INK
        if self.selected is not None and self.selected[0] in members:
            k, index = self.selected
            t = self.tensors[k]
            selected_cell = position(index, t.stride(), t.storage_offset())
            selected_colour = colour(k)
        y = 34
        w, h = draw_strip(svg, 0, y, length, layouts, colours, values, selected_cell,
                          selected_colour)
        y += h + 6
        width = max(w, 520)
        for k in members:
            t = self.tensors[k]
            c = colour(k)
            svg.rect(0, y, 12, 12, fill=c, stroke="none")
            desc = (f"{self.names[k]}  shape {shape_text(t.shape)}  stride "
                    f"{shape_text(t.stride())}  offset {t.storage_offset()}  {t.dtype}")
            svg.text(18, y + 10, desc, size=11, weight="bold")
            flags = self._flags(t)
            y += 16
            if t.numel() > 0:
                first_cell, last_cell = extent(tuple(t.shape), tuple(t.stride()),
                                               t.storage_offset())
                reach = f"reads cells {first_cell}..{last_cell} ({t.numel():,} elements)"
            else:
                reach = "empty: reads no cell"
            svg.text(18, y + 8, reach + ("; " + flags if flags else ""), size=10,
                     fill=BAD if ("overlap" in flags or "stride 0" in flags) else MUTED)
            y += 14
            sel = self.selected[1] if self.selected and self.selected[0] == k else None
            gw, gh = draw_grid(svg, 18, y, tuple(t.shape), tuple(t.stride()),
                               t.storage_offset(), c, values, sel, length)
            width = max(width, gw + 18)
            y += gh + 8
        return svg.render(width + 4, y, self.kind, f"storage map: {header}")

    # ------------------------------------------------------------------ interactive layer
    def _controls(self, ipywidgets):
        tensor = ipywidgets.Dropdown(
            options=[("(none)", -1)] + [(n, k) for k, n in enumerate(self.names)], value=-1,
            description="element of", style={"description_width": "initial"})
        index = ipywidgets.Text(value="", placeholder="e.g. 1, 2", description="index",
                                continuous_update=False)
        message = ipywidgets.HTML(value="")

        def apply(_change=None):
            k = tensor.value
            if k == -1:
                message.value = ""
                self.select(None)
                return
            t = self.tensors[k]
            text = index.value.strip()
            try:
                idx = tuple(int(p) for p in text.replace("(", "").replace(")", "").split(",")
                            if p.strip()) if text else (0,) * t.dim()
                self.select(k, idx)
                message.value = ""
            except (ValueError, IndexError) as error:
                message.value = error_note(error)

        tensor.observe(apply, names="value")
        index.observe(apply, names="value")
        return [("tensor", tensor), ("index", index), ("message", message)]
