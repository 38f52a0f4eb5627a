"""Exercises checked automatically, for the curriculum and for course authors' own notebooks.

An :class:`Exercise` holds a question, a reference solution, the comparison rules and hints
for typical wrong answers. The learner's answer is either a value, or (when the exercise has
``inputs``) a function that the checker calls on fresh inputs, beside the reference solution
on other fresh inputs, so that "does the result share memory with the input?" can be asked.

A hint is written against a *typical wrong answer*: ``Hint(text, wrong=fn)``. When the
learner's result is indistinguishable from ``fn``'s result under the exercise's rules, the
hint is shown. Otherwise the checker says precisely which rule failed (shape, dtype, values,
strides, sharing...). Output is plain deterministic text (``str(result)``) and HTML
(``_repr_html_``): no ids, no addresses, no timings, so notebooks that show it validate
with nbval.

>>> import jtensor as torch
>>> from jtensor.exercises import Exercise, Hint
>>> ex = Exercise("demo-double", "Double every element of x.",
...               solution=lambda x: x * 2, inputs=lambda: (torch.arange(3),),
...               hints=[Hint("Doubling means multiplying by 2, not adding 2.",
...                           wrong=lambda x: x + 2)])
>>> print(ex.check(lambda x: x + x))
[correct] demo-double
>>> print(ex.check(lambda x: x + 2))
[not yet] demo-double
  - values differ: expected [0, 2, 4], got [2, 3, 4]
  hint: Doubling means multiplying by 2, not adding 2.
>>> ex.check(lambda x: x * 2).passed
True

This module imports no notebook package (IPython is never needed to check an answer).
"""

import html as _html
import inspect
import math

import numpy as np

__all__ = ["Exercise", "Hint", "Result", "check", "get", "register", "names", "solution",
           "EXERCISES"]

#: Every exercise known by name (the curriculum's are added on first lookup).
EXERCISES = {}

_RULES = ("type", "shape", "dtype", "values", "stride", "offset", "device", "shares",
          "requires_grad", "backward")
_DEFAULT_RULES = ("type", "shape", "dtype", "values")


class Hint:
    """A hint shown when the learner's result matches the typical wrong answer ``wrong``.

    ``wrong`` has the reference solution's signature (it is called on fresh inputs, or with
    no arguments for an exercise without inputs). Without ``wrong`` the hint is shown for
    any answer that is not correct (a general nudge, after the specific ones).
    """

    def __init__(self, text, wrong=None):
        if not isinstance(text, str) or not text:
            raise TypeError(f"Hint text must be a non-empty str, got {text!r}")
        if wrong is not None and not callable(wrong):
            raise TypeError(f"Hint wrong= must be callable, got {type(wrong).__name__}")
        self.text = text
        self.wrong = wrong

    def __repr__(self):
        return f"Hint({self.text!r})"


class Result:
    """The outcome of one check: ``passed``, the ``problems`` found and the ``hints`` shown."""

    def __init__(self, name, passed, problems=(), hints=(), status=None):
        self.name = name
        self.passed = bool(passed)
        self.problems = list(problems)
        self.hints = list(hints)
        self.status = status or ("correct" if passed else "not yet")

    def __bool__(self):
        return self.passed

    def __str__(self):
        lines = [f"[{self.status}] {self.name}"]
        lines += [f"  - {p}" for p in self.problems]
        lines += [f"  hint: {h}" for h in self.hints]
        return "\n".join(lines)

    __repr__ = __str__

    def _repr_html_(self):
        # Its own light card (as the widgets' panels), so the status colours keep their
        # contrast (>= 4.5:1) in dark themes too.
        colour = "#1a7f37" if self.passed else "#9a6700"
        parts = [f'<div class="jtensor-exercise" style="border-left:4px solid {colour};'
                 f'padding:2px 8px;background:#FFFFFF;color:#222222;color-scheme:light">'
                 f'<b style="color:{colour}">{_html.escape(self.status)}'
                 f'</b> <code>{_html.escape(self.name)}</code>']
        if self.problems:
            parts.append("<ul>" + "".join(f"<li>{_html.escape(p)}</li>" for p in self.problems)
                         + "</ul>")
        for h in self.hints:
            parts.append(f"<div><i>hint:</i> {_html.escape(h)}</div>")
        parts.append("</div>")
        return "".join(parts)


def _is_tensor(x):
    from .._tensor import Tensor
    return isinstance(x, Tensor)


