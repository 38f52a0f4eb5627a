"""Run a corpus of real PyTorch programs under PyTorch and under jtensor; compare what they print.

    .venv/bin/python bench/corpus.py [FOLDER] [--only SUBSTRING] [--timeout S] [--json PATH]

FOLDER (default /work/corpus) holds plain ``*.py`` programs written for PyTorch (names starting
with ``_`` are skipped). Each program runs twice, each time in a fresh subprocess whose current
directory is an empty temporary folder:

- under the real ``torch``;
- under jtensor, with ``torch`` and every ``torch.<sub>`` bound to ``jtensor`` and
  ``jtensor.<sub>`` by a ``sys.meta_path`` finder, so ``import torch``, ``import torch.nn as nn``,
  ``import torch.nn.functional as F`` and ``from torch.utils.data import DataLoader`` resolve to
  jtensor's modules. When the program ends, the child checks that the real torch was never
  imported (no module loaded from PyTorch's package folder, nothing under the name ``torch`` that
  is not jtensor's) and fails with exit status 97 if it was.

Both runs start with the same seeds (``torch.manual_seed(0)``, ``random.seed(0)``,
``numpy.random.seed(0)``; ``PYTHONHASHSEED=0``; one thread), so a program that never seeds prints
the same numbers under PyTorch on every run. The outputs are compared after object addresses
(``0x7f...``) are masked and jtensor's ``jtensor.`` prefixes read ``torch.`` (the name the
program imported it under: ``<class 'jtensor.Tensor'>`` stands for ``<class 'torch.Tensor'>``),
and each program is classified:

- identical: the same stdout;
- same up to random numbers: the same lines once every floating-point number is masked (the
  detail says whether the numbers still agree to 1e-4 relative, i.e. differ by rounding only);
- different: the masked lines differ (the detail shows the first differing pair);
- crashed: jtensor's run exited non-zero or timed out (the detail is its error line and the
  program's line number); a program that crashes under PyTorch itself is a corpus error.

Prints a table and the median wall-time ratio jtensor/PyTorch over the programs both ran (each
subprocess's wall time, interpreter start and imports included). A measurement, not a test.
"""

import argparse
import dataclasses
import importlib
import importlib.abc
import importlib.util
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
DEFAULT_CORPUS = "/work/corpus"
REAL_TORCH_IMPORTED = 97  # the child's exit status when the real torch got in

# --------------------------------------------------------------------------------------------
# The child: aliasing torch to jtensor, seeding, running one program.


class TorchToJtensor(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Resolves ``torch`` and ``torch.<sub>`` to the already importable ``jtensor[.<sub>]``.

    The module object placed in ``sys.modules['torch.<sub>']`` *is* jtensor's module (one object,
    two names), so ``torch.nn.Module is jtensor.nn.Module``. A submodule jtensor lacks is a
    ``ModuleNotFoundError`` naming the ``torch`` module, as an uninstalled one would be; the
    finder never falls through to the real torch.
    """

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "torch" and not fullname.startswith("torch."):
            return None
        real = "jtensor" + fullname[len("torch") :]
        if importlib.util.find_spec(real) is None:
            raise ModuleNotFoundError(f"No module named {fullname!r}", name=fullname)
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        module = importlib.import_module("jtensor" + spec.name[len("torch") :])
        self._specs = getattr(self, "_specs", {})
        self._specs[id(module)] = module.__spec__
        return module

    def exec_module(self, module):
        # The import system stamped torch's spec on jtensor's module; give it its own back.
        module.__spec__ = self._specs.pop(id(module), module.__spec__)


def install_alias(root=None):
    """Puts the finder first on ``sys.meta_path`` (before the one that would find real torch);
    jtensor is imported from ``root`` (this checkout by default)."""
    sys.path.insert(0, root or os.environ.get("CORPUS_JTENSOR_ROOT") or REPO)
    for name in [m for m in sys.modules if m == "torch" or m.startswith("torch.")]:
        del sys.modules[name]
    sys.meta_path.insert(0, TorchToJtensor())


def real_torch_modules(modules=None):
    """Names of loaded modules that are the real torch: loaded from a ``torch`` package folder,
    or bound under ``torch``/``torch.*`` without being jtensor's."""
    modules = sys.modules if modules is None else modules
    found = []
    for name, module in list(modules.items()):
        if module is None:
            continue
        file = getattr(module, "__file__", None) or ""
        parts = os.path.normpath(file).split(os.sep) if file else []
        from_torch_folder = "torch" in parts[:-1] and "jtensor" not in parts
        aliased_wrongly = (name == "torch" or name.startswith("torch.")) and not getattr(
            module, "__name__", ""
        ).startswith("jtensor")
        if from_torch_folder or aliased_wrongly:
            found.append(name)
    return sorted(found)


