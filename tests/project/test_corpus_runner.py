"""bench/corpus.py, the runner of real PyTorch programs under torch and under jtensor: its
aliasing of ``torch`` to jtensor, its guard against the real torch, and its verdicts."""

import importlib.util
import os
import sys
import textwrap

import pytest

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
_spec = importlib.util.spec_from_file_location(
    "corpus_runner", os.path.join(ROOT, "bench", "corpus.py")
)
corpus = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(corpus)


def write(folder, name, source):
    path = folder / name
    path.write_text(textwrap.dedent(source))
    return str(path)


def run_jtensor(path):
    return corpus.run_one("jtensor", path, sys.executable, timeout=120)


def test_torch_and_its_submodules_resolve_to_jtensor(tmp_path):
    program = write(
        tmp_path,
        "imports.py",
        """
        import sys
        import torch
        import torch.nn as nn
        import torch.nn.functional as F
        from torch.utils.data import DataLoader, TensorDataset
        from torch import optim

        print(torch.__name__, nn.__name__, F.__name__, optim.__name__)
        print(DataLoader.__module__.split(".")[0])
        print(sys.modules["torch"] is sys.modules["jtensor"], torch.nn.Module is nn.Module)
        print(sys.modules["torch.nn.functional"] is F, torch.__spec__.name)
        loader = DataLoader(TensorDataset(torch.arange(6.0).view(3, 2)), batch_size=2)
        print([batch[0].shape for batch in loader])
    """,
    )
    run = run_jtensor(program)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == [
        "jtensor jtensor.nn jtensor.nn.functional jtensor.optim",
        "jtensor",
        "True True",
        "True jtensor",
        "[torch.Size([2, 2]), torch.Size([1, 2])]",
    ]


def test_a_submodule_jtensor_lacks_is_module_not_found_under_torchs_name(tmp_path):
    program = write(
        tmp_path,
        "missing.py",
        """
        try:
            import torch.no_such_part
        except ModuleNotFoundError as e:
            print("missing", e.name)
    """,
    )
    run = run_jtensor(program)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "missing torch.no_such_part"


def test_a_module_that_is_not_jtensor_under_torch_fails_the_run(tmp_path):
    program = write(
        tmp_path,
        "leak.py",
        """
        import sys, types
        sys.modules["torch.smuggled"] = types.ModuleType("smuggled")
        print("ran")
    """,
    )
    run = run_jtensor(program)
    assert run.returncode == corpus.REAL_TORCH_IMPORTED
    assert "RealTorchImported: torch.smuggled" in run.stderr
    verdict = corpus.classify(program, corpus.Run(0, "ran\n", "", 1.0), run)
    assert verdict.category == "crashed" and "RealTorchImported" in verdict.detail


def test_modules_loaded_from_a_torch_folder_are_found():
    class Fake:
        __name__ = "helper"
        __file__ = os.path.join(os.sep, "venv", "site-packages", "torch", "nn", "x.py")

    class Mine:
        __name__ = "jtensor.nn"
        __file__ = os.path.join(os.sep, "work", "jtensor", "nn", "__init__.py")

    found = corpus.real_torch_modules({"helper": Fake(), "torch.nn": Mine(), "none": None})
    assert found == ["helper"]


def make(stdout, returncode=0, stderr="", timed_out=False):
    return corpus.Run(returncode, stdout, stderr, 1.0, timed_out)


def verdict(torch_out, jt_out, **jt):
    return corpus.classify("prog.py", make(torch_out), make(jt_out, **jt))


def test_identical_output_masks_object_addresses():
    v = verdict(
        "<AddBackward0 object at 0x7f3a12345678>\n3\n",
        "<AddBackward0 object at 0x7f00deadbeef>\n3\n",
    )
    assert (v.category, v.detail) == ("identical", "")


