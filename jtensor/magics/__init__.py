"""IPython magics: ``%load_ext jtensor`` registers ``%%tensortrace``, ``%tensorinfo`` and
``%tensorview`` (the widgets of ``jtensor.widgets`` from a line).

This is the only part of jtensor that imports IPython; ``import jtensor`` never loads it
(``jtensor.load_ipython_extension`` imports this module when the extension is loaded).
"""

import ast
import keyword

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_cell_magic, line_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring

from ..trace import SECTIONS, active, describe, legend, record

__all__ = ["TensorMagics", "load_ipython_extension", "unload_ipython_extension"]

_DEFAULT_VALUES = 16
_MAX_VALUES = 1000  # values are for small teaching tensors, never whole big ones


class _Report:
    """What the magic displays: HTML in a notebook, text elsewhere (both deterministic)."""

    def __init__(self, trace, sections, show_values):
        self.trace = trace
        self.sections = sections
        self.show_values = show_values

    def __repr__(self):
        return self.trace.to_text(self.sections, self.show_values)

    def _repr_html_(self):
        return self.trace.to_html(self.sections, self.show_values)


def _sections(text):
    if text is None:
        return SECTIONS
    chosen = tuple(s.strip() for s in text.split(",") if s.strip())
    unknown = [s for s in chosen if s not in SECTIONS]
    if unknown or not chosen:
        raise UsageError(f"%%tensortrace: unknown section(s) {unknown or [text]} in "
                         f"--sections; choose from {', '.join(SECTIONS)}")
    return chosen


