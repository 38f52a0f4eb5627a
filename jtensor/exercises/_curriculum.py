"""The curriculum's exercises (``notebooks/``), registered by name on first lookup.

Names are ``<notebook number>-<topic>``. Each reference solution is a named function so that
``jtensor.exercises.solution(name)`` can show its source; each hint carries the typical
wrong answer it is written for (``tests/test_exercises.py`` checks that every reference
passes and every such wrong answer gets its hint).
"""

import numpy as np

import jtensor as torch

from . import Exercise, Hint


# --------------------------------------------------------------- 01 tensors & construction
def _float_array():
    return (np.arange(6, dtype=np.float64).reshape(2, 3),)


def share_numpy(arr):
    return torch.from_numpy(arr)  # torch.as_tensor(arr) also shares here


Exercise(
    "01-share-numpy",
    "Write f(arr) returning a tensor with arr's values that shares arr's memory "
    "(writing into arr must show in the tensor).",
    share_numpy, inputs=_float_array,
    rules=("type", "shape", "dtype", "values", "shares"),
    hints=[
        Hint("torch.tensor(data) always copies: use torch.from_numpy(arr) or "
             "torch.as_tensor(arr), which reuse the array's memory.",
             wrong=lambda arr: torch.tensor(arr)),
        Hint("Asking for another dtype (float32 here) forces a conversion, hence a copy: "
             "keep the array's float64.",
             wrong=lambda arr: torch.as_tensor(arr, dtype=torch.float32)),
    ])


def _leaf():
    return (torch.arange(4.0).requires_grad_(),)


def independent_copy(w):
    return w.detach().clone()


Exercise(
    "01-independent-copy",
    "Write f(w) returning a copy of w's values that is cut from autograd "
    "(requires_grad False) and shares no memory with w.",
    independent_copy, inputs=_leaf,
    rules=("type", "shape", "dtype", "values", "shares", "requires_grad"),
    hints=[
        Hint("detach() alone cuts the graph but still shares w's memory: add .clone().",
             wrong=lambda w: w.detach()),
        Hint("clone() alone copies the memory but stays in the graph (requires_grad True): "
             "detach first.",
             wrong=lambda w: w.clone()),
    ])


def bytes_of_batch():
    x = torch.zeros(1000, 3, dtype=torch.float16)
    return x.numel() * x.element_size()


Exercise(
    "01-bytes",
    "How many bytes does the data of torch.zeros(1000, 3, dtype=torch.float16) take? "
    "Answer an int.",
    bytes_of_batch,
    hints=[
        Hint("3000 is the number of elements; multiply by the element size in bytes.",
             wrong=lambda: 3000),
        Hint("float16 elements take 2 bytes each, not 4 (that is float32).",
             wrong=lambda: 12000),
    ])


# --------------------------------------------------------------- 05 dtypes & promotion
def dtype_int_plus_float_scalar():
    return (torch.tensor([1, 2, 3]) + 2.5).dtype


Exercise(
    "05-int-plus-python-float",
    "What is the dtype of torch.tensor([1, 2, 3]) + 2.5? Answer a dtype, e.g. torch.int64.",
    dtype_int_plus_float_scalar,
    hints=[
        Hint("A Python float only moves the result to the floating category; the dtype is "
             "then the default float dtype, torch.float32, not float64.",
             wrong=lambda: torch.float64),
        Hint("The result cannot stay integer: 2.5 has a fractional part, so the category "
             "goes up to floating point.",
             wrong=lambda: torch.int64),
    ])


def dtype_half_plus_zero_dim_double():
    return (torch.ones(3, dtype=torch.float16) + torch.tensor(1.0, dtype=torch.float64)).dtype


Exercise(
    "05-half-plus-0dim-double",
    "What is the dtype of torch.ones(3, dtype=torch.float16) + "
    "torch.tensor(1.0, dtype=torch.float64)?",
    dtype_half_plus_zero_dim_double,
    hints=[
        Hint("A 0-dim tensor of the same category (floating) does not widen a dimensioned "
             "tensor: the float16 operand decides.",
             wrong=lambda: torch.float64),
    ])


