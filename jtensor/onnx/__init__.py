"""``torch.onnx``: importable, but jtensor cannot write ONNX files.

Exporting to ONNX captures the model as a graph (PyTorch traces it with TorchScript or
``torch.export``) and translates that graph to ONNX operators. jtensor runs eagerly on NumPy
and has no compiler or graph IR (see :mod:`jtensor.compiler` and :mod:`jtensor.jit`), so
:func:`export` raises :class:`OnnxExporterError` (a ``RuntimeError``, as PyTorch's) naming
the model, instead of writing a file that does not represent it. Programs that only import
``torch.onnx`` (and export in a branch they do not take) run unchanged.
"""

import enum

__all__ = [
    "OnnxExporterError",
    "OperatorExportTypes",
    "TrainingMode",
    "dynamo_export",
    "export",
    "is_in_onnx_export",
]


class OnnxExporterError(RuntimeError):
    """``torch.onnx.OnnxExporterError``: an ONNX export failed (always, in jtensor)."""


class TrainingMode(enum.IntEnum):
    """``torch.onnx.TrainingMode``: the mode an exported graph records (export arguments)."""

    EVAL = 0
    PRESERVE = 1
    TRAINING = 2


class OperatorExportTypes(enum.IntEnum):
    """``torch.onnx.OperatorExportTypes``: how operators are exported (export arguments)."""

    ONNX = 0
    ONNX_ATEN = 1
    ONNX_ATEN_FALLBACK = 2
    ONNX_FALLTHROUGH = 3


def _refuse(function, model):
    name = type(model).__name__
    raise OnnxExporterError(
        f"torch.onnx.{function}({name}) is not supported by jtensor: jtensor cannot write ONNX "
        "files, because exporting needs the model captured as a graph and jtensor has no "
        "compiler or graph IR (it runs the Python forward eagerly). Export the model with "
        "PyTorch instead (save its state_dict with torch.save; PyTorch loads it)."
    )


def export(model, args=(), f=None, *pargs, **kwargs):
    """``torch.onnx.export``: raises :class:`OnnxExporterError` (a ``RuntimeError``) naming
    ``model``'s class; no file is written.

    >>> import jtensor as torch
    >>> torch.onnx.export(torch.nn.Linear(2, 1), (torch.zeros(1, 2),), "model.onnx")
    Traceback (most recent call last):
        ...
    jtensor.onnx.OnnxExporterError: torch.onnx.export(Linear) is not supported by jtensor: ...
    """
    _refuse("export", model)


def dynamo_export(model, *model_args, **kwargs):
    """The exporter earlier PyTorch versions named ``torch.onnx.dynamo_export`` (PyTorch 2.13
    folded it into :func:`export`): raises :class:`OnnxExporterError` like :func:`export`."""
    _refuse("dynamo_export", model)


def is_in_onnx_export():
    """False: no ONNX export is ever running in jtensor (PyTorch's answer outside one)."""
    return False