@magics_class
class TensorMagics(Magics):
    """``%%tensortrace`` (trace a cell) and ``%tensorinfo`` (describe one tensor)."""

    @magic_arguments()
    @argument("-s", "--sections", default=None, metavar="LIST",
              help=f"comma-separated sections to show, from {', '.join(SECTIONS)} "
                   "(default: all)")
    @argument("--max-ops", type=int, default=10_000, metavar="N",
              help="record at most N events in detail; later ones are only counted "
                   "(default 10000)")
    @argument("-o", "--output", default=None, metavar="VAR",
              help="store the Trace object in the variable VAR of the user namespace")
    @argument("--json", default=None, metavar="PATH",
              help="also write the trace as JSON to PATH")
    @argument("--text", action="store_true",
              help="print plain text instead of displaying HTML")
    @argument("--values", nargs="?", type=int, const=_DEFAULT_VALUES, default=0, metavar="N",
              help=f"show the values of tensors with at most N elements (default N "
                   f"{_DEFAULT_VALUES} when the option is given)")
    @argument("--timings", action="store_true",
              help="keep kernel launch/start/end times of asynchronous devices (reports "
                   "then differ from run to run)")
    @argument("--view", action="store_true",
              help="also show the trace as a TraceView widget (op table with filters, "
                   "bytes allocated per device)")
    @argument("--timeline", action="store_true",
              help="also show a DeviceTimeline widget (host launches against device "
                   "execution, with the sync points)")
    @line_cell_magic
    def tensortrace(self, line, cell=None):
        """Run the cell once while recording every tensor op, then show what happened:
        a summary line, the ops by source line with the cell's variable names, the named
        variables that share storage, the autograd graph and the pitfalls found.

        As a line magic, ``%tensortrace --help`` prints these options and the legend of
        the report (what S1, t3, G2, v0->v1, copy/view, (+48 B) mean).

        The cell runs in the user namespace; tracebacks point at the cell's lines. When the
        cell raises, the partial trace is shown and the exception propagates.

        Example::

            %%tensortrace --sections ops,pitfalls -o t
            y = x.t().reshape(6)
        """
        if cell is None:
            return self._line_help(line)
        args = parse_argstring(self.tensortrace, line)
        sections = _sections(args.sections)
        if args.max_ops < 0:
            raise UsageError(f"%%tensortrace: --max-ops must be >= 0, got {args.max_ops}")
        if not 0 <= args.values <= _MAX_VALUES:
            raise UsageError(f"%%tensortrace: --values takes a number of elements from 0 to "
                             f"{_MAX_VALUES} (bigger tensors are summarised), got {args.values}")
        if args.output is not None and (not args.output.isidentifier()
                                        or keyword.iskeyword(args.output)):
            raise UsageError(f"%%tensortrace: -o needs a variable name, got {args.output!r}")
        if not cell.strip():
            raise UsageError("%%tensortrace: the cell is empty; put the code to trace in the "
                             "cell below the %%tensortrace line")
        if active() is not None:
            raise UsageError("%%tensortrace: a trace is already recording (nested "
                             "%%tensortrace or an open jtensor.trace.record()); traces "
                             "cannot be nested")
        shell = self.shell
        code, last, filename = self._compile(cell)
        trace = record(max_ops=args.max_ops, small_values=args.values, timings=args.timings,
                       namespace=shell.user_ns)
        trace.main_filename = filename
        trace.filename_label = self._cell_label
        result = None
        failure = None
        trace.start()
        try:
            exec(code, shell.user_ns)
            if last is not None:
                result = eval(last, shell.user_ns)
        except BaseException as exc:  # shown with the partial trace, then re-raised
            failure = exc
            raise
        finally:
            trace.stop(failure, shell.user_ns)
            self._report(trace, args, sections)
        return result

    def _line_help(self, line):
        """``%tensortrace --help`` (or ``-h``): the options, then the report's legend. Any
        other line is a mistake: the code to trace goes in a cell under ``%%tensortrace``."""
        if line.strip() not in ("--help", "-h"):
            raise UsageError(f"%tensortrace with one % takes only --help (got {line.strip()!r}); "
                             "to trace code, start a cell with %%tensortrace and put the "
                             "code below it")
        # The usage text starts with the "::" that makes it a literal block in the docs.
        print(self.tensortrace.parser.format_help().strip().removeprefix("::").lstrip())
        print()
        print(legend().rstrip())

    def _compile(self, cell):
        """Compile the cell as IPython would (its own "Cell In[N]" filename in linecache);
        a trailing expression is compiled apart so its value becomes the cell's output."""
        shell = self.shell
        source = shell.transform_cell(cell)
        filename = shell.compile.cache(source, shell.execution_count, raw_code=cell)
        flags = shell.compile.flags | ast.PyCF_ONLY_AST
        tree = compile(source, filename, "exec", flags=flags, dont_inherit=True)
        last = None
        # As in IPython, a trailing semicolon hides the last expression's value.
        if tree.body and isinstance(tree.body[-1], ast.Expr) \
                and not source.rstrip().endswith(";"):
            expr = ast.Expression(tree.body.pop().value)
            last = compile(expr, filename, "eval", flags=shell.compile.flags,
                           dont_inherit=True)
        code = compile(tree, filename, "exec", flags=shell.compile.flags, dont_inherit=True)
        return code, last, filename

    def _cell_label(self, filename):
        """``In[3]`` for code defined in another cell (its temporary file name would
        differ from run to run)."""
        try:
            named = self.shell.compile.format_code_name(filename)
        except Exception:  # an older or replaced compiler: fall back to the base name
            return None
        return named[1] if named else None

    def _report(self, trace, args, sections):
        shell = self.shell
        if args.output is not None:
            shell.user_ns[args.output] = trace
        if args.json is not None:
            try:
                trace.save_json(args.json)
            except OSError as exc:
                print(f"%%tensortrace: could not write {args.json!r}: {exc}")
        show_values = args.values > 0
        if args.text:
            print(trace.to_text(sections, show_values))
        else:
            from IPython.display import display

            display(_Report(trace, sections, show_values))
        if args.view or args.timeline:
            from IPython.display import display

            from .. import widgets

            if args.view:
                display(widgets.TraceView(trace))
            if args.timeline:
                display(widgets.DeviceTimeline(trace))

    @line_magic
    def tensorinfo(self, line):
        """``%tensorinfo x``: shape, stride, offset, dtype, device, contiguity, storage
        (size, and the named tensors sharing it), version and autograd state of ``x``
        (any expression giving a tensor)."""
        expression = line.strip()
        if not expression:
            raise UsageError("%tensorinfo needs a tensor: %tensorinfo x")
        ns = self.shell.user_ns
        try:
            value = eval(expression, ns)
        except NameError as exc:
            raise UsageError(f"%tensorinfo: {exc}") from None
        except SyntaxError as exc:
            raise UsageError(f"%tensorinfo: {expression!r} is not an expression ({exc.msg})") \
                from None
        from .._tensor import Tensor

        if not isinstance(value, Tensor):
            raise UsageError(f"%tensorinfo: {expression} is a {type(value).__name__}, not a "
                             "jtensor Tensor")
        return describe(value, namespace=ns,
                        name=expression if expression.isidentifier() else None)