def _short(values, limit=8):
    """Deterministic short text of an array's values (first ``limit`` elements)."""
    flat = np.asarray(values).reshape(-1)
    shown = []
    for v in flat[:limit].tolist():
        if isinstance(v, float):
            shown.append("nan" if math.isnan(v) else f"{v:.4g}")
        else:
            shown.append(repr(v))
    more = ", ..." if flat.size > limit else ""
    return "[" + ", ".join(shown) + more + "]"


def _byte_range(x):
    """(start, end) of the memory a tensor's storage or a NumPy array's data occupies."""
    if _is_tensor(x):
        if getattr(x, "is_sparse", False):
            return None
        s = x.untyped_storage()
        start = s.data_ptr()
        return (start, start + s.nbytes())
    if isinstance(x, np.ndarray):
        base = x
        while isinstance(base.base, np.ndarray):
            base = base.base
        lo = base.__array_interface__["data"][0]
        return (lo, lo + base.nbytes)
    return None


def _shares(a, b):
    ra, rb = _byte_range(a), _byte_range(b)
    if ra is None or rb is None or ra[0] == ra[1] or rb[0] == rb[1]:
        return False
    return ra[0] < rb[1] and rb[0] < ra[1]


def _features(value, inputs):
    """What the comparison rules look at, for one result (``inputs``: the call's inputs)."""
    from .._dtypes import dtype as _dtype_cls

    if _is_tensor(value):
        t = value.detach()
        if t.is_sparse:
            t = t.to_dense()
        arr = t.cpu().numpy()
        return {
            "type": "tensor",
            "shape": tuple(value.shape),
            "dtype": str(value.dtype),
            "values": arr,
            "stride": None if value.is_sparse else tuple(value.stride()),
            "offset": None if value.is_sparse else value.storage_offset(),
            "device": str(value.device),
            "requires_grad": value.requires_grad,
            "tensor": value,  # for the "backward" rule, run only when an exercise asks
            "shares": tuple(_shares(value, i) for i in inputs
                            if _is_tensor(i) or isinstance(i, np.ndarray)),
        }
    if isinstance(value, np.ndarray):
        return {"type": "ndarray", "shape": value.shape, "dtype": str(value.dtype),
                "values": value,
                "shares": tuple(_shares(value, i) for i in inputs
                                if _is_tensor(i) or isinstance(i, np.ndarray))}
    if isinstance(value, (list, tuple)) and all(_is_plain(v) for v in value):
        # Shapes and other short sequences: a tuple, a list and a torch.Size compare equal.
        return {"type": "sequence", "values": tuple(value)}
    if isinstance(value, (set, frozenset)):
        return {"type": "set", "values": frozenset(value)}
    if isinstance(value, (list, tuple)):
        return {"type": type(value).__name__,
                "items": [_features(v, inputs) for v in value]}
    if isinstance(value, bool) or value is None:
        return {"type": type(value).__name__, "values": value}
    if isinstance(value, (int, float, complex, np.number)):
        return {"type": "number", "values": value}
    if isinstance(value, _dtype_cls):
        return {"type": "dtype", "values": str(value)}
    return {"type": type(value).__name__, "values": value}


def _is_plain(v):
    return v is None or isinstance(v, (bool, int, float, complex, str, np.number))


def _describe_value(v):
    if isinstance(v, np.ndarray):
        return _short(v)
    if isinstance(v, frozenset):  # sorted: a set's order changes from run to run
        return "{" + ", ".join(sorted(repr(x) for x in v)) + "}"
    if isinstance(v, np.generic):  # a 0-dim tensor's value: 9.0, not np.float32(9.0)
        return _short(v)[1:-1]
    return repr(v)


def _error_name(err):
    """The builtin exception class an error is (what PyTorch raises: RuntimeError...)."""
    for cls in type(err).__mro__:
        if cls.__module__ == "builtins":
            return cls.__name__
    return type(err).__name__


