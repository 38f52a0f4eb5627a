"""Random number generation state: ``Generator``, ``manual_seed``, ``get_rng_state``...

jtensor's generators are NumPy ``PCG64`` bit generators. Seeding makes every random op
reproducible (same seed, same calls -> same values), but the values differ from PyTorch's
(PyTorch uses a Mersenne Twister and its own sampling kernels, which jtensor does not
reproduce). Code that only needs reproducibility, or the right distribution, runs unchanged.

>>> import jtensor as torch
>>> _ = torch.manual_seed(0); a = torch.rand(3).tolist()
>>> _ = torch.manual_seed(0); a == torch.rand(3).tolist()
True
"""

import contextlib
import os

import numpy as np

from . import _argparse
from ._device import to_device
from ._errors import TensorRuntimeError, TensorTypeError

# PyTorch's default CPU seed (what torch.initial_seed() reports before any seeding).
DEFAULT_SEED = 67280421310721
_MASK64 = (1 << 64) - 1
# State layout: 16 bytes state + 16 bytes increment + 1 byte has_uint32 + 4 bytes uinteger
# + 8 bytes initial seed.
_STATE_BYTES = 45


def _seed_int(seed):
    """PyTorch's seed normalisation: any int in [-2**63, 2**64), negatives wrap around."""
    try:
        seed = int(seed)
    except (TypeError, ValueError):
        raise TensorTypeError(f"manual_seed expected an int, got {type(seed).__name__}") from None
    if not -(1 << 63) <= seed <= _MASK64:
        raise TensorRuntimeError(
            f"Overflow when unpacking long: seed must be within [-0x8000_0000_0000_0000, "
            f"0xffff_ffff_ffff_ffff], got {seed}")
    return seed & _MASK64


class Generator:
    """A random stream (NumPy PCG64) with PyTorch's Generator interface.

    Values differ from PyTorch's for the same seed; the same seed always gives the same
    values in jtensor.
    """

    def __init__(self, device="cpu"):
        self.device = to_device(device)
        self._reseed(DEFAULT_SEED)

    def _reseed(self, seed):
        self._initial_seed = seed
        self._bitgen = np.random.PCG64(seed)
        self._rng = np.random.Generator(self._bitgen)

    def manual_seed(self, seed):
        """Reset the stream to ``seed``; returns this generator (as PyTorch)."""
        self._reseed(_seed_int(seed))
        return self

    def seed(self):
        """Seed from the OS entropy pool and return the seed chosen."""
        seed = int.from_bytes(os.urandom(8), "little")
        self._reseed(seed)
        return seed

    def initial_seed(self):
        """The seed this generator was last seeded with."""
        return self._initial_seed

    def get_state(self):
        """The full state as a uint8 tensor (pass it to ``set_state`` to rewind)."""
        from ._ops.creation import _place
        from . import _dtypes

        st = self._bitgen.state
        raw = (st["state"]["state"].to_bytes(16, "little")
               + st["state"]["inc"].to_bytes(16, "little")
               + bytes([int(st["has_uint32"])])
               + int(st["uinteger"]).to_bytes(4, "little")
               + self._initial_seed.to_bytes(8, "little"))
        return _place(np.frombuffer(raw, dtype=np.uint8).copy(), _dtypes.uint8, "cpu")

    def set_state(self, new_state):
        """Restore a state returned by ``get_state`` (a uint8 tensor); returns self."""
        from ._tensor import Tensor
        from . import _dtypes

        if not isinstance(new_state, Tensor):
            raise TensorTypeError(
                f"expected a torch.ByteTensor, but got {type(new_state).__name__}")
        if new_state._dtype is not _dtypes.uint8:
            raise TensorTypeError(
                f"expected a torch.ByteTensor, but got a tensor of dtype {new_state._dtype}")
        raw = bytes(np.ascontiguousarray(new_state._host_array()).reshape(-1).tobytes())
        if len(raw) != _STATE_BYTES:
            raise TensorRuntimeError(
                f"Expected a state of {_STATE_BYTES} bytes (from jtensor's get_state), got "
                f"{len(raw)}. PyTorch's generator states cannot be loaded into jtensor.")
        state = {
            "bit_generator": "PCG64",
            "state": {"state": int.from_bytes(raw[0:16], "little"),
                      "inc": int.from_bytes(raw[16:32], "little")},
            "has_uint32": raw[32],
            "uinteger": int.from_bytes(raw[33:37], "little"),
        }
        bitgen = np.random.PCG64()
        bitgen.state = state
        self._bitgen = bitgen
        self._rng = np.random.Generator(bitgen)
        self._initial_seed = int.from_bytes(raw[37:45], "little")
        return self

    def __repr__(self):
        return f"<jtensor.Generator object on {self.device} (seed {self._initial_seed})>"


_argparse.TYPES["generator"] = Generator   # generator= arguments are checked against it


default_generator = Generator()


_cuda_generators = {}


def cuda_generator(index):
    """The default generator of ``cuda:index`` (``None``: the current CUDA device), made on
    first use. CUDA devices have their own generators, as in PyTorch."""
    if index is None:
        from .cuda._runtime import runtime

        index = runtime.local.index
    generator = _cuda_generators.get(index)
    if generator is None:
        generator = _cuda_generators[index] = Generator(f"cuda:{index}")
        generator.manual_seed(default_generator.initial_seed())
    return generator


def _rng(generator, device=None):
    """The NumPy Generator behind ``generator`` (when None: the default one of ``device``)."""
    if generator is None:
        if device is not None and device != "cpu":
            dev = to_device(device)
            if dev.type == "cuda":
                return cuda_generator(dev.index)._rng
        return default_generator._rng
    if not isinstance(generator, Generator):
        raise TensorTypeError(
            f"generator must be a torch.Generator, got {type(generator).__name__}")
    return generator._rng


def manual_seed(seed):
    """Seed the default generator (and every CUDA device's); returns it. Reproducible, but
    not PyTorch's values."""
    for generator in _cuda_generators.values():
        generator.manual_seed(seed)
    return default_generator.manual_seed(seed)


def seed():
    """Seed the default generator non-deterministically and return the seed."""
    return default_generator.seed()


def initial_seed():
    """The seed the default generator was last seeded with."""
    return default_generator.initial_seed()


def get_rng_state():
    """The default generator's state as a uint8 tensor."""
    return default_generator.get_state()


def set_rng_state(new_state):
    """Restore the default generator's state from ``get_rng_state()``."""
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, **kwargs):
    """Run a block and then restore the default generator's state."""
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)


__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed",
           "get_rng_state", "set_rng_state", "fork_rng"]