def seed_everything():
    import random

    import numpy as np
    import torch  # jtensor under the alias

    random.seed(0)
    np.random.seed(0)
    torch.manual_seed(0)


def child(mode, program):
    """Runs ``program`` as ``__main__`` (as ``python program`` would) under ``mode``."""
    import runpy

    if mode == "jtensor":
        install_alias()
    seed_everything()
    sys.argv = [program]
    sys.path.insert(0, os.path.dirname(os.path.abspath(program)))
    status = 0
    try:
        runpy.run_path(program, run_name="__main__")
    except SystemExit as e:
        status = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    finally:
        sys.stdout.flush()
        if mode == "jtensor":
            leaked = real_torch_modules()
            if leaked:
                print(f"RealTorchImported: {', '.join(leaked[:5])}", file=sys.stderr)
                os._exit(REAL_TORCH_IMPORTED)
    return status


# --------------------------------------------------------------------------------------------
# The parent: running both, comparing, classifying.

ADDRESS = re.compile(r"0x[0-9a-fA-F]{6,}")
PACKAGE = re.compile(r"(?<![\w.])jtensor\.")
# (a number may end a sentence: a dot after it that no digit follows is not part of it)
NUMBER = re.compile(
    r"(?<![\w.])[-+]?(?:nan|inf|(?:\d+\.\d*|\.\d+)(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+)"
    r"(?!\w|\.\d)"
)


@dataclasses.dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool = False


@dataclasses.dataclass
class Verdict:
    program: str
    category: str  # identical | same up to random numbers | different | crashed | corpus error
    detail: str
    torch_s: float
    jtensor_s: float


def normalize(text, package=None):
    """Masks object addresses and trailing blanks, which no two runs share. ``package``: the
    jtensor run's output also reads ``torch.`` where it prints ``jtensor.``, the name the
    program imported it under (``<class 'jtensor.Tensor'>`` is PyTorch's
    ``<class 'torch.Tensor'>``; a class kept at another path still differs)."""
    lines = [ADDRESS.sub("0x?", line).rstrip() for line in text.splitlines()]
    if package:
        lines = [PACKAGE.sub("torch.", line) for line in lines]
    return lines


def mask_numbers(line):
    """The line with every floating-point number replaced by ``<f>`` and runs of blanks folded
    (tensor printing pads columns to the widest number)."""
    return re.sub(r"([\[(]) | ([\])])", r"\1\2", " ".join(NUMBER.sub("<f>", line).split()))


def numbers_close(a_lines, b_lines, rtol=1e-4, atol=1e-6):
    for a, b in zip(a_lines, b_lines, strict=False):
        xs = [float(m) for m in NUMBER.findall(a)]
        ys = [float(m) for m in NUMBER.findall(b)]
        if len(xs) != len(ys):
            return False
        for x, y in zip(xs, ys, strict=True):
            if math.isnan(x) and math.isnan(y):
                continue
            if not (x == y or abs(x - y) <= atol + rtol * abs(y)):
                return False
    return True


def error_line(stderr, program):
    """The exception line of a traceback, with the program's last line number in it."""
    lines = stderr.strip().splitlines()
    where = ""
    base = os.path.basename(program)
    for line in lines:
        m = re.match(r'\s*File "([^"]+)", line (\d+)', line)
        if m and os.path.basename(m.group(1)) == base:
            where = f"line {m.group(2)}: "
    for line in reversed(lines):
        if re.match(r"^[\w.]+(Error|Exception|Exit|Interrupt|Imported|Warning)\b.*", line) or (
            re.match(r"^[\w.]+: ", line) and not line.startswith(" ")
        ):
            return where + line.strip()
    return where + (lines[-1].strip() if lines else "no output")


