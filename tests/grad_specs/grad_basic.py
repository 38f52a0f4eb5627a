from tests.harness.gradients import G, NonDiff

GRADS = [
    G("add", lambda lib, a, b: lib.add(a, b, alpha=2), [(2, 3), (3,)]),
    G("add", lambda lib, a: a + 3, [(3,)]),
    G("mul", lambda lib, a, b: a * b, [(2, 3), (2, 1)]),
    G("sum", lambda lib, a: a.sum(), [(2, 3)]),
    G("sum", lambda lib, a: a.sum(1, keepdim=False), [(2, 3)]),
    G("sigmoid", lambda lib, a: a.sigmoid(), [(2, 3)]),
    G("view", lambda lib, a: a.view(3, 2), [(2, 3)], variants=False),
    G("add_", lambda lib, a, b: (a * 1).add_(b, alpha=-2), [(2, 3), (3,)], variants=False),
    G("sigmoid_", lambda lib, a: (a * 1).sigmoid_(), [(2, 3)], variants=False),
    G("expand", lambda lib, a: a.expand(3, 2, 4), [(2, 1)]),
    G("expand", lambda lib, a: a.unsqueeze(0).expand(-1, 3) * 2, [(3,)], variants=False),
    G("as_strided", lambda lib, a: a.as_strided((2, 2), (1, 2), 1), [(6,)], variants=False),
    G("as_strided", lambda lib, a: a.as_strided((3, 3), (1, 1)), [(2, 3)], variants=False),
    NonDiff("detach", "no history by definition"),
]
