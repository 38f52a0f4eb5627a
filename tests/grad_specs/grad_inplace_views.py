from tests.harness.gradients import G

GRADS = [
    G("t_", lambda lib, a: (a * 1).t_() * lib.arange(2.0, dtype=lib.float64), [(2, 3)],
      variants=False),
    G("transpose_", lambda lib, a: (a * 1).transpose_(0, 2).sin(), [(2, 3, 2)], variants=False),
    G("unsqueeze_", lambda lib, a: (a * 1).unsqueeze_(1).exp(), [(2, 3)], variants=False),
    G("squeeze_", lambda lib, a: (a * 1).squeeze_().cos(), [(2, 1, 3)], variants=False),
    G("squeeze_", lambda lib, a: (a * 1).squeeze_(1) ** 2, [(2, 1, 3)], variants=False),
    G("as_strided_", lambda lib, a: (a * 1).as_strided_((2, 2), (1, 2), 1) * 3, [(6,)],
      variants=False),
    G("t_", lambda lib, a: (lambda b: (b[0].unsqueeze_(0).t_(), b)[1])(a * 2).sum(0),
      [(2, 3)], variants=False),
]