def classify(program, torch_run, jt_run):
    """The verdict on one program from its two runs (see the module docstring)."""
    if torch_run.returncode != 0 or torch_run.timed_out:
        why = "timeout" if torch_run.timed_out else error_line(torch_run.stderr, program)
        return Verdict(program, "corpus error", f"under PyTorch: {why}", torch_run.seconds, 0.0)
    if jt_run.timed_out:
        return Verdict(program, "crashed", "timeout", torch_run.seconds, jt_run.seconds)
    if jt_run.returncode != 0:
        detail = error_line(jt_run.stderr, program)
        return Verdict(program, "crashed", detail, torch_run.seconds, jt_run.seconds)
    a, b = normalize(torch_run.stdout), normalize(jt_run.stdout, package="jtensor")
    if a == b:
        return Verdict(program, "identical", "", torch_run.seconds, jt_run.seconds)
    ma, mb = [mask_numbers(x) for x in a], [mask_numbers(x) for x in b]
    if ma == mb:
        detail = "rounding only (1e-4)" if numbers_close(a, b) else "floats differ"
        return Verdict(
            program, "same up to random numbers", detail, torch_run.seconds, jt_run.seconds
        )
    for i, (x, y) in enumerate(zip(ma, mb, strict=False)):
        if x != y:
            detail = f"line {i + 1}: torch {a[i][:70]!r} / jtensor {b[i][:70]!r}"
            break
    else:
        i = min(len(a), len(b))
        detail = f"{len(a)} lines / {len(b)} lines (first extra: {(a + b)[i][:70]!r})"
    return Verdict(program, "different", detail, torch_run.seconds, jt_run.seconds)


def run_one(mode, program, python, timeout, jtensor_root=None):
    env = dict(os.environ, PYTHONHASHSEED="0", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    env["CORPUS_JTENSOR_ROOT"] = os.path.abspath(jtensor_root or REPO)
    env["MPLBACKEND"] = "Agg"
    env.pop("PYTHONPATH", None)
    cmd = [python, os.path.abspath(__file__), "--child", mode, os.path.abspath(program)]
    with tempfile.TemporaryDirectory(prefix="corpus-") as cwd:
        start = time.perf_counter()
        try:
            p = subprocess.run(
                cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
            )
        except subprocess.TimeoutExpired as e:
            out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
            err = e.stderr.decode() if isinstance(e.stderr, bytes) else (e.stderr or "")
            return Run(-1, out, err, time.perf_counter() - start, timed_out=True)
        return Run(p.returncode, p.stdout, p.stderr, time.perf_counter() - start)


def programs_in(folder, only=None):
    names = sorted(f for f in os.listdir(folder) if f.endswith(".py") and not f.startswith("_"))
    if only:
        names = [f for f in names if only in f]
    return [os.path.join(folder, f) for f in names]


CATEGORIES = ["identical", "same up to random numbers", "different", "crashed", "corpus error"]


def report(verdicts, out=None):
    out = out or sys.stdout
    width = max([len(os.path.basename(v.program)) for v in verdicts] + [7])
    print(
        f"{'program':<{width}}  {'verdict':<26} {'torch s':>7} {'jt s':>7} {'ratio':>6}  detail",
        file=out,
    )
    for v in verdicts:
        ratio = v.jtensor_s / v.torch_s if v.torch_s and v.jtensor_s else float("nan")
        print(
            f"{os.path.basename(v.program):<{width}}  {v.category:<26} {v.torch_s:7.2f} "
            f"{v.jtensor_s:7.2f} {ratio:6.2f}  {v.detail}",
            file=out,
        )
    print(file=out)
    counts = {c: sum(v.category == c for v in verdicts) for c in CATEGORIES}
    print(", ".join(f"{c}: {n}" for c, n in counts.items() if n or c != "corpus error"), file=out)
    ran = [v for v in verdicts if v.category in CATEGORIES[:3]]
    if ran:
        ratio = statistics.median(v.jtensor_s / v.torch_s for v in ran)
        print(
            f"median wall-time ratio jtensor/torch over {len(ran)} programs: {ratio:.2f}", file=out
        )
    return counts


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", default=DEFAULT_CORPUS)
    parser.add_argument("--only", help="run only programs whose file name contains this")
    parser.add_argument("--timeout", type=float, default=180.0, help="seconds per run")
    parser.add_argument("--python", default=sys.executable, help="interpreter with torch")
    parser.add_argument("--json", help="also write the verdicts here")
    parser.add_argument(
        "--jtensor-root", help="folder holding the jtensor package to test (default: this checkout)"
    )
    parser.add_argument("--child", nargs=2, metavar=("MODE", "PROGRAM"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(*args.child)
    verdicts = []
    for program in programs_in(args.folder, args.only):
        torch_run = run_one("torch", program, args.python, args.timeout)
        jt_run = run_one("jtensor", program, args.python, args.timeout, args.jtensor_root)
        verdicts.append(classify(program, torch_run, jt_run))
        v = verdicts[-1]
        print(f"  {os.path.basename(program)}: {v.category} {v.detail}", file=sys.stderr)
    report(verdicts)
    if args.json:
        with open(args.json, "w") as f:
            json.dump([dataclasses.asdict(v) for v in verdicts], f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
