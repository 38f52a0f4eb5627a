"""Python containers as trees of leaves (PyTorch's ``torch.utils._pytree``, the part the
function transforms need): tuples, lists, dicts and named tuples are nodes, anything else
(tensors, numbers, None) a leaf."""


class Spec:
    """A tree's shape: ``kind`` (``"leaf"``, ``tuple``, ``list``, ``dict`` or a named tuple
    class), ``context`` (a dict's keys), ``children`` (their specs)."""

    __slots__ = ("kind", "context", "children", "leaves")

    def __init__(self, kind, context=None, children=()):
        self.kind = kind
        self.context = context
        self.children = children
        self.leaves = 1 if kind == "leaf" else sum(c.leaves for c in children)

    def __eq__(self, other):
        return (
            isinstance(other, Spec)
            and self.kind == other.kind
            and self.context == other.context
            and self.children == other.children
        )

    def __hash__(self):
        return hash((str(self.kind), len(self.children)))

    def __repr__(self):
        if self.kind == "leaf":
            return "*"
        name = getattr(self.kind, "__name__", str(self.kind))
        inner = ", ".join(repr(c) for c in self.children)
        if self.context is not None:
            return f"{name}({list(self.context)}: [{inner}])"
        return f"{name}([{inner}])"


LEAF = Spec("leaf")


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def is_node(x):
    """Whether ``x`` is a container the transforms look into."""
    return type(x) in (tuple, list, dict) or _is_namedtuple(x)


def flatten(tree):
    """``(leaves, spec)`` of ``tree``, leaves in order (dicts in their insertion order)."""
    leaves = []
    spec = _flatten(tree, leaves)
    return leaves, spec


def _flatten(tree, leaves):
    kind = type(tree)
    if kind is tuple or kind is list:
        return Spec(kind, None, tuple(_flatten(x, leaves) for x in tree))
    if kind is dict:
        keys = tuple(tree)
        return Spec(dict, keys, tuple(_flatten(tree[k], leaves) for k in keys))
    if _is_namedtuple(tree):
        return Spec(kind, None, tuple(_flatten(x, leaves) for x in tree))
    leaves.append(tree)
    return LEAF


def unflatten(leaves, spec):
    """The tree of shape ``spec`` holding ``leaves``."""
    it = iter(leaves)
    return _build(spec, it)


def _build(spec, it):
    kind = spec.kind
    if kind == "leaf":
        return next(it)
    children = [_build(c, it) for c in spec.children]
    if kind is tuple or kind is list:
        return kind(children)
    if kind is dict:
        return dict(zip(spec.context, children, strict=True))
    return kind(*children)


def broadcast_prefix(prefix, tree, what="in_dims"):
    """The leaves of ``prefix`` repeated over ``tree``'s leaves: ``prefix`` matches ``tree``
    down to some depth and one of its leaves stands for a whole subtree of ``tree``
    (``in_dims=(0, None)`` over ``(x, {"a": y})``). Returns None when they do not match."""
    out = []
    if not _broadcast(prefix, tree, out):
        return None
    return out


def _broadcast(prefix, tree, out):
    if not is_node(prefix):
        out.extend([prefix] * flatten(tree)[1].leaves)
        return True
    if type(prefix) is not type(tree) and not (
        isinstance(prefix, tuple)
        and isinstance(tree, tuple)
        and _is_namedtuple(tree)
        and not _is_namedtuple(prefix)
    ):
        return False
    if isinstance(prefix, dict):
        if set(prefix) != set(tree):
            return False
        return all(_broadcast(prefix[k], tree[k], out) for k in tree)
    if len(prefix) != len(tree):
        return False
    return all(_broadcast(p, t, out) for p, t in zip(prefix, tree, strict=True))