_VIEWS = {
    "storage": ("StorageMap", "%tensorview storage a b ...: where each tensor's elements "
                              "live in its storage"),
    "strides": ("StrideExplorer", "%tensorview strides x: shape/stride/offset controls over "
                                  "x's storage"),
    "graph": ("GradGraph", "%tensorview graph loss: the autograd graph behind a tensor"),
    "broadcast": ("BroadcastView", "%tensorview broadcast a b ...: how tensors (or shapes) "
                                   "broadcast"),
    "summary": ("summary", "%tensorview summary x: one-line statistics and a histogram"),
}


def _split_expressions(text):
    """Top-level space- or comma-separated expressions: ``a b[0] (2, 3)``."""
    parts, depth, current = [], 0, []
    for char in text:
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        if depth == 0 and char in " ,\t":
            if current:
                parts.append("".join(current))
                current = []
            continue
        current.append(char)
    if current:
        parts.append("".join(current))
    return parts


@magics_class
class _ViewMagics(Magics):
    @line_magic
    def tensorview(self, line):
        """``%tensorview KIND EXPR...``: a widget of ``jtensor.widgets`` for the tensors
        named by the expressions (evaluated in the user namespace, named by them):

        - ``storage a b``: StorageMap; ``strides x``: StrideExplorer; ``graph loss``:
          GradGraph; ``broadcast a b`` (tensors, or shapes like ``(2, 1)``): BroadcastView;
          ``summary x``: summary.
        """
        words = line.strip().split(None, 1)
        kinds = ", ".join(_VIEWS)
        if not words:
            raise UsageError(f"%tensorview needs a kind and tensors, e.g. %tensorview storage a "
                             f"b; kinds: {kinds}")
        kind = words[0]
        if kind not in _VIEWS:
            raise UsageError(f"%tensorview: unknown kind {kind!r}; kinds: {kinds}")
        name, usage = _VIEWS[kind]
        expressions = _split_expressions(words[1]) if len(words) > 1 else []
        if not expressions:
            raise UsageError(f"%tensorview {kind} needs at least one tensor: {usage}")
        single = kind in ("strides", "graph", "summary")
        if single and len(expressions) != 1:
            raise UsageError(f"%tensorview {kind} takes one tensor, got {len(expressions)}: "
                             f"{usage}")
        ns = self.shell.user_ns
        values = []
        for expression in expressions:
            try:
                values.append(eval(expression, ns))
            except NameError as exc:
                raise UsageError(f"%tensorview: {exc}") from None
            except SyntaxError as exc:
                raise UsageError(f"%tensorview: {expression!r} is not an expression "
                                 f"({exc.msg})") from None
        from .. import widgets
        from .._tensor import Tensor

        for expression, value in zip(expressions, values, strict=True):
            if not isinstance(value, Tensor) and not (kind == "broadcast" and isinstance(
                    value, (tuple, list, int))):
                raise UsageError(f"%tensorview {kind}: {expression} is a "
                                 f"{type(value).__name__}, not a jtensor Tensor")
        make = getattr(widgets, name)
        if kind in ("strides", "summary"):
            return make(values[0], name=expressions[0])
        if kind == "graph":
            from ..widgets._read import tensors_by_name

            named = dict(tensors_by_name(ns))
            named.setdefault(expressions[0], values[0])
            return make(values[0], names=named)
        return make(*values, names=expressions)


def load_ipython_extension(ipython):
    """Register the magics (``%load_ext jtensor``)."""
    ipython.register_magics(TensorMagics)
    ipython.register_magics(_ViewMagics)


def unload_ipython_extension(ipython):
    """Remove every magic ``load_ipython_extension`` registered (``%unload_ext jtensor``)."""
    manager = ipython.magics_manager
    for kind, names in (("cell", ("tensortrace",)),
                        ("line", ("tensortrace", "tensorinfo", "tensorview"))):
        table = manager.magics[kind]
        for name in names:
            bound = table.get(name)
            if bound is not None and isinstance(getattr(bound, "__self__", None),
                                                (TensorMagics, _ViewMagics)):
                del table[name]
    manager.registry.pop(TensorMagics.__name__, None)
    manager.registry.pop(_ViewMagics.__name__, None)
