"""``GradGraph``: the autograd graph behind a tensor, laid out in SVG (no graphviz)."""

from collections import Counter, deque

from ..autograd.saved_attributes import function_tensor_names
from ._base import Visual
from ._read import caller_namespace, is_tensor, storage_key, tensor_values, tensors_by_name
from ._svg import BAD, GRID, INK, MUTED, Svg, colour, number, paragraph, shape_text, tint, wrap
from .._errors import type_name

CHAR_W = 6.4
LINE_H = 14
GAP_X = 22
GAP_Y = 40


def _grad_text(grad):
    """``.grad`` in one line: values when small, statistics otherwise."""
    if grad is None:
        return ".grad: None"
    values = tensor_values(grad)
    if values is None:
        return f".grad: {shape_text(grad.shape)} on {grad.device}"
    if values.size <= 6:
        return ".grad: [" + ", ".join(number(v, 3) for v in values.reshape(-1).tolist()) + "]"
    v = values.astype("float64")
    return (f".grad: mean {number(float(v.mean()), 3)} std {number(float(v.std(ddof=1)), 3)} "
            f"min {number(float(v.min()), 3)} max {number(float(v.max()), 3)}")


class _Box:
    """A node of the drawing: an op (grad_fn) or a tensor (root, leaf or named)."""

    def __init__(self, key, kind, lines, flags=(), colour_=INK, target=None):
        self.key = key
        self.kind = kind  # "op" | "tensor"
        self.lines = list(lines)
        self.flags = list(flags)  # (text, is_bad)
        self.colour = colour_
        self.target = target
        self.children = []
        self.label = key  # set to the displayed, unique name once the graph is built
        self.depth = 0
        self.x = self.y = 0.0

    @property
    def title(self):
        return self.lines[0]

    def size(self):
        texts = self.lines[1:] + [t for t, _ in self.flags]
        # The title is bold and a point larger than the other lines.
        width = max([len(t) * CHAR_W for t in texts] + [len(self.lines[0]) * CHAR_W * 1.2]) + 18
        return min(max(width, 90), 460), (len(self.lines) + len(self.flags)) * LINE_H + 10


