"""The device helpers ``torch.nn.parallel`` takes from ``torch._utils``: which accelerator
there is, its device indices, and an index from whatever names a device."""

from ... import cuda
from ..._device import device as _device


def _get_available_device_type():
    """``"cuda"`` when CUDA devices are available (real or emulated), else None."""
    return "cuda" if cuda.is_available() else None


def _get_all_device_indices():
    """The indices of every CUDA device, or None without CUDA."""
    if _get_available_device_type() is None:
        return None
    return list(range(cuda.device_count()))


def _get_current_device_index():
    return cuda.current_device() if _get_available_device_type() is not None else -1


def _get_device_index(device, optional=False, allow_cpu=False):
    """PyTorch's ``_get_device_index``: the index of ``device`` (an int, a string, a device,
    a ``cuda.device`` context; None or a device without index: the current device when
    ``optional``; a CPU device: -1 when ``allow_cpu``, else ValueError)."""
    if isinstance(device, cuda.device):
        return device.idx
    if isinstance(device, str):
        device = _device(device)
    index = None
    if isinstance(device, _device):
        if not allow_cpu and device.type == "cpu":
            raise ValueError(f"Expected a non cpu device, but got: {device}")
        index = -1 if device.type == "cpu" else device.index
    if isinstance(device, int):
        index = device
    if index is None:
        if not optional:
            raise ValueError(
                f"Expected a torch.device with a specified index or an integer, but got:{device}"
            )
        index = _get_current_device_index()
    return index


def _cuda(index):
    """The device ``cuda:<index>``."""
    return _device("cuda", index)