def _differences(got, want, rules, rtol, atol, where=""):
    """The list of rule violations of ``got`` against ``want`` (features dictionaries)."""
    at = f" (item {where})" if where else ""
    if got["type"] != want["type"]:
        # Different kinds of answer cannot be compared rule by rule.
        return [f"expected a {want['type']}{at}, got a {got['type']}"]
    if "items" in want:
        if len(got["items"]) != len(want["items"]):
            return [f"expected {len(want['items'])} items{at}, got {len(got['items'])}"]
        out = []
        for i, (g, w) in enumerate(zip(got["items"], want["items"], strict=True)):
            out += _differences(g, w, rules, rtol, atol, f"{where}[{i}]" if where else str(i))
        return out
    problems = []
    if "shape" in want and "shape" in rules and got["shape"] != want["shape"]:
        problems.append(f"shape{at}: expected {want['shape']}, got {got['shape']}")
    if "dtype" in want and "dtype" in rules and got["dtype"] != want["dtype"]:
        problems.append(f"dtype{at}: expected {want['dtype']}, got {got['dtype']}")
    if "values" in rules and not problems:
        g, w = got["values"], want["values"]
        if isinstance(w, np.ndarray):
            if not _arrays_equal(g, w, rtol, atol):
                if np.ndim(w) == 0 and np.ndim(g) == 0:  # a 0-d tensor: one plain number
                    problems.append(f"value{at}: expected {_short(w)[1:-1]}, got "
                                    f"{_short(g)[1:-1]}")
                else:
                    problems.append(f"values differ{at}: expected {_short(w)}, got {_short(g)}")
        elif isinstance(w, float) and isinstance(g, (int, float)) and not isinstance(g, bool):
            if not math.isclose(g, w, rel_tol=rtol, abs_tol=atol):
                problems.append(f"value{at}: expected {w!r}, got {g!r}")
        elif isinstance(w, bool) and (type(g) is not bool or g != w) or g != w:
            problems.append(f"value{at}: expected {_describe_value(w)}, got {_describe_value(g)}")
    for rule in ("stride", "offset", "device", "requires_grad"):
        if rule in rules and rule in want and got[rule] != want[rule]:
            problems.append(f"{rule}{at}: expected {want[rule]}, got {got[rule]}")
    if "backward" in rules and "tensor" in want:
        w, g = _backward_status(want["tensor"]), _backward_status(got["tensor"])
        if w != g:
            problems.append(f"backward{at}: expected {w}, got {g}")
    if "shares" in rules and "shares" in want and got["shares"] != want["shares"]:
        for i, (g, w) in enumerate(zip(got["shares"], want["shares"], strict=True)):
            if g != w:
                problems.append(
                    f"memory{at}: the result should {'share' if w else 'not share'} memory "
                    f"with input {i}, but it {'does' if g else 'does not'}"
                    + (" (it is a copy)" if w else " (it is a view or alias)"))
    return problems


def _backward_status(t):
    """What ``t.sum().backward()`` does: "it works", "no graph" or the error it raises."""
    if not t.requires_grad:
        return "no graph (the result does not require grad)"
    try:
        t.sum().backward()
    except RuntimeError as err:
        first = str(err).split(". ")[0].split(" (")[0]
        return f"backward() raises {_error_name(err)}: {first}"
    return "backward() works"


def _arrays_equal(g, w, rtol, atol):
    g, w = np.asarray(g), np.asarray(w)
    if g.shape != w.shape:
        return False
    if w.dtype.kind in "fc" or g.dtype.kind in "fc" or w.dtype.kind == "V":
        g64 = g.astype(np.complex128 if "c" in (g.dtype.kind, w.dtype.kind) else np.float64)
        w64 = w.astype(g64.dtype)
        return bool(np.allclose(g64, w64, rtol=rtol, atol=atol, equal_nan=True))
    return bool(np.array_equal(g, w))


