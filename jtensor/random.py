"""Random number generation state: ``Generator``, ``manual_seed``, ``get_rng_state``...

jtensor's CPU generators are PyTorch's: the same Mersenne Twister (mt19937) seeded as ATen's
``CPUGeneratorImpl`` seeds it, the same 5056-byte state (a state saved by PyTorch's
``get_rng_state()`` loads here and back), and samplers that reproduce ATen's CPU kernels draw
for draw (``jtensor/_mt19937.py``). The same seed gives PyTorch's numbers:

>>> import jtensor as torch
>>> _ = torch.manual_seed(0); torch.rand(3)
tensor([0.4963, 0.7682, 0.0885])

CUDA generators (``torch.cuda.manual_seed``) use the same engine, not PyTorch's Philox: values
on a CUDA device are reproducible but differ from PyTorch's CUDA values.

Where PyTorch's own CPU values depend on the machine, jtensor follows an x86-64 CPU with AVX2
(what ``torch.__config__.show()`` reports as AVX2 or AVX512 capability) that is not an Intel
CPU running an MKL build:

- ``randn``/``normal_`` of float32 and the half types on contiguous tensors of 16 or more
  elements reproduce the AVX2 kernel (its polynomial log/sin/cos); PyTorch on CPUs without
  AVX2 (ARM, Apple Silicon) computes these with the C library instead and can differ in the
  last bit.
- ``bernoulli_(p)`` with a number ``p`` (and so ``dropout``) is drawn with one double uniform
  per element; PyTorch's MKL builds on Intel CPUs use MKL's own stream seeded from one draw,
  which gives other masks.
- ``nn.init.orthogonal_`` draws the same normals; its QR factorisation (LAPACK) can round the
  last bit differently.
- ``poisson`` with rates of 10 and more evaluates ``lgamma`` with Python's (not the C
  library's) in its rare second acceptance test.
"""

import contextlib
import os

import numpy as np

from . import _C, _argparse
from ._device import to_device
from ._errors import TensorRuntimeError, TensorTypeError, type_name
from ._mt19937 import DEFAULT_SEED, STATE_BYTES, Engine

_MASK64 = (1 << 64) - 1


def _seed_int(seed):
    """PyTorch's seed normalisation: any int in [-2**63, 2**64), negatives wrap around."""
    try:
        seed = int(seed)
    except (TypeError, ValueError):
        raise TensorTypeError(f"manual_seed expected an int, got {type_name(seed)}") from None
    if not -(1 << 63) <= seed <= _MASK64:
        raise TensorRuntimeError(
            f"Overflow when unpacking long: seed must be within [-0x8000_0000_0000_0000, "
            f"0xffff_ffff_ffff_ffff], got {seed}")
    return seed & _MASK64


def _nondeterministic_seed():
    """c10's ``getNonDeterministicRandom`` on the CPU: 8 bytes of /dev/urandom."""
    return int.from_bytes(os.urandom(8), "little")


