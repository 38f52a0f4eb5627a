"""Reading autograd graphs in tests: the names of the nodes a graph holds."""

import collections


def node_names(outputs):
    """The multiset (a Counter) of the class names of every node reachable from the
    ``grad_fn`` of each tensor in ``outputs``, ``AccumulateGrad`` included, each node once."""
    seen, names, stack = set(), collections.Counter(), [t.grad_fn for t in outputs]
    while stack:
        fn = stack.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        names[type(fn).__name__] += 1
        stack.extend(n for n, _ in fn.next_functions)
    return names


def describe_node(t):
    """``t.grad_fn``'s name, its edges (next node names and input numbers) and what it
    saved (``_saved_*`` attributes, tensors as their shape and bytes)."""
    import jtensor

    node = t.grad_fn
    edges = [(n.name() if n is not None else None, nr) for n, nr in node.next_functions]
    saved = {k: getattr(node, k) for k in dir(node) if k.startswith("_saved_")}
    saved = {
        k: (tuple(v.shape), v.detach().numpy().tobytes()) if isinstance(v, jtensor.Tensor) else v
        for k, v in saved.items()
    }
    return node.name(), edges, saved


def record_and_describe(make, leaves):
    """``make(*leaves)`` recorded under saved-tensor hooks, then ``out.sum().backward()``:
    the result's bytes, its node (``describe_node``), what the pack hook saw in order, and
    each leaf's gradient bytes (None where it got none): all a recording path decides."""
    import jtensor

    packed = []

    def pack(t):
        packed.append((tuple(t.shape), t.detach().numpy().tobytes()))
        return t

    with jtensor.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        out = make(*leaves)
    described = describe_node(out)
    out.sum().backward()
    grads = [None if t.grad is None else t.grad.numpy().tobytes() for t in leaves]
    return out.detach().numpy().tobytes(), tuple(out.stride()), described, packed, grads
