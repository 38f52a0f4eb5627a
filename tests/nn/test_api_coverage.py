"""``dir()`` of ``torch.nn``, ``torch.nn.functional``, ``torch.nn.init``,
``torch.nn.utils`` and ``torch.nn.utils.prune`` against jtensor's: a public name PyTorch has
and jtensor lacks fails the test unless it is a deliberate omission (``OMITTED``, with its
reason) or a known gap (``PENDING``, the to-do list of issue 15). A pending name that now
exists fails too, so the lists only shrink."""

import importlib

import pytest

import jtensor

torch = pytest.importorskip("torch")
importlib.import_module("torch.nn.utils.prune")  # (torch.nn.utils does not import it)

# Deliberate omissions: not part of what a learner's program reaches.
_TYPING = {
    "Callable",
    "Optional",
    "Literal",
    "ParamSpec",
    "TypeVar",
    "TYPE_CHECKING",
    "Tensor",
    "DType",
    "BroadcastingList1",
    "BroadcastingList2",
    "BroadcastingList3",
}
_MODULES = {"torch", "math", "np", "warnings", "importlib", "dataclasses"}  # imports
OMITTED = {
    "nn": {
        # distributed / quantized / compiled internals and namespaces
        "SyncBatchNorm",
        "intrinsic",
        "qat",
        "quantizable",
        "quantized",
        "attention",
        "common_types",
        "factory_kwargs",
        "grad",
        # legacy aliases kept for old checkpoints: Container (pre-0.4 Module), NLLLoss2d
        "Container",
        "NLLLoss2d",
        # LuaTorch's legacy cross-map LRN (LocalResponseNorm is the supported form)
        "CrossMapLRN2d",
    },
    "F": _TYPING
    | _MODULES
    | {
        # __torch_function__ machinery and TorchScript helpers
        "handle_torch_function",
        "has_torch_function",
        "has_torch_function_unary",
        "has_torch_function_variadic",
        "boolean_dispatch",
        "assert_int_or_pair",
        "grad",
        # documentation strings
        "reproducibility_notes",
        "sparse_support_notes",
        "tf32_notes",
        # low-precision GPU matmul kernels (float8 scaling, grouped GEMM)
        "scaled_mm",
        "scaled_grouped_mm",
        "grouped_mm",
        "ScalingType",
        "SwizzleType",
        # a TorchScript-era convolution layout (time, batch, channel)
        "conv_tbc",
    },
    "init": _TYPING | _MODULES,
    "utils": {
        # channels_last weight conversion: a performance hint without effect here
        "convert_conv2d_weight_memory_format",
        "convert_conv3d_weight_memory_format",
        "memory_format",
        "convert_parameters",
        "init",
    },
    "prune": _MODULES | {"ABC", "Iterable", "abstractmethod", "numbers"},  # its imports
}

# Known gaps (issue 15), most valuable first; remove a name when it lands.
PENDING = {
    "nn": set(),
    "F": set(),
    "init": set(),
    "utils": set(),
    "prune": set(),
}

NAMESPACES = {
    "nn": (lambda lib: lib.nn),
    "F": (lambda lib: lib.nn.functional),
    "init": (lambda lib: lib.nn.init),
    "utils": (lambda lib: lib.nn.utils),
    "prune": (lambda lib: lib.nn.utils.prune),
}


def _public(namespace):
    return {n for n in dir(namespace) if not n.startswith("_")}


@pytest.mark.parametrize("key", sorted(NAMESPACES))
def test_no_new_gap(key):
    get = NAMESPACES[key]
    missing = _public(get(torch)) - _public(get(jtensor)) - OMITTED[key] - PENDING[key]
    assert not missing, (
        f"torch.{key} names missing from jtensor (implement them, or list "
        f"them in OMITTED/PENDING with a reason): {sorted(missing)}"
    )


@pytest.mark.parametrize("key", sorted(NAMESPACES))
def test_pending_list_is_current(key):
    get = NAMESPACES[key]
    landed = PENDING[key] & _public(get(jtensor))
    assert not landed, f"now implemented, remove from PENDING[{key!r}]: {sorted(landed)}"
    vanished = (PENDING[key] | OMITTED[key]) - _public(get(torch)) - _MODULES - _TYPING
    assert not vanished, f"no longer in torch.{key}, remove from the lists: {sorted(vanished)}"


def _class_namespaces(lib):
    return {
        "nn": lib.nn,
        "optim": lib.optim,
        "lr_scheduler": lib.optim.lr_scheduler,
        "data": lib.utils.data,
        "distributions": lib.distributions,
        "transforms": lib.distributions.transforms,
        "constraints": lib.distributions.constraints,
        "prune": lib.nn.utils.prune,
    }


@pytest.mark.parametrize("key", sorted(_class_namespaces(torch)))
def test_classes_live_where_pytorch_puts_them(key):
    """``type(layer)`` prints PyTorch's module path (with jtensor's name), and that module
    holds the class (pickles name it)."""
    import importlib

    ours, theirs = _class_namespaces(jtensor)[key], _class_namespaces(torch)[key]
    wrong = []
    for name in sorted(_public(theirs)):
        t, j = getattr(theirs, name), getattr(ours, name, None)
        if not (isinstance(t, type) and isinstance(j, type)) or not t.__module__.startswith(
            "torch."
        ):
            continue  # (imports such as ``collections.Counter`` are not PyTorch's)
        home = "jtensor" + t.__module__[len("torch") :]
        if (j.__module__, j.__qualname__) != (home, t.__qualname__):
            wrong.append(f"{name}: {j.__module__}.{j.__qualname__}, want {home}.{t.__qualname__}")
        elif getattr(importlib.import_module(home), t.__qualname__, None) is not j:
            wrong.append(f"{name}: {home} does not hold it")
    assert not wrong, wrong