def test_numbers_that_differ_slightly_are_rounding():
    v = verdict(
        "loss 0.123456789\ntensor([1.0000, 2.5000])\n",
        "loss 0.123456790\ntensor([1.0000, 2.5000])\n",
    )
    assert (v.category, v.detail) == ("same up to random numbers", "rounding only (1e-4)")


def test_a_number_ending_a_sentence_is_a_number():
    v = verdict("The final loss is 0.6175.\n", "The final loss is 0.6175003.\n")
    assert (v.category, v.detail) == ("same up to random numbers", "rounding only (1e-4)")
    # (a version string is still text)
    v = verdict("numpy 1.26.4\n", "numpy 1.26.5\n")
    assert v.category == "different"


def test_other_numbers_in_the_same_layout_are_random_numbers():
    v = verdict(
        "tensor([ 0.5000, -1.2500])\nshape torch.Size([2])\n",
        "tensor([-0.7500, 3.1250])\nshape torch.Size([2])\n",
    )
    assert (v.category, v.detail) == ("same up to random numbers", "floats differ")


def test_another_shape_or_text_is_different():
    v = verdict("torch.Size([2, 3])\n", "torch.Size([3, 2])\n")
    assert v.category == "different" and "line 1" in v.detail
    v = verdict("a\nb\n", "a\n")
    assert v.category == "different" and "2 lines / 1 lines" in v.detail


def test_a_jtensor_failure_is_a_crash_with_its_error_line():
    stderr = textwrap.dedent("""\
        Traceback (most recent call last):
          File "/somewhere/runpy.py", line 88, in _run_code
          File "/corpus/prog.py", line 12, in <module>
            y = torch.frobnicate(x)
        AttributeError: module 'jtensor' has no attribute 'frobnicate'
    """)
    v = verdict("ok\n", "", returncode=1, stderr=stderr)
    assert v.category == "crashed"
    assert v.detail == "line 12: AttributeError: module 'jtensor' has no attribute 'frobnicate'"
    assert verdict("ok\n", "", returncode=-1, timed_out=True).detail == "timeout"


def test_a_program_failing_under_pytorch_is_a_corpus_error():
    v = corpus.classify("prog.py", make("", 1, "ValueError: nope"), make("fine\n"))
    assert v.category == "corpus error" and "ValueError: nope" in v.detail


def test_the_whole_runner_on_two_small_programs(tmp_path, capsys):
    pytest.importorskip("torch")
    write(
        tmp_path,
        "a_sums.py",
        """
        import torch
        x = torch.arange(12.0).reshape(3, 4)
        print(x.sum(dim=0), x.shape, torch.rand(2).shape)
    """,
    )
    write(
        tmp_path,
        "b_names.py",
        """
        import torch
        print(torch.nn.Linear.__module__.split(".")[0])
    """,
    )
    write(tmp_path, "_skipped.py", "raise SystemExit(3)\n")
    assert corpus.main([str(tmp_path), "--json", str(tmp_path / "out.json")]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0]: line for line in out.splitlines() if ".py " in line}
    assert " identical " in rows["a_sums.py"]
    assert " different " in rows["b_names.py"]
    assert "_skipped.py" not in out
    assert "identical: 1, same up to random numbers: 0, different: 1, crashed: 0" in out
    assert "median wall-time ratio jtensor/torch over 2 programs" in out


def test_jtensor_prefixes_read_as_torch_but_other_paths_still_differ():
    same = corpus.Run(0, "<class 'torch.Tensor'>\n", "", 1.0)
    mine = corpus.Run(0, "<class 'jtensor.Tensor'>\n", "", 1.0)
    assert corpus.classify("p.py", same, mine).category == "identical"
    moved = corpus.Run(0, "<class 'jtensor._tensor.Tensor'>\n", "", 1.0)
    assert corpus.classify("p.py", same, moved).category == "different"
    # Only a whole name is read: a word that merely ends in "jtensor." stays as it is.
    assert corpus.normalize("myjtensor.x", package="jtensor") == ["myjtensor.x"]
