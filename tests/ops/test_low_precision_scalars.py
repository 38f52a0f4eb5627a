"""A Python number beside a float16/bfloat16 tensor (found by the arithmetic property sweep:
``half(-1.582) % 0.01648`` was 0.01645 where PyTorch gives -0.0). PyTorch casts the number to
the tensor's dtype before its float32 computation, except in the kernels that read the
original value (mul, div, floor_divide, lerp's weight): both rules, bit for bit."""

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.devices

NUMBERS = [0.1, 1 / 3, 0.01647924818098545, 1e-3, 2049, -7.3, 3.7]

CALLS = {
    "add": lambda t, s: t + s,
    "radd": lambda t, s: s + t,
    "sub": lambda t, s: t - s,
    "rsub": lambda t, s: s - t,
    "add_alpha": lambda t, s: t.add(s, alpha=2),
    "add_": lambda t, s: t.clone().add_(s),
    "mul": lambda t, s: t * s,
    "rmul": lambda t, s: s * t,
    "mul_": lambda t, s: t.clone().mul_(s),
    "div": lambda t, s: t / s,
    "rdiv": lambda t, s: s / t,
    "div_floor": lambda t, s: t.div(s, rounding_mode="floor"),
    "floor_divide": lambda t, s: t // s,
    "remainder": lambda t, s: t % s,
    "fmod": lambda t, s: t.fmod(s),
    "pow": lambda t, s: t.abs() ** s,
    "rpow": lambda t, s: abs(s) ** t,
    "lt": lambda t, s: t < s,
    "ge": lambda t, s: t >= s,
    "clamp": lambda t, s: t.clamp(min=s),
    "lerp": lambda t, s: t.lerp(t * 0, s),
}


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("call", list(CALLS))
def test_number_operand_of_a_low_precision_tensor_matches_torch(dtype, call):
    values = np.random.default_rng(0).uniform(-50, 50, 500).astype(np.float32)
    mine_in = jtensor.tensor(values).to(getattr(jtensor, dtype))
    theirs_in = torch.tensor(values).to(getattr(torch, dtype))
    for number in NUMBERS:
        mine, theirs = CALLS[call](mine_in, number), CALLS[call](theirs_in, number)
        assert str(mine.dtype)[6:] == str(theirs.dtype)[6:]
        np.testing.assert_array_equal(
            mine.cpu().float().numpy(), theirs.float().numpy(), err_msg=f"{call} {number}"
        )