class GradGraph(Visual):
    """The graph ``tensor.backward()`` would run, from the tensor down to its leaves.

    Op nodes carry PyTorch's ``grad_fn`` names and their saved tensors with the version each
    was saved at (flagged *stale* when an in-place op has written to it since: backward
    would fail); tensor nodes carry the user's variable names (found in the caller's
    namespace, module parameters as ``model.layer.weight``), shape and dtype, whether they
    are leaves, retain their grad, and ``.grad`` once backward ran. Graphs with more than
    ``max_nodes`` nodes show the first levels and collapse the rest into one box (the
    widget's depth slider opens them).

    >>> import jtensor as torch
    >>> from jtensor.widgets import GradGraph
    >>> w = torch.ones(3, requires_grad=True)
    >>> loss = (w * 2).sum()
    >>> [b.title for b in GradGraph(loss).boxes()]
    ['loss', 'SumBackward0', 'MulBackward0', 'w']
    """

    kind = "grad-graph"

    def __init__(self, tensor, max_nodes=40, depth=None, names=None):
        if not is_tensor(tensor):
            raise TypeError(f"GradGraph() takes a Tensor, not {type_name(tensor)}")
        self.tensor = tensor
        self.max_nodes = int(max_nodes)
        if names is None:
            named = tensors_by_name(caller_namespace(1))
        else:
            named = [(str(k), v) for k, v in dict(names).items()]
        self._named = named
        self.selected = None
        self._build()
        self.depth = self._default_depth() if depth is None else int(depth)

    # ------------------------------------------------------------------ the graph
    def _build(self):
        names_by_id = {}
        producers = {}  # id(grad_fn) -> [(name, tensor)], non-leaf named tensors
        for name, t in self._named:
            names_by_id.setdefault(id(t), name)
            if not t.is_leaf and t.requires_grad:
                producers.setdefault(id(t.grad_fn), []).append((name, t))
        self._names_by_id = names_by_id
        self._layouts = {}
        for name, t in self._named:
            key = (storage_key(t), tuple(t.shape), tuple(t.stride()), t.storage_offset())
            self._layouts.setdefault(key, name)
        boxes = {}
        order = []

        def add(box):
            boxes[box.key] = box
            order.append(box)
            return box

        root = self.tensor
        root_name = names_by_id.get(id(root), "tensor")
        root_box = add(self._tensor_box(("tensor", id(root)), root_name, root))
        self._root_key = root_box.key
        fn = root.grad_fn
        stack = deque()
        if fn is not None:
            stack.append((root_box, fn))
        while stack:
            parent, node = stack.popleft()
            candidate, edges = self._target_for(node, producers, parent)
            box = boxes.get(candidate.key)
            if box is None:
                box = add(candidate)
                for child_fn, _nr in edges:
                    if child_fn is not None:
                        stack.append((box, child_fn))
            if box.key not in parent.children:
                parent.children.append(box.key)
        self._boxes = boxes
        self._order = order
        # Unique labels for the selector: repeated op names are numbered in drawing order.
        counts = Counter(b.title for b in order)
        seen = Counter()
        for b in order:
            seen[b.title] += 1
            b.label = f"{b.title} #{seen[b.title]}" if counts[b.title] > 1 else b.title
        self._assign_depths()

    def _target_for(self, node, producers, parent):
        """The box a gradient flowing into ``node`` lands on: the leaf of an
        AccumulateGrad, a named tensor this node produced (whose one child is then the op
        itself), or the op. Returns (box, the edges to follow from it)."""
        if node.name().endswith("AccumulateGrad"):
            leaf = node.variable
            label = self._names_by_id.get(id(leaf), "leaf")
            return self._tensor_box(("tensor", id(leaf)), label, leaf), ()
        named = producers.get(id(node))
        if named:
            tname, t = named[0]
            key = ("tensor", id(t))
            if key != self._root_key and parent.key != key:
                return self._tensor_box(key, tname, t), ((node, 0),)
        return self._op_box(node), node.next_functions

    def _tensor_box(self, key, name, t):
        lines = [name, f"{shape_text(t.shape)} {str(t.dtype).replace('torch.', '')}"]
        flags = []
        if t.is_leaf:
            flags.append(("leaf, requires grad" if t.requires_grad else
                          "requires_grad=False: no graph to draw", False))
            if t.requires_grad:
                flags.append((_grad_text(t.grad), False))
        else:
            kind = "non-leaf" + (", retains grad" if t.retains_grad else "")
            flags.append((kind, False))
            if t.retains_grad:
                flags.append((_grad_text(t.grad), False))
        flags.append((f"version {t._version}", False))
        return _Box(key, "tensor", lines, flags, target=t)

    def _op_box(self, node):
        lines = [node.name()]
        flags = []
        saved = getattr(node, "_saved", None)
        if getattr(node, "_freed", False):
            flags.append(("saved tensors freed (backward ran)", False))
        elif saved:
            # A Function standing for a PyTorch node labels its saved tensors by that node's
            # names (``self``, ``target``, ``total_weight``), as ``_saved_<name>`` reads them.
            named = function_tensor_names(node) if "saved_tensors" in saved else {}
            for key in saved:  # the formula's order, stable
                entries = saved[key]
                for i, entry in enumerate(entries if isinstance(entries, list) else [entries]):
                    if entry is None:
                        continue
                    label = key if not isinstance(entries, list) else \
                        named.get(i, f"{key}[{i}]")
                    flags.append(self._saved_text(label, entry))
        return _Box(("op", id(node)), "op", lines, flags, target=node)

    def _saved_text(self, label, entry):
        t = entry.tensor
        if t is None:
            return (f"saved {label}: packed by saved_tensors_hooks", False)
        key = (storage_key(t), tuple(t.shape), tuple(t.stride()), t.storage_offset())
        who = self._names_by_id.get(id(t)) or self._layouts.get(key)
        who = f" = {who}" if who else ""
        now = t._version
        if now != entry.version:
            return (f"saved {label}{who} {shape_text(t.shape)} v{entry.version}, now v{now}: "
                    "stale", True)
        return (f"saved {label}{who} {shape_text(t.shape)} v{entry.version}", False)

    def _assign_depths(self):
        # Longest path from the root, so every edge points down; the graph is a DAG.
        indegree = {k: 0 for k in self._boxes}
        for box in self._order:
            for c in box.children:
                indegree[c] += 1
        ready = deque([self._root_key])
        seen = 0
        while ready:
            key = ready.popleft()
            seen += 1
            box = self._boxes[key]
            for c in box.children:
                child = self._boxes[c]
                child.depth = max(child.depth, box.depth + 1)
                indegree[c] -= 1
                if indegree[c] == 0:
                    ready.append(c)
        self.max_depth = max((b.depth for b in self._order), default=0)

    def _default_depth(self):
        if len(self._order) <= self.max_nodes:
            return self.max_depth
        depth = 0
        while depth < self.max_depth and sum(
                1 for b in self._order if b.depth <= depth + 1) <= self.max_nodes:
            depth += 1
        return depth

    def boxes(self, visible_only=True):
        """The nodes in drawing order (root first), the visible ones by default."""
        return [b for b in self._order if not visible_only or b.depth <= self.depth]

    # ------------------------------------------------------------------ state
    def set_depth(self, depth):
        """Show the levels 0..depth (deeper nodes collapse into one box)."""
        depth = int(depth)
        if depth < 0:
            raise ValueError(f"depth must be >= 0, got {depth}")
        self.depth = depth
        self._refresh()

    def select(self, label):
        """Highlight a visible node and show its details: its label is its grad_fn or
        variable name, numbered (``MulBackward0 #2``) when the name repeats; None clears."""
        if label is not None and not any(b.label == label for b in self.boxes()):
            raise ValueError(f"no visible node is called {label!r}; visible: "
                             + ", ".join(b.label for b in self.boxes()))
        self.selected = label
        self._refresh()

    # ------------------------------------------------------------------ snapshot
    def text(self):
        lines = []
        for b in self.boxes():
            children = ", ".join(self._boxes[c].title for c in b.children
                                 if self._boxes[c].depth <= self.depth)
            lines.append("  " * b.depth + b.title + (f" -> {children}" if children else ""))
        hidden = len(self._order) - len(self.boxes())
        if hidden:
            lines.append(f"... {hidden} more nodes below depth {self.depth}")
        return "\n".join(lines)

    def _layout(self):
        visible = self.boxes()
        layers = {}
        for b in visible:
            layers.setdefault(b.depth, []).append(b)
        # Order each layer by the mean position of its parents (fewer crossings), keeping
        # discovery order for ties: deterministic.
        position = {}
        parents = {}
        for b in visible:
            for c in b.children:
                parents.setdefault(c, []).append(b.key)

        def mean_parent_position(box):
            places = [position.get(k, 0) for k in parents.get(box.key, ())] or [0]
            return sum(places) / len(places)

        for d in sorted(layers):
            layer = layers[d]
            if d > 0:
                layer.sort(key=mean_parent_position)  # stable: ties keep discovery order
            for i, b in enumerate(layer):
                position[b.key] = i
        y = 8
        width = 0
        rows = []
        for d in sorted(layers):
            layer = layers[d]
            x = 0
            height = 0
            for b in layer:
                w, h = b.size()
                b.x, b.y, b.w, b.h = x, y, w, h
                x += w + GAP_X
                height = max(height, h)
            rows.append((layer, x - GAP_X))
            width = max(width, x - GAP_X)
            y += height + GAP_Y
        for layer, row_width in rows:  # centre each layer
            shift = (width - row_width) / 2
            for b in layer:
                b.x += shift
        return visible, width, y - GAP_Y + 8

    def html(self):
        visible, width, height = self._layout()
        shown = {b.key for b in visible}
        hidden = [b for b in self._order if b.key not in shown]
        svg = Svg()
        frontier = []
        for b in visible:
            for c in b.children:
                if c in shown:
                    child = self._boxes[c]
                    svg.arrow(b.x + b.w / 2, b.y + b.h, child.x + child.w / 2, child.y,
                              stroke=MUTED)
                elif b not in frontier:
                    frontier.append(b)
        more_y = height + 10
        if hidden:
            label = (f"+ {len(hidden)} more nodes deeper than level {self.depth} "
                     "(raise the depth to open them)")
            mw = len(label) * CHAR_W + 16
            mx = max(0, (width - mw) / 2)
            for b in frontier:
                svg.line(b.x + b.w / 2, b.y + b.h, mx + mw / 2, more_y, stroke=GRID,
                         dash="4,3")
            svg.rect(mx, more_y, mw, 24, fill="#F4F4F4", stroke=GRID, dash="4,3", rx=4)
            svg.text(mx + 8, more_y + 16, label, size=11, fill=MUTED)
            width = max(width, mx + mw)
            height = more_y + 30
        for b in visible:
            selected = self.selected is not None and b.label == self.selected
            if b.kind == "tensor":
                fill = tint(colour(0) if b.target.is_leaf else colour(2), 0.82)
                stroke = colour(0) if b.target.is_leaf else colour(2)
                rx = 10
            else:
                fill, stroke, rx = "#F7F7F7", INK, 2
            svg.rect(b.x, b.y, b.w, b.h, fill=fill, stroke=stroke, width=3 if selected else 1,
                     rx=rx, data={"node": b.label})
            ty = b.y + LINE_H
            for i, line in enumerate(b.lines):
                svg.text(b.x + 8, ty, line, size=11 if i else 12,
                         weight="bold" if i == 0 else None)
                ty += LINE_H
            for text, bad in b.flags:
                svg.text(b.x + 8, ty, text, size=10, fill=BAD if bad else MUTED)
                ty += LINE_H
        picture = svg.render(width + 4, height, self.kind,
                             f"autograd graph of {self._boxes[self._root_key].title}")
        parts = [picture]
        stale = [t for b in visible for t, bad in b.flags if bad]
        if stale:
            parts.append(paragraph(f"{len(stale)} saved tensor(s) changed in place since they "
                                   "were saved: backward() will raise", colour_=BAD,
                                   bold=True))
        if self.selected is not None:
            b = next(b for b in visible if b.label == self.selected)
            details = "; ".join([" ".join(b.lines)] + [t for t, _ in b.flags])
            parts.append(paragraph(f"{self.selected}: {details}", bold=True))
        parts.append(paragraph("arrows: the gradient's way in backward(), from the tensor to "
                               "its leaves; round boxes are tensors, square ones grad_fn "
                               "nodes", colour_=MUTED))
        return wrap(self.kind, "".join(parts))

    # ------------------------------------------------------------------ interactive layer
    def _controls(self, ipywidgets):
        depth = ipywidgets.IntSlider(value=self.depth, min=0, max=max(self.max_depth, 1),
                                     description="depth", continuous_update=False)
        node = ipywidgets.Dropdown(description="node", options=self._node_options(),
                                   value=None)

        def on_depth(change):
            self.set_depth(change["new"])
            if self.selected is not None and not any(b.label == self.selected
                                                     for b in self.boxes()):
                self.selected = None
            node.options = self._node_options()
            self._refresh()

        def on_node(change):
            if change["new"] is not None:
                self.select(change["new"])

        depth.observe(on_depth, names="value")
        node.observe(on_node, names="value")
        return [("depth", depth), ("node", node)]

    def _node_options(self):
        return [b.label for b in self.boxes()]