class Exercise:
    """One exercise: a question, a reference ``solution``, comparison ``rules`` and ``hints``.

    - ``inputs``: ``None`` (the answer is a value, compared with ``solution()``), or a
      function returning a tuple of fresh arguments (the answer is a function, called on
      them beside the reference).
    - ``rules``: what must match, from ``"type", "shape", "dtype", "values", "stride",
      "offset", "device", "shares"`` (storage shared with each tensor/array input, or not)
      ``"requires_grad"`` and ``"backward"`` (whether ``result.sum().backward()`` runs or
      what it raises; it accumulates into the inputs' ``.grad``). Default: type, shape,
      dtype and values.
    - ``rtol``/``atol``: tolerance for floating-point values.
    - ``register=True`` makes ``check(name, answer)`` find it.
    """

    def __init__(self, name, question, solution, *, inputs=None, rules=_DEFAULT_RULES,
                 hints=(), rtol=1e-5, atol=1e-8, register=True):
        if not isinstance(name, str) or not name:
            raise TypeError(f"Exercise name must be a non-empty str, got {name!r}")
        if not callable(solution):
            raise TypeError(f"Exercise {name!r}: solution must be callable, "
                            f"got {type(solution).__name__}")
        if inputs is not None and not callable(inputs):
            raise TypeError(f"Exercise {name!r}: inputs must be callable returning a tuple, "
                            f"got {type(inputs).__name__}")
        unknown = [r for r in rules if r not in _RULES]
        if unknown:
            raise ValueError(f"Exercise {name!r}: unknown rules {unknown}; "
                             f"choose from {list(_RULES)}")
        self.name, self.question, self.solution = name, question, solution
        self.inputs, self.rules, self.rtol, self.atol = inputs, tuple(rules), rtol, atol
        self.hints = [h if isinstance(h, Hint) else Hint(*h) for h in hints]
        if register:
            EXERCISES[name] = self

    def __repr__(self):
        return f"Exercise({self.name!r})"

    def __str__(self):
        return f"{self.name}: {self.question}"

    def _run(self, fn):
        """Call ``fn`` as the reference is called; returns (features, value)."""
        if self.inputs is None:
            value = fn() if callable(fn) else fn
            return _features(value, ()), value
        args = self.inputs()
        if not isinstance(args, tuple):
            args = (args,)
        value = fn(*args)
        return _features(value, args), value

    def check(self, answer):
        """Check ``answer`` (a value, or a function of the inputs); returns a :class:`Result`."""
        if answer is None or answer is Ellipsis:
            return Result(self.name, False, ["no answer yet: replace the placeholder with "
                                             "your answer and run the cell again"],
                          status="not answered")
        if self.inputs is not None and not callable(answer):
            n = len(inspect.signature(self.solution).parameters)
            return Result(self.name, False, [
                f"this exercise expects a function of {n} argument(s) (it is called on "
                f"fresh inputs), got a {type(answer).__name__}"])
        want, _ = self._run(self.solution)
        try:
            got, value = self._run(answer if self.inputs is not None else (lambda: answer))
        except Exception as err:  # the learner's code failing is an answer, not a crash
            first = str(err).splitlines()[0] if str(err) else ""
            return Result(self.name, False, [f"your function raised {_error_name(err)}: "
                                             f"{first}"],
                          self._hints_for_error(err))
        if value is None and want["type"] != "NoneType":
            return Result(self.name, False, ["your function returned None: write the "
                                             "return statement, then run the cell again"],
                          status="not answered")
        problems = _differences(got, want, self.rules, self.rtol, self.atol)
        if not problems:
            return Result(self.name, True)
        return Result(self.name, False, problems, self._hints_for(got))

    def _hints_for(self, got):
        shown = []
        for h in self.hints:
            if h.wrong is None:
                continue
            try:
                wrong, _ = self._run(h.wrong)
            except Exception:
                continue
            if not _differences(got, wrong, self.rules, self.rtol, self.atol):
                shown.append(h.text)
        if not shown:
            shown = [h.text for h in self.hints if h.wrong is None]
        return shown

    def _hints_for_error(self, err):
        shown = []
        for h in self.hints:
            if h.wrong is None:
                continue
            try:
                self._run(h.wrong)
            except Exception as wrong_err:
                if type(wrong_err) is type(err):
                    shown.append(h.text)
        return shown or [h.text for h in self.hints if h.wrong is None]


def register(exercise):
    """Make ``exercise`` findable by ``check(name, ...)`` (``Exercise`` does it by default)."""
    if not isinstance(exercise, Exercise):
        raise TypeError(f"register expects an Exercise, got {type(exercise).__name__}")
    EXERCISES[exercise.name] = exercise
    return exercise


def _load_curriculum():
    from . import curriculum  # noqa: F401  (registers the curriculum's exercises)


def get(name):
    """The exercise called ``name`` (the curriculum's, or one an author registered)."""
    if name not in EXERCISES:
        _load_curriculum()
    try:
        return EXERCISES[name]
    except KeyError:
        close = sorted(n for n in EXERCISES if n.split("-")[0] == str(name).split("-")[0])
        raise KeyError(f"no exercise named {name!r}"
                       + (f"; exercises of that notebook: {close}" if close else "")) from None


def names():
    """Names of every known exercise, sorted."""
    _load_curriculum()
    return sorted(EXERCISES)


def check(name, answer):
    """Check ``answer`` against the exercise called ``name``; returns a :class:`Result`
    (prints as text, shows as HTML in a notebook)."""
    return get(name).check(answer)


def solution(name):
    """The source code of the reference solution of exercise ``name`` (to peek after trying)."""
    fn = get(name).solution
    try:
        src = inspect.getsource(fn)
    except (OSError, TypeError):
        return repr(fn)
    import textwrap
    return textwrap.dedent(src).strip()
