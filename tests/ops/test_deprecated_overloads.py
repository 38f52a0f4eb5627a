"""PyTorch's deprecated number-first overloads of the methods ``add``, ``sub``, ``addcmul`` and
``addcdiv`` and their in-place forms (``p.data.add_(-lr, grad)`` in older optimizers): the same
values, the same in-place writes, PyTorch's warning once a process, the current overloads
untouched, and ``__torch_function__`` handlers still given ``Tensor.add_`` itself."""

import subprocess
import sys
import textwrap

import pytest

import jtensor

CALLS = {
    "add method": "x.add(2, g)",
    "add_ method": "x.add_(-0.5, g)",
    "sub method": "x.sub(3, g)",
    "sub_ method": "x.sub_(2, g)",
    "addcmul method": "x.addcmul(2, g, g)",
    "addcmul_ method": "x.addcmul_(0.5, g, g)",
    "addcdiv method": "x.addcdiv(2, g, g + 1)",
    "addcdiv_ method": "x.addcdiv_(-1, g, g + 1)",
    "integer alpha on ints": "lib.ones(3, dtype=lib.long).add(2, lib.arange(3))",
    # (the products with beta and alpha: methods and in-place forms, one number or two)
    "addmm_ beta alpha": "lib.ones(2, 2).addmm_(1, -2, lib.ones(2, 3), lib.ones(3, 2))",
    "addmm beta": "lib.ones(2, 2).addmm(3, lib.ones(2, 3), lib.ones(3, 2))",
    "addmv_ beta alpha": "lib.ones(2).addmv_(1, 2, lib.ones(2, 3), g)",
    "addr beta alpha": "lib.ones(3, 3).addr(2, 3, g, g)",
    "baddbmm_ beta alpha": "lib.ones(1, 2, 2).baddbmm_(1, 2, lib.ones(1, 2, 3), lib.ones(1, 3, 2))",
    "addbmm beta": "lib.ones(2, 2).addbmm(2, lib.ones(4, 2, 3), lib.ones(4, 3, 2))",
}

_PROGRAM = """
import sys, warnings
which = sys.argv[1]
if which == "jtensor":
    import jtensor as lib
else:
    import torch as lib
x = lib.ones(3); g = lib.arange(3.0)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    r = {call}
    again = {call}
print(r.tolist(), x.tolist(), again.tolist())
print([str(w.message).split(" (Triggered")[0] for w in caught])
print([w.category.__name__ for w in caught], [w.filename for w in caught])
"""


def _run(which, call):
    out = subprocess.run(
        [sys.executable, "-c", _PROGRAM.format(call=call), which],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


@pytest.mark.parametrize("name", sorted(CALLS))
def test_values_writes_and_the_warning_are_pytorchs(name):
    pytest.importorskip("torch")
    seen = _run("jtensor", CALLS[name])
    assert seen == _run("torch", CALLS[name])
    assert "deprecated" in seen and seen.count("This overload") == 1  # once a process


@pytest.mark.parametrize(
    "call",
    [
        lambda lib, x, g: x.add(2, g, alpha=3),  # the number twice
        lambda lib, x, g: x.add(g, 2),  # alpha is keyword-only in the current overload
        lambda lib, x, g: x.addcmul(g, 2, g),  # the number in the middle
        lambda lib, x, g: x.add_(2, 3),  # two numbers: the deprecated overload, other 3
        lambda lib, x, g: x.sub(2, 3),
        lambda lib, x, g: x.addcmul(2, g, 3),  # addcmul's tensors must be tensors
    ],
    ids=[
        "alpha-twice",
        "alpha-positional",
        "value-in-the-middle",
        "two-numbers",
        "sub-numbers",
        "addcmul-number",
    ],
)
def test_other_forms_are_taken_or_refused_as_pytorch_does(call):
    torch = pytest.importorskip("torch")
    raised = {}
    for lib in (jtensor, torch):
        x, g = lib.ones(3), lib.arange(3.0)
        try:
            call(lib, x, g)
            raised[lib] = (None, x.tolist())
        except Exception as error:  # noqa: BLE001 (the type is what is compared)
            raised[lib] = (type(error).__name__, x.tolist())
    assert raised[jtensor] == raised[torch]


def test_current_overloads_do_not_warn():
    x, g = jtensor.ones(3), jtensor.arange(3.0)
    code = textwrap.dedent(
        """
        import warnings, jtensor
        x, g = jtensor.ones(3), jtensor.arange(3.0)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            x.add(g, alpha=2); x.add_(g); jtensor.sub(x, g, alpha=2); x.addcmul_(g, g, value=2)
            jtensor.addcdiv(x, g, g + 1, value=3); x.add(2)
        print("quiet")
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert out.stdout.strip() == "quiet", out.stderr
    assert x.add(g, alpha=2).tolist() == [1.0, 3.0, 5.0]


def test_the_entries_keep_recording_and_dispatch():
    w = jtensor.ones(3, requires_grad=True)
    out = jtensor.zeros(3).add(2, w)
    assert out.grad_fn.name() == "AddBackward0"
    out.sum().backward()
    assert w.grad.tolist() == [2.0, 2.0, 2.0]


def test_handlers_receive_the_method_itself():
    seen = []

    class Watched(jtensor.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append(func)
            return super().__torch_function__(func, types, args, kwargs or {})

    x = jtensor.ones(3).as_subclass(Watched)
    x.add_(jtensor.ones(3))
    x.addcmul(jtensor.ones(3), jtensor.ones(3), value=2)
    assert seen == [jtensor.Tensor.add_, jtensor.Tensor.addcmul]