def _predictions():
    return (torch.tensor([0, 2, 1, 1, 0]), torch.tensor([0, 1, 1, 1, 2]))


def accuracy(pred, labels):
    return (pred == labels).float().mean()


Exercise(
    "05-accuracy",
    "Write f(pred, labels) (int64 class ids) returning the fraction of correct predictions "
    "as a 0-dim float32 tensor.",
    accuracy, inputs=_predictions,
    hints=[
        Hint("mean() refuses bool and integer tensors (it cannot infer a floating dtype): "
             "convert the comparison with .float() first.",
             wrong=lambda pred, labels: (pred == labels).mean()),
        Hint("sum() of a bool tensor is an int64 count; divide by the number of elements "
             "(or use .float().mean()).",
             wrong=lambda pred, labels: (pred == labels).sum()),
        Hint("Converting to float64 (.double()) gives the right value in the wrong dtype: "
             "use .float().",
             wrong=lambda pred, labels: (pred == labels).double().mean()),
    ])


# --------------------------------------------------------------- 06 devices
def sync_points():
    return {"item", "print", "cpu"}


Exercise(
    "06-sync-points",
    "Which of these make the host wait for the device? 'add' (c = a + b), 'item' "
    "(c.sum().item()), 'print' (print(c)), 'cpu' (c.cpu()), 'view' (c.view(-1)). Answer a "
    "set of names.",
    sync_points,
    hints=[
        Hint("Printing a CUDA tensor needs its values on the host, so it waits too.",
             wrong=lambda: {"item", "cpu"}),
        Hint("Launching c = a + b only queues a kernel: the host goes on at once.",
             wrong=lambda: {"add", "item", "print", "cpu"}),
    ])


def _cpu_and_cuda():
    return (torch.arange(3.0), torch.ones(3, device="cuda"))


def add_on_device(x_cpu, y_cuda):
    return x_cpu.to(y_cuda.device) + y_cuda


Exercise(
    "06-add-across-devices",
    "Write f(x_cpu, y_cuda) returning x_cpu + y_cuda, computed on y_cuda's device.",
    add_on_device, inputs=_cpu_and_cuda,
    rules=("type", "shape", "dtype", "values", "device"),
    hints=[
        Hint("Bringing the CUDA tensor back to the CPU gives the right values on the wrong "
             "device: move the CPU operand to y_cuda.device instead.",
             wrong=lambda x, y: x + y.cpu()),
    ])


# --------------------------------------------------------------- 11 matmul
def matmul_shape():
    return (10, 3)


Exercise(
    "11-matmul-shape",
    "What is the shape of torch.matmul(A, v) for A of shape (10, 3, 4) and v of shape (4,)? "
    "Answer a tuple.",
    matmul_shape,
    hints=[
        Hint("A 1-D second operand gets a 1 appended for the product and removed after: the "
             "result has no trailing 1.",
             wrong=lambda: (10, 3, 1)),
        Hint("The contracted size 4 disappears; the batch 10 and the rows 3 remain.",
             wrong=lambda: (10, 4)),
    ])


def _four_d():
    a = torch.arange(2 * 3 * 4 * 5, dtype=torch.float64).reshape(2, 3, 4, 5) / 10
    b = torch.arange(2 * 5 * 6 * 7, dtype=torch.float64).reshape(2, 5, 6, 7) / 100
    return (a, b)


def bmm_4d(a, b):
    n, k = a.shape[0], a.shape[-1]
    r = a.reshape(n, -1, k).bmm(b.reshape(n, k, -1))
    return r.reshape(a.shape[:-1] + b.shape[2:])


