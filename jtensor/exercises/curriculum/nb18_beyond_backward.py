"""Exercises of notebook 18_beyond_backward.ipynb (Jacobians, forward mode, vmap).

Names are ``<notebook number>-<topic>``; see ``jtensor/exercises/curriculum``.
"""

import jtensor as torch

from .. import Exercise, Hint


def _matrix_and_point():
    gen = torch.Generator().manual_seed(18)
    return (torch.randn(2, 3, generator=gen, dtype=torch.float64),
            torch.randn(3, generator=gen, dtype=torch.float64))


def jacobian_of_h(A, x):
    # d/dx_j of sum_k A[i, k] tanh(x_k) is A[i, j] * (1 - tanh(x_j)**2): scale A's columns.
    return A * (1 - x.tanh() ** 2)


Exercise(
    "18-chain-rule-jacobian",
    "Write f(A, x) returning the (m, n) Jacobian of h(x) = A @ x.tanh() at x, by the chain rule "
    "(no jacrev, jacfwd or jacobian).",
    jacobian_of_h, inputs=_matrix_and_point,
    hints=[
        Hint("h is A applied after tanh: the Jacobian is A times tanh's derivative, "
             "1 - tanh(x)**2, not A alone.",
             wrong=lambda A, x: A.clone()),
        Hint("tanh's derivative scales the columns (one factor per input x_j): multiply A by "
             "a row, (1 - x.tanh()**2) broadcast along dim 0, not by a column.",
             wrong=lambda A, x: A * (1 - x.tanh() ** 2)[: A.shape[0], None]),
        Hint("The derivative of tanh is 1 - tanh(x)**2, not 1 - x**2.",
             wrong=lambda A, x: A * (1 - x ** 2)),
    ])


def _regression_batch():
    gen = torch.Generator().manual_seed(180)
    return (torch.randn(3, generator=gen, dtype=torch.float64),
            torch.randn(5, 3, generator=gen, dtype=torch.float64),
            torch.randn(5, generator=gen, dtype=torch.float64))


def per_sample_grad_norms(w, X, y):
    def loss(w, xi, yi):
        return (xi @ w - yi) ** 2

    grads = torch.func.vmap(torch.func.grad(loss), in_dims=(None, 0, 0))(w, X, y)
    return grads.norm(dim=1)


def _mean_gradient_norm(w, X, y):
    w = w.detach().requires_grad_()
    ((X @ w - y) ** 2).mean().backward()
    return w.grad.norm().expand(X.shape[0]).clone()


Exercise(
    "18-per-sample-norms",
    "Write f(w, X, y) returning, for each sample i, the norm of the gradient of "
    "(X[i] @ w - y[i])**2 with respect to w: a (B,) tensor.",
    per_sample_grad_norms, inputs=_regression_batch,
    hints=[
        Hint("That is the norm of the batch's mean gradient, the same for every sample: each "
             "sample needs its own gradient, for example vmap(grad(loss), in_dims=(None, 0, 0)).",
             wrong=_mean_gradient_norm),
        Hint("The gradient of (X[i] @ w - y[i])**2 is 2 * (X[i] @ w - y[i]) * X[i]: the factor "
             "2 is missing.",
             wrong=lambda w, X, y: ((X @ w - y)[:, None] * X).norm(dim=1)),
    ])


def _point_and_direction():
    gen = torch.Generator().manual_seed(1800)
    return (torch.randn(4, generator=gen, dtype=torch.float64),
            torch.randn(4, generator=gen, dtype=torch.float64))


def directional_derivative(x, v):
    return torch.func.jvp(lambda x: (x ** 3).sum(), (x,), (v,))[1]


Exercise(
    "18-directional-derivative",
    "Write f(x, v) returning the derivative of (x ** 3).sum() at x along v, a 0-d tensor.",
    directional_derivative, inputs=_point_and_direction,
    hints=[
        Hint("That is the gradient 3 * x**2; the directional derivative is its dot product "
             "with v (or jvp's tangent).",
             wrong=lambda x, v: 3 * x ** 2),
        Hint("Summing the gradient ignores the direction: weight each component by v.",
             wrong=lambda x, v: (3 * x ** 2).sum()),
    ])
