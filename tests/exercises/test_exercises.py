"""jtensor.exercises: every reference solution passes, every typical wrong answer gets its
hint, and the checker's rules, errors and output are what the docs say."""

import re
import subprocess
import sys

import pytest

import jtensor as torch
from jtensor import exercises
from jtensor.exercises import Exercise, Hint


@pytest.fixture(scope="module")
def emulated_cuda():
    # The 06 exercises need a CUDA device: emulate one, afresh, as tests/test_cuda.py does.
    from jtensor.cuda._runtime import runtime

    runtime._reset()
    torch.cuda.emulate()
    yield
    runtime._reset()


def _answer(ex, fn):
    return fn if ex.inputs is not None else fn()


ALL = exercises.names()


def test_the_curriculum_has_exercises_for_each_written_notebook():
    prefixes = {n.split("-")[0] for n in ALL}
    assert {"01", "02", "03", "04", "05", "06", "07", "08", "09", "10", "11", "16",
            "17"} <= prefixes
    assert len(ALL) >= 27


@pytest.mark.parametrize("name", ALL)
def test_reference_solution_passes(name, emulated_cuda):
    ex = exercises.get(name)
    result = exercises.check(name, _answer(ex, ex.solution))
    assert result.passed, str(result)
    assert str(result) == f"[correct] {name}"


@pytest.mark.parametrize("name", ALL)
def test_each_typical_wrong_answer_gets_its_hint(name, emulated_cuda):
    ex = exercises.get(name)
    specific = [h for h in ex.hints if h.wrong is not None]
    assert specific, f"{name} has no hint for a typical wrong answer"
    for hint in specific:
        result = ex.check(_answer(ex, hint.wrong))
        assert not result.passed, f"{name}: the wrong answer for {hint!r} passes"
        assert hint.text in result.hints, f"{name}: {hint!r} not shown; got\n{result}"
        assert f"hint: {hint.text}" in str(result)
        assert result.problems


def test_placeholders_say_not_answered():
    r = exercises.check("01-bytes", ...)
    assert not r.passed and r.status == "not answered"
    r = exercises.check("01-share-numpy", lambda arr: None)
    assert not r.passed and r.status == "not answered"
    assert "returned None" in str(r)


def test_sharing_rule_tells_copy_from_alias():
    copy = exercises.check("01-share-numpy", lambda arr: torch.tensor(arr))
    assert "should share memory with input 0, but it does not (it is a copy)" in str(copy)
    alias = exercises.check("01-share-numpy", lambda arr: torch.as_tensor(arr))
    assert alias.passed


def test_values_shape_dtype_messages_name_the_values():
    r = exercises.check("17-segment-ids", lambda lengths: lengths.repeat_interleave(lengths))
    assert "values differ: expected [0, 0, 2, 2, 2, 3], got [2, 2, 3, 3, 3, 1]" in str(r)
    r = exercises.check("17-finite-rows", lambda x: x * 1)
    assert "shape: expected (2, 2), got (5, 2)" in str(r)
    r = exercises.check("05-accuracy", lambda p, labels: (p == labels).double().mean())
    assert "dtype: expected torch.float32, got torch.float64" in str(r)


def test_an_answer_that_raises_is_reported_with_the_builtin_error_name():
    r = exercises.check("17-debug-bool-minus", lambda a, b: a - b)
    assert "your function raised RuntimeError: Subtraction, the `-` operator" in str(r)
    assert "PyTorch has no `-` for two bool tensors" in str(r)


def test_a_value_where_a_function_is_expected():
    r = exercises.check("17-segment-ids", 5)
    assert not r.passed and "expects a function of 1 argument(s)" in str(r)


def test_sequences_and_sets_compare_by_value_and_print_sorted():
    assert exercises.check("11-fold-slot", (20, [2, 0], torch.Size([3]))).passed
    assert exercises.check("11-fold-slot", (20, (2, 0), (3,))).passed
    r = exercises.check("06-sync-points", {"cpu", "item"})
    assert "expected {'cpu', 'item', 'print'}, got {'cpu', 'item'}" in str(r)


def test_output_is_deterministic_text_and_html():
    r1 = exercises.check("11-bmm-4d", lambda a, b: a @ b)
    r2 = exercises.check("11-bmm-4d", lambda a, b: a @ b)
    assert str(r1) == str(r2) and r1._repr_html_() == r2._repr_html_()
    assert not re.search(r"0x[0-9a-f]{6,}", str(r1) + r1._repr_html_())
    assert "<b" in r1._repr_html_() and "&lt;" not in str(r1)


def test_authors_define_their_own_exercises():
    ex = Exercise("author-transpose", "Transpose x.", lambda x: x.t(),
                  inputs=lambda: (torch.arange(6).reshape(2, 3),),
                  rules=("shape", "values", "stride", "shares"),
                  hints=[Hint("Transposing is a view: no copy needed.",
                              wrong=lambda x: x.t().contiguous()),
                         Hint("Swap the two dimensions.")])
    assert exercises.check("author-transpose", lambda x: x.transpose(0, 1)).passed
    r = ex.check(lambda x: x.t().contiguous())
    assert r.hints == ["Transposing is a view: no copy needed."]
    assert any("stride" in p for p in r.problems)
    r = ex.check(lambda x: x.reshape(3, 2))
    assert r.hints == ["Swap the two dimensions."]  # no specific match: the general hint
    del exercises.EXERCISES["author-transpose"]


def test_tolerance_for_floats():
    ex = Exercise("author-third", "1/3", lambda: torch.tensor([1 / 3]), register=False)
    assert ex.check(torch.tensor([0.333333])).passed
    assert not ex.check(torch.tensor([0.3333])).passed


def test_bad_definitions_raise_clear_errors():
    with pytest.raises(ValueError, match="unknown rules \\['colour'\\]"):
        Exercise("x", "q", lambda: 1, rules=("colour",), register=False)
    with pytest.raises(TypeError, match="solution must be callable"):
        Exercise("x", "q", 3, register=False)
    with pytest.raises(KeyError, match="no exercise named '01-nope'"):
        exercises.get("01-nope")


def test_solution_shows_the_reference_source():
    src = exercises.solution("11-bmm-4d")
    assert src.startswith("def bmm_4d(a, b):") and "bmm" in src


def test_importing_exercises_imports_no_notebook_package():
    code = ("import sys, jtensor.exercises as e; e.names(); "
            "print([m for m in ('IPython', 'ipywidgets', 'matplotlib', 'torch') "
            "if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_backward_rule_reports_what_backward_raises():
    r = exercises.check("08-shifted-sigmoid", lambda x: x.sigmoid().add_(1))
    assert not r.passed
    assert ("backward: expected backward() works, got backward() raises RuntimeError: one of "
            "the variables needed for gradient computation has been modified by an inplace "
            "operation") in str(r)
    r = exercises.check("08-shifted-sigmoid", lambda x: x.detach().sigmoid() + 1)
    assert "got no graph (the result does not require grad)" in str(r)
    assert exercises.check("08-shifted-sigmoid", lambda x: 1 + torch.sigmoid(x)).passed


def test_zero_dim_values_print_as_plain_numbers():
    r = exercises.check("07-second-derivative",
                        lambda x: torch.autograd.grad(x ** 3 + 2 * x, x)[0])
    assert "value: expected 9, got 8.75" in str(r)
