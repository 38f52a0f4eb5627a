"""Exercises of notebook 01_tensors.ipynb (tensors & construction).

Names are ``<notebook number>-<topic>``; see ``jtensor/exercises/curriculum``.
"""

import numpy as np

import jtensor as torch

from .. import Exercise, Hint


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
    x = torch.empty(64, 3, 32, 32, dtype=torch.bfloat16)
    return x.numel() * x.element_size()


Exercise(
    "01-bytes",
    "A batch of 64 RGB images of 32 x 32 pixels is stored as torch.empty(64, 3, 32, 32, "
    "dtype=torch.bfloat16). How many bytes does its data take? Answer an int.",
    bytes_of_batch,
    hints=[
        Hint("196608 is the number of elements (64 * 3 * 32 * 32); multiply by the element "
             "size in bytes.",
             wrong=lambda: 196608),
        Hint("bfloat16 elements take 2 bytes each, like float16, not 4 (that is float32).",
             wrong=lambda: 786432),
    ])


def quiz_01():
    import numpy as np

    arr = np.zeros(3)
    copied = torch.tensor(arr)
    copied[0] = 1.0
    return (bool(arr[0] == 1.0), str(torch.as_tensor(np.zeros(2)).dtype).split(".")[1],
            torch.ones(10, 10, dtype=torch.int16).numel() * 2)


Exercise(
    "01-quiz",
    "Self-check. (1) Does torch.tensor(arr) share memory with the NumPy array arr? (a bool) "
    "(2) The dtype of torch.as_tensor(np.zeros(2)): 'float32' or 'float64'? (3) How many bytes "
    "does the data of torch.ones(10, 10, dtype=torch.int16) take? Answer a tuple of the three.",
    quiz_01,
    hints=[
        Hint("(1) torch.tensor always copies its data; from_numpy and as_tensor share.",
             wrong=lambda: (True, "float64", 200)),
        Hint("(2) NumPy's default float is float64, and as_tensor keeps the array's dtype.",
             wrong=lambda: (False, "float32", 200)),
        Hint("(3) int16 takes 2 bytes per element: 100 elements are 200 bytes.",
             wrong=lambda: (False, "float64", 100)),
    ])
