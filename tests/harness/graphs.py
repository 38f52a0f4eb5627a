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
