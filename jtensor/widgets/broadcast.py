"""``BroadcastView``: shapes aligned from the right, stretched, and where they clash."""

from ._base import Visual
from ._read import is_tensor, user_names
from ._svg import (BAD, GRID, INK, MUTED, Svg, colour, error_note, paragraph, shape_text,
                   tint, wrap)
from .strides import _ints
from .._errors import type_name


def _contiguous_strides(shape):
    strides = []
    step = 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


class BroadcastView(Visual):
    """How two or more shapes broadcast: aligned from the right, missing dimensions added
    as size 1, size-1 dimensions stretched (their stride becomes 0 in the expanded view),
    the result shape, or the column where they clash and the error PyTorch raises.

    Takes tensors (their real strides are used) or shapes (contiguous strides assumed).

    >>> from jtensor.widgets import BroadcastView
    >>> v = BroadcastView((3, 1), (4,), names=["a", "b"])
    >>> v.result
    (3, 4)
    >>> v.expanded_strides()
    [(1, 0), (0, 1)]
    >>> BroadcastView((2, 3), (4,), names=["a", "b"]).error
    'The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1'
    """

    kind = "broadcast-view"

    def __init__(self, *tensors_or_shapes, names=None):
        if len(tensors_or_shapes) < 1:
            raise TypeError("BroadcastView() needs at least one tensor or shape")
        self.inputs = []
        for k, item in enumerate(tensors_or_shapes):
            if is_tensor(item):
                self.inputs.append((tuple(item.shape), tuple(item.stride())))
            elif isinstance(item, int) or (isinstance(item, (tuple, list))
                                           and all(isinstance(n, int) for n in item)):
                shape = (item,) if isinstance(item, int) else tuple(item)
                self._check_shape(shape, k)
                self.inputs.append((shape, _contiguous_strides(shape)))
            else:
                raise TypeError(f"BroadcastView() argument {k} must be a Tensor or a shape "
                                f"(tuple of ints), not {type_name(item)}")
        if names is None:
            found = user_names(list(tensors_or_shapes), None, depth=1)
            # Shapes written inline have no name: call them a, b, c as PyTorch's message does.
            names = []
            for k, n in enumerate(found):
                if n.startswith("tensor "):
                    letter = chr(ord("a") + k) if k < 26 else ""
                    n = letter if letter and letter not in found else f"arg{k}"
                names.append(n)
        elif len(names) != len(tensors_or_shapes):
            raise ValueError(f"names has {len(names)} entries but {len(tensors_or_shapes)} "
                             "inputs were given")
        self.names = [str(n) for n in names]
        self._compute()

    @staticmethod
    def _check_shape(shape, k):
        if any(n < 0 for n in shape):
            raise ValueError(f"shape {shape_text(shape)} of argument {k} has a negative size")

    def _compute(self):
        from .._api import broadcast_shapes

        shapes = [s for s, _ in self.inputs]
        self.ndim = max(len(s) for s in shapes)
        try:
            self.result = tuple(broadcast_shapes(*shapes))
            self.error = None
        except RuntimeError as error:
            self.result = None
            message = str(error)
            if len(shapes) == 2:
                # PyTorch's binary-op message names the tensors a and b; use the user's names.
                message = message.replace("tensor a (", f"tensor {self.names[0]} (", 1)
                message = message.replace("tensor b (", f"tensor {self.names[1]} (", 1)
            self.error = message
        # The first clashing column from the right (negative dim), if any.
        self.clash = None
        for d in range(1, self.ndim + 1):
            sizes = {s[-d] for s in shapes if len(s) >= d and s[-d] != 1}
            if len(sizes) > 1:
                self.clash = -d
                break

    # ------------------------------------------------------------------ state
    def set_shape(self, k, shape):
        """Replace input ``k`` with a shape (``"2, 1, 3"`` or a tuple); redraws."""
        shape = _ints(shape, "shape")
        self._check_shape(shape, k)
        self.inputs[k] = (shape, _contiguous_strides(shape))
        self._compute()
        self._refresh()

    def status(self, k, d):
        """What happens to input k at column d (negative): ``kept``, ``added`` (missing,
        treated as size 1), ``stretched`` (size 1 repeated), or ``clash``."""
        shape = self.inputs[k][0]
        if len(shape) < -d:
            return "added"
        n = shape[d]
        if self.clash == d and n != 1:
            return "clash"
        target = max(s[d] for s, _ in self.inputs if len(s) >= -d)
        if n == 1 and target != 1:
            return "stretched"
        return "kept"

    def expanded_strides(self):
        """Each input's strides once expanded to the result (0 where stretched or added)."""
        if self.result is None:
            return None
        out = []
        for k, (_, stride) in enumerate(self.inputs):
            row = []
            for d in range(-self.ndim, 0):
                state = self.status(k, d)
                row.append(0 if state in ("added", "stretched") else stride[d])
            out.append(tuple(row))
        return out

    # ------------------------------------------------------------------ snapshot
    def text(self):
        lines = [f"{name}: {shape_text(shape)}" for name, (shape, _) in
                 zip(self.names, self.inputs, strict=True)]
        if self.error:
            lines.append(f"error: {self.error}")
        else:
            lines.append(f"result: {shape_text(self.result)}")
        return "\n".join(lines)

    def html(self):
        svg = Svg()
        cw, ch, left = 64, 30, 110
        y = 16
        for c, d in enumerate(range(-self.ndim, 0)):
            x = left + c * cw
            svg.text(x + cw / 2, y, f"dim {d}", size=10, anchor="middle",
                     fill=BAD if d == self.clash else MUTED)
        y += 8
        strides = self.expanded_strides()
        for k, (shape, stride) in enumerate(self.inputs):
            c0 = colour(k)
            svg.rect(0, y + 9, 10, 10, fill=c0, stroke="none")
            svg.text(14, y + 18, self.names[k], size=12, weight="bold")
            svg.text(14, y + 31, shape_text(shape), size=9, fill=MUTED)
            for c, d in enumerate(range(-self.ndim, 0)):
                x = left + c * cw
                state = self.status(k, d)
                if state == "added":
                    svg.rect(x + 2, y, cw - 4, ch, fill="#FFFFFF", stroke=GRID, dash="4,3",
                             data={"state": state})
                    svg.text(x + cw / 2, y + 14, "1", size=12, anchor="middle", fill=MUTED)
                    svg.text(x + cw / 2, y + 26, "added", size=8, anchor="middle", fill=MUTED)
                elif state == "stretched":
                    target = self.result[d] if self.result else max(
                        s[d] for s, _ in self.inputs if len(s) >= -d)
                    svg.rect(x + 2, y, cw - 4, ch, fill=tint(c0, 0.85), stroke=c0, dash="2,2",
                             data={"state": state})
                    svg.text(x + cw / 2, y + 14, f"1 → {target}", size=12, anchor="middle")
                    svg.text(x + cw / 2, y + 26, "stretched", size=8, anchor="middle",
                             fill=MUTED)
                else:
                    bad = state == "clash"
                    svg.rect(x + 2, y, cw - 4, ch, fill="#FDECEA" if bad else tint(c0, 0.7),
                             stroke=BAD if bad else c0, width=2 if bad else 1,
                             data={"state": state})
                    svg.text(x + cw / 2, y + 19, str(shape[d]), size=13, anchor="middle",
                             fill=BAD if bad else INK, weight="bold" if bad else None)
            # Strides: original -> expanded.
            y += ch + 3
            for c, d in enumerate(range(-self.ndim, 0)):
                x = left + c * cw
                own = stride[d] if len(stride) >= -d else None
                if strides is not None:
                    new = strides[k][c]
                    label = (f"s {own}→0" if own is not None and new == 0 and own != 0 else
                             "s 0" if new == 0 else f"s {new}")
                    svg.text(x + cw / 2, y + 9, label, size=9, anchor="middle",
                             fill=BAD if new == 0 else MUTED)
                elif own is not None:
                    svg.text(x + cw / 2, y + 9, f"s {own}", size=9, anchor="middle",
                             fill=MUTED)
            y += 18
        svg.line(0, y, left + self.ndim * cw, y, stroke=INK)
        y += 6
        svg.text(14, y + 19, "result", size=12, weight="bold")
        for c, d in enumerate(range(-self.ndim, 0)):
            x = left + c * cw
            if self.result is not None:
                svg.rect(x + 2, y, cw - 4, ch, fill="#EEEEEE", stroke=INK)
                svg.text(x + cw / 2, y + 19, str(self.result[d]), size=13, anchor="middle",
                         weight="bold")
            elif d == self.clash:
                svg.rect(x + 2, y, cw - 4, ch, fill="#FDECEA", stroke=BAD, width=2)
                svg.text(x + cw / 2, y + 20, "✗", size=15, anchor="middle", fill=BAD)
            else:
                svg.rect(x + 2, y, cw - 4, ch, fill="#FFFFFF", stroke=GRID, dash="4,3")
                svg.text(x + cw / 2, y + 19, "?", size=12, anchor="middle", fill=MUTED)
        y += ch + 8
        label = ("broadcast " + " with ".join(shape_text(s) for s, _ in self.inputs)
                 + (f" -> {shape_text(self.result)}" if self.result else ": incompatible"))
        parts = [svg.render(left + self.ndim * cw + 8, y, self.kind, label)]
        if self.error:
            d = self.clash
            sizes = ", ".join(f"{name} has {shape[d]}" for name, (shape, _) in
                              zip(self.names, self.inputs, strict=True) if len(shape) >= -d and
                              shape[d] != 1)
            parts.append(paragraph(f"dim {d}: {sizes}; only a size of 1 (or a missing "
                                   "dimension) can be stretched, so these cannot match.",
                                   colour_=BAD, bold=True))
            parts.append(paragraph(f"RuntimeError: {self.error}", colour_=BAD))
        else:
            parts.append(paragraph(f"result shape {shape_text(self.result)}; stride 0 marks "
                                   "the dimensions read again and again without copying "
                                   "(what .expand() gives).", colour_=MUTED))
        return wrap(self.kind, "".join(parts))

    # ------------------------------------------------------------------ interactive layer
    def _controls(self, ipywidgets):
        message = ipywidgets.HTML(value="")
        boxes = []

        def make(k):
            box = ipywidgets.Text(value=", ".join(map(str, self.inputs[k][0])),
                                  description=self.names[k], continuous_update=False)

            def apply(change):
                try:
                    self.set_shape(k, change["new"])
                    message.value = ""
                except ValueError as error:
                    message.value = error_note(error)
            box.observe(apply, names="value")
            return box

        for k in range(len(self.inputs)):
            boxes.append((f"shape{k}", make(k)))
        return boxes + [("message", message)]