Exercise(
    "11-bmm-4d",
    "a has shape (2, 3, 4, 5), b has shape (2, 5, 6, 7). Write f(a, b) returning r of shape "
    "(2, 3, 4, 6, 7) with r[n, i, j, k, l] = sum over m of a[n, i, j, m] * b[n, m, k, l], "
    "using one bmm.",
    bmm_4d, inputs=_four_d,
    hints=[
        Hint("a @ b treats the last two dims as matrices and broadcasts the others: (2, 3) "
             "and (2, 5) do not broadcast. Flatten a to (2, 12, 5) and b to (2, 5, 42), bmm, "
             "then reshape.",
             wrong=lambda a, b: a @ b),
        Hint("Reshaping b to (2, 5, 42) must keep m (size 5) as b's dim 1; transposing it "
             "away mixes up the contraction.",
             wrong=lambda a, b: a.reshape(2, -1, 5).bmm(
                 b.transpose(1, 3).reshape(2, 5, -1)).reshape(2, 3, 4, 6, 7)),
    ])


def _rows_and_matrices():
    x = torch.arange(20.0).reshape(4, 5) / 4
    w = torch.arange(120.0).reshape(4, 5, 6) / 8
    return (x, w)


def row_times_matrix(x, w):
    return (x.unsqueeze(1) @ w).squeeze(1)


Exercise(
    "11-row-times-matrix",
    "x has shape (4, 5) and W shape (4, 5, 6). Write f(x, W) returning shape (4, 6) whose "
    "row i is x[i] @ W[i].",
    row_times_matrix, inputs=_rows_and_matrices,
    hints=[
        Hint("x @ W broadcasts the whole (4, 5) matrix against each of the 4 matrices: "
             "shape (4, 4, 6). Make each row a (1, 5) matrix: x.unsqueeze(1) @ W, then "
             "squeeze(1).",
             wrong=lambda x, w: x @ w),
        Hint("The products are right, but keep the shape (4, 6): squeeze the 1 that "
             "unsqueeze(1) added.",
             wrong=lambda x, w: x.unsqueeze(1) @ w),
    ])


# --------------------------------------------------------------- 17 trivia
def _small():
    return (torch.tensor([1, 2, 3]),)


def like_numpy_repeat(x):
    return x.repeat_interleave(2)


Exercise(
    "17-numpy-repeat",
    "Write f(x) giving what np.repeat(x, 2) gives for a 1-D x: each element twice in a row "
    "([1, 1, 2, 2, 3, 3]).",
    like_numpy_repeat, inputs=_small,
    hints=[
        Hint("Tensor.repeat tiles the whole tensor (like np.tile): [1, 2, 3, 1, 2, 3]. "
             "repeat_interleave repeats each element.",
             wrong=lambda x: x.repeat(2)),
    ])


def _rows():
    return (torch.arange(6).reshape(2, 3),)


def tile_rows(x):
    return x.repeat(2, 1)


Exercise(
    "17-tile-rows",
    "x has shape (2, 3). Write f(x) returning shape (4, 3): x's two rows, then the same two "
    "rows again (like np.tile(x, (2, 1))).",
    tile_rows, inputs=_rows,
    hints=[
        Hint("repeat_interleave(2, dim=0) doubles each row in place (row0, row0, row1, "
             "row1); the whole block twice is x.repeat(2, 1).",
             wrong=lambda x: x.repeat_interleave(2, dim=0)),
        Hint("x.repeat(2) on a 2-D tensor is an error: repeat needs one count per dim, "
             "x.repeat(2, 1).",
             wrong=lambda x: x.repeat(2)),
    ])


def _mask_case():
    x = torch.tensor([[0.5, -1.0, 2.0], [3.0, -0.5, 1.5]])
    return (x, x > 1)


def select_masked(x, mask):
    return torch.masked_select(x, mask)


Exercise(
    "17-masked-select",
    "Write f(x, mask) returning the elements of x where mask is True, as a 1-D tensor, "
    "with torch.masked_select.",
    select_masked, inputs=_mask_case,
    hints=[
        Hint("masked_select takes the input first and the mask second: "
             "torch.masked_select(x, mask).",
             wrong=lambda x, mask: torch.masked_select(mask, x)),
        Hint("x * mask keeps the shape and puts zeros where mask is False; masked_select "
             "returns only the selected elements, flattened.",
             wrong=lambda x, mask: x * mask),
    ])