class Generator:
    """PyTorch's CPU generator (mt19937, ATen's state layout and samplers).

    ``Generator()`` starts from PyTorch's default seed 67280421310721, as ``torch.Generator()``.
    """

    def __init__(self, device="cpu"):
        self.device = to_device(device)
        self._engine = Engine(DEFAULT_SEED)

    def manual_seed(self, seed):
        """Reset the stream to ``seed``; returns this generator (as PyTorch)."""
        self._engine.manual_seed(_seed_int(seed))
        return self

    def seed(self):
        """Seed from the OS entropy pool and return the seed chosen."""
        seed = _nondeterministic_seed()
        self._engine.manual_seed(seed)
        return seed

    def initial_seed(self):
        """The seed this generator was last seeded with."""
        return self._engine.seed

    def get_state(self):
        """The full state as a uint8 tensor of 5056 bytes (PyTorch's layout)."""
        from ._ops.creation import _place
        from . import _dtypes

        raw = np.frombuffer(self._engine.state_bytes(), dtype=np.uint8).copy()
        return _place(raw, _dtypes.uint8, "cpu")

    def set_state(self, new_state):
        """Restore a state returned by ``get_state`` (here or in PyTorch); returns self."""
        from ._tensor import Tensor
        from . import _dtypes

        if not isinstance(new_state, Tensor):
            raise TensorTypeError(
                f"expected a torch.ByteTensor, but got {type_name(new_state)}")
        if new_state._dtype is not _dtypes.uint8:
            raise TensorTypeError(
                f"expected a torch.ByteTensor, but got a tensor of dtype {new_state._dtype}")
        raw = bytes(np.ascontiguousarray(new_state._host_array()).reshape(-1).tobytes())
        if len(raw) != STATE_BYTES:
            raise TensorRuntimeError(
                f"Expected a CPUGeneratorImplState of size {STATE_BYTES} but found the input "
                f"RNG state size to be {len(raw)}")
        try:
            self._engine.load_state_bytes(raw)
        except ValueError as exc:
            raise TensorRuntimeError(str(exc)) from None
        return self

    def get_offset(self):
        """Philox generators' offset; a CPU generator has none (PyTorch's error)."""
        raise TensorRuntimeError("CPU Generator does not use offset")

    def set_offset(self, offset):
        """Philox generators' offset; a CPU generator has none (PyTorch's error)."""
        raise TensorRuntimeError("CPU Generator does not use offset")

    def graphsafe_get_state(self):
        """CUDA graphs' generator state: not supported by this generator (as PyTorch's CPU
        one)."""
        raise NotImplementedError("graphsafe_get_state is not supported in this Generator")

    def graphsafe_set_state(self, state):
        """CUDA graphs' generator state: not supported by this generator (as PyTorch's CPU
        one)."""
        raise NotImplementedError("graphsafe_set_state is not supported in this Generator")

    def clone_state(self):
        """A new generator with this one's state."""
        other = Generator(self.device)
        other._engine = self._engine.copy()
        return other

    def __repr__(self):
        # PyTorch's (``initial_seed()`` and ``device`` tell the rest)
        return f"<{type(self).__module__.split('.')[0]}._C.Generator object at {id(self):#x}>"


_argparse.TYPES["generator"] = Generator   # generator= arguments are checked against it


default_generator = Generator()
# PyTorch seeds its default CPU generator nondeterministically at start.
default_generator._engine.manual_seed(_nondeterministic_seed())


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


_meta_generator = [None]


def _rng(generator, device=None):
    """The engine (``_mt19937.Engine``) behind ``generator`` (when None: the default one of
    ``device``)."""
    if generator is None:
        if device is not None and device != "cpu":
            dev = to_device(device)
            if dev.type == "cuda":
                return cuda_generator(dev.index)._engine
            if dev.type == "meta":
                # Meta tensors keep no values, and PyTorch draws nothing for them: a private
                # engine leaves the CPU generator's sequence as it was.
                if _meta_generator[0] is None:
                    _meta_generator[0] = Generator("cpu")
                return _meta_generator[0]._engine
        return default_generator._engine
    if not isinstance(generator, Generator):
        raise TensorTypeError(
            f"generator must be a torch.Generator, got {type_name(generator)}")
    return generator._engine


def manual_seed(seed):
    """Seed the default generator (and every CUDA device's); returns it. CPU values are
    PyTorch's for the same seed."""
    for generator in _cuda_generators.values():
        generator.manual_seed(seed)
    return default_generator.manual_seed(seed)


def seed():
    """Seed the default generator non-deterministically and return the seed (CUDA devices'
    generators get the same seed, as PyTorch's ``manual_seed_all``)."""
    chosen = default_generator.seed()
    for generator in _cuda_generators.values():
        generator.manual_seed(chosen)
    return chosen


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


# PyTorch's Generator is torch._C.Generator (exported as torch.Generator): printed and pickled
# by that path.
Generator.__module__ = "jtensor._C"
_C.Generator = Generator
