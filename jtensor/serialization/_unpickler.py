"""The weights-only unpickler (``torch.load(weights_only=True)``, the default).

It reads the pickle opcodes itself, as PyTorch's ``torch/_weights_only_unpickler.py`` does,
so nothing in the file is ever imported or called unless it is on the allowlist: PyTorch's
globals (tensors, storages, dtypes, devices, ``torch.Size``, ``OrderedDict``, ``Counter``,
sets, complex, bytes, the ``_rebuild_*`` functions) mapped to jtensor's, plus what the user
allowed with ``add_safe_globals``/``safe_globals``. Only protocol 2's opcodes are read, as
PyTorch (which is what ``torch.save`` writes by default).
"""

import _compat_pickle
import collections
import pickle
import struct
import warnings

from . import _rebuild

# Modules never loaded from, whatever the user allowed (PyTorch's blocklist).
_BLOCKED_MODULES = ("sys", "os", "posix", "nt")

_user_globals = set()  # add_safe_globals' entries: callables or (callable, "full.path")


def add_safe_globals(safe_globals):
    """Allow these globals (classes or functions, or ``(obj, "module.name")`` pairs) in
    ``load(weights_only=True)``, as ``torch.serialization.add_safe_globals``."""
    global _user_globals
    _user_globals = _user_globals | set(safe_globals)


def get_safe_globals():
    """The globals allowed with ``add_safe_globals`` (a list)."""
    return list(_user_globals)


def clear_safe_globals():
    """Forget every global allowed with ``add_safe_globals``."""
    global _user_globals
    _user_globals = set()


def _remove_safe_globals(safe_globals):
    global _user_globals
    _user_globals = _user_globals - set(safe_globals)


class safe_globals:
    """Context manager: allow these globals only inside the ``with`` block.

    >>> import jtensor as torch
    >>> with torch.serialization.safe_globals([complex]):
    ...     complex in torch.serialization.get_safe_globals()
    True
    """

    def __init__(self, safe_globals):
        self.safe_globals = safe_globals

    def __enter__(self):
        add_safe_globals(self.safe_globals)

    def __exit__(self, type, value, tb):
        _remove_safe_globals(self.safe_globals)


def user_allowed():
    """``{"module.qualname": obj}`` for the user's safe globals (PyTorch's checks included)."""
    allowed = {}
    for entry in _user_globals:
        if isinstance(entry, tuple):
            if len(entry) != 2:
                raise ValueError(
                    "Expected tuple of length 2 (global, str of callable full "
                    f"path), but got tuple of length: {len(entry)}"
                )
            if type(entry[1]) is not str:
                raise TypeError(
                    "Expected second item in tuple to be str of callable full "
                    f"path, but got: {type(entry[1])}"
                )
            allowed[entry[1]] = entry[0]
        else:
            allowed[f"{entry.__module__}.{entry.__qualname__}"] = entry
    return allowed


def refused_global_message(full_path):
    """PyTorch's words for a global that is not allowed (``builtins.`` dropped, as there)."""
    if full_path.startswith("builtins."):
        full_path = full_path[len("builtins.") :]
    return (
        f"Unsupported global: GLOBAL {full_path} was not an allowed global by default. "
        f"Please use `torch.serialization.add_safe_globals([{full_path}])` or the "
        f"`torch.serialization.safe_globals([{full_path}])` context manager to allowlist "
        "this global if you trust this class/function."
    )


# What REDUCE and NEWOBJ may call: the allowlist's functions and classes, but not
# ``torch.Tensor`` itself (``torch.Tensor(n)`` would allocate whatever a forged file asks).
_CALLABLE = frozenset(
    id(obj) for obj in _rebuild.ALLOWED.values() if callable(obj) and obj is not _rebuild.Tensor
)


def _fail(message):
    raise pickle.UnpicklingError(message)


class Unpickler:
    """Reads one protocol-2 pickle from ``data`` (bytes) with only allowed globals;
    ``persistent_load`` resolves the storage references."""

    def __init__(self, data, persistent_load):
        self._data = data
        self._pos = 0
        self._persistent_load = persistent_load
        self.memo = {}

    def _read(self, n):
        start = self._pos
        if start + n > len(self._data):
            _fail(
                f"pickle data was truncated (wanted {n} bytes at offset {start} of "
                f"{len(self._data)})"
            )
        self._pos = start + n
        return self._data[start : start + n]

    def _readline(self):
        end = self._data.find(b"\n", self._pos)
        if end < 0:
            _fail("pickle data was truncated (a GLOBAL without its newline)")
        line = self._data[self._pos : end]
        self._pos = end + 1
        return line

    def _global(self):
        module, name = self._global_name()
        full_path = f"{module}.{name}"
        if module in _BLOCKED_MODULES:
            _fail(
                f"Trying to load unsupported GLOBAL {full_path} whose module {module} is blocked."
            )
        found = _rebuild.torch_global(full_path)
        if found is not None:
            return found
        user = user_allowed()
        if full_path in user:
            return user[full_path]
        _fail(refused_global_message(full_path))

    def _global_name(self):
        try:
            module = self._readline().decode("utf-8")
            name = self._readline().decode("utf-8")
        except UnicodeDecodeError:
            _fail("a GLOBAL's name is not UTF-8")
        # Python 2's names (protocol 2 writes ``__builtin__ set``), as pickle maps them.
        if (module, name) in _compat_pickle.NAME_MAPPING:
            module, name = _compat_pickle.NAME_MAPPING[(module, name)]
        elif module in _compat_pickle.IMPORT_MAPPING:
            module = _compat_pickle.IMPORT_MAPPING[module]
        return module, name

    def _allowed_callable(self, func):
        # By identity: a tensor on the stack would compare elementwise.
        if id(func) in _CALLABLE or func is _rebuild._parameter_class():
            return True
        return any(func is obj for obj in user_allowed().values())

    def _pop(self):
        if not self.stack:
            _fail("pickle stack underflow (corrupt data.pkl)")
        return self.stack.pop()

    def _top(self):
        if not self.stack:
            _fail("pickle stack underflow (corrupt data.pkl)")
        return self.stack[-1]

    def _pop_mark(self):
        if not self.metastack:
            _fail("pickle MARK missing (corrupt data.pkl)")
        items = self.stack
        self.stack = self.metastack.pop()
        return items

    def load(self):
        """The object the pickle describes."""
        self.stack, self.metastack = [], []
        while True:
            op = self._read(1)[0]
            handler = _OPS.get(op)
            if handler is None:
                _fail(f"Unsupported operand {op}")
            if handler is _stop:
                result = self._pop()
                return result
            handler(self)


def _op_global(u):
    u.stack.append(u._global())


def _op_newobj(u):
    args, cls = u._pop(), u._pop()
    if not isinstance(args, tuple):
        _fail("NEWOBJ arguments are not a tuple")
    if cls is _rebuild._parameter_class():
        u.stack.append(_rebuild.rebuild_parameter(*args) if args else cls())
    elif isinstance(cls, type) and u._allowed_callable(cls):
        u.stack.append(cls.__new__(cls, *args))
    else:
        _fail(
            "Can only create new object for nn.Parameter or classes allowlisted via "
            f"`add_safe_globals` but got {cls}"
        )


def _op_reduce(u):
    args = u._pop()
    func = u._top()
    if not u._allowed_callable(func):
        _fail(f"Trying to call reduce for unrecognized function {func}")
    if not isinstance(args, tuple):
        _fail("REDUCE arguments are not a tuple")
    u.stack[-1] = func(*args)


def _op_build(u):
    state = u._pop()
    inst = u._top()
    if isinstance(inst, _rebuild.Tensor) and type(inst) in (
        _rebuild.Tensor,
        _rebuild._parameter_class(),
    ):
        # PyTorch's tensors carry their Python attributes here; jtensor's hold none.
        if state:
            _fail(f"Can not set attributes {state!r} on a tensor")
    elif type(inst) is collections.OrderedDict:
        if not isinstance(state, dict):
            _fail("BUILD state of an OrderedDict is not a dict")
        inst.__dict__.update(state)  # a state_dict's _metadata
    elif type(inst) in user_allowed().values():
        if hasattr(inst, "__setstate__"):
            inst.__setstate__(state)
        else:
            slots = None
            if isinstance(state, tuple) and len(state) == 2:
                state, slots = state
            if state:
                inst.__dict__.update(state)
            if slots:
                for key, value in slots.items():
                    setattr(inst, key, value)
    else:
        _fail(
            "Can only build Tensor, Parameter, OrderedDict or types allowlisted via "
            f"`add_safe_globals`, but got {type(inst)}"
        )


def _op_append(u):
    item = u._pop()
    target = u._top()
    if type(target) is not list:
        _fail(f"Can only append to lists, but got {type(target)}")
    target.append(item)


def _op_appends(u):
    items = u._pop_mark()
    target = u._top()
    if type(target) is not list:
        _fail(f"Can only extend lists, but got {type(target)}")
    target.extend(items)


def _check_dict(u, opcode):
    if type(u._top()) not in (dict, collections.OrderedDict, collections.Counter):
        _fail(
            f"Can only {opcode} for dict, collections.OrderedDict, collections.Counter, but "
            f"got {type(u.stack[-1])}"
        )


def _op_setitem(u):
    value, key = u._pop(), u._pop()
    _check_dict(u, "SETITEM")
    u.stack[-1][key] = value


def _op_setitems(u):
    items = u._pop_mark()
    _check_dict(u, "SETITEMS")
    if len(items) % 2:
        _fail("SETITEMS with an odd number of items")
    for i in range(0, len(items), 2):
        u.stack[-1][items[i]] = items[i + 1]


def _op_mark(u):
    u.metastack.append(u.stack)
    u.stack = []


def _op_tuple(u):
    items = tuple(u._pop_mark())  # first: it replaces u.stack with the outer one
    u.stack.append(items)


def _tuple_n(n):
    def op(u):
        if len(u.stack) < n:
            _fail("pickle stack underflow (corrupt data.pkl)")
        items = tuple(u.stack[len(u.stack) - n :])
        del u.stack[len(u.stack) - n :]
        u.stack.append(items)

    return op


def _push(value_factory):
    def op(u):
        u.stack.append(value_factory())

    return op


def _op_binint(u):
    u.stack.append(struct.unpack("<i", u._read(4))[0])


def _op_binint1(u):
    u.stack.append(u._read(1)[0])


def _op_binint2(u):
    u.stack.append(struct.unpack("<H", u._read(2))[0])


def _op_binfloat(u):
    u.stack.append(struct.unpack(">d", u._read(8))[0])


def _op_binunicode(u):
    size = struct.unpack("<I", u._read(4))[0]
    try:
        u.stack.append(str(u._read(size), "utf-8", "surrogatepass"))
    except UnicodeDecodeError:
        _fail("a string in the pickle is not UTF-8")


def _op_short_binstring(u):
    size = u._read(1)[0]
    try:
        u.stack.append(u._read(size).decode("utf-8"))  # torch.load's encoding='utf-8'
    except UnicodeDecodeError:
        _fail("a string in the pickle is not UTF-8")


def _op_binpersid(u):
    pid = u._pop()
    if type(pid) is not tuple and type(pid) is not int:
        _fail(f"persistent_load id must be tuple or int, but got {type(pid)}")
    if type(pid) is tuple and pid and pid[0] not in ("storage", b"storage"):
        _fail(f"Only persistent_load of storage is allowed, but got {type(pid[0])}")
    u.stack.append(u._persistent_load(pid))


def _op_binget(u):
    _get(u, u._read(1)[0])


def _op_long_binget(u):
    _get(u, struct.unpack("<I", u._read(4))[0])


def _get(u, index):
    if index not in u.memo:
        _fail(f"Memo value not found at index {index}")
    u.stack.append(u.memo[index])


def _op_binput(u):
    u.memo[u._read(1)[0]] = u._top()


def _op_long_binput(u):
    u.memo[struct.unpack("<I", u._read(4))[0]] = u._top()


def _op_long1(u):
    size = u._read(1)[0]
    u.stack.append(pickle.decode_long(u._read(size)))


def _op_proto(u):
    # As PyTorch: other protocols are warned about, then fail on the first opcode protocol 2
    # does not have.
    u.proto = u._read(1)[0]
    if u.proto != 2:
        warnings.warn(
            f"Detected pickle protocol {u.proto} in the checkpoint, which was not the default "
            "pickle protocol used by `torch.load` (2). The weights_only Unpickler might not "
            "support all instructions implemented by this protocol, please file an issue for "
            "adding support if you encounter this.",
            stacklevel=2,
        )


def _stop(u):
    pass


_OPS = {
    pickle.GLOBAL[0]: _op_global,
    pickle.NEWOBJ[0]: _op_newobj,
    pickle.REDUCE[0]: _op_reduce,
    pickle.BUILD[0]: _op_build,
    pickle.APPEND[0]: _op_append,
    pickle.APPENDS[0]: _op_appends,
    pickle.SETITEM[0]: _op_setitem,
    pickle.SETITEMS[0]: _op_setitems,
    pickle.MARK[0]: _op_mark,
    pickle.TUPLE[0]: _op_tuple,
    pickle.TUPLE1[0]: _tuple_n(1),
    pickle.TUPLE2[0]: _tuple_n(2),
    pickle.TUPLE3[0]: _tuple_n(3),
    pickle.NONE[0]: _push(lambda: None),
    pickle.NEWFALSE[0]: _push(lambda: False),
    pickle.NEWTRUE[0]: _push(lambda: True),
    pickle.EMPTY_TUPLE[0]: _push(tuple),
    pickle.EMPTY_LIST[0]: _push(list),
    pickle.EMPTY_DICT[0]: _push(dict),
    pickle.EMPTY_SET[0]: _push(set),
    pickle.BININT[0]: _op_binint,
    pickle.BININT1[0]: _op_binint1,
    pickle.BININT2[0]: _op_binint2,
    pickle.BINFLOAT[0]: _op_binfloat,
    pickle.BINUNICODE[0]: _op_binunicode,
    pickle.SHORT_BINSTRING[0]: _op_short_binstring,
    pickle.BINPERSID[0]: _op_binpersid,
    pickle.BINGET[0]: _op_binget,
    pickle.LONG_BINGET[0]: _op_long_binget,
    pickle.BINPUT[0]: _op_binput,
    pickle.LONG_BINPUT[0]: _op_long_binput,
    pickle.LONG1[0]: _op_long1,
    pickle.PROTO[0]: _op_proto,
    pickle.STOP[0]: _stop,
}


# The bytes each opcode carries, for listing a pickle's globals without running it.
_ARG_BYTES = {
    pickle.BININT[0]: 4,
    pickle.BININT1[0]: 1,
    pickle.BININT2[0]: 2,
    pickle.BINFLOAT[0]: 8,
    pickle.BINGET[0]: 1,
    pickle.LONG_BINGET[0]: 4,
    pickle.BINPUT[0]: 1,
    pickle.LONG_BINPUT[0]: 4,
    pickle.PROTO[0]: 1,
}


def globals_in_pickle(data):
    """The ``module.name`` of every GLOBAL in a protocol-2 pickle, read without running it."""
    reader = Unpickler(data, None)
    found = set()
    while True:
        op = reader._read(1)[0]
        if op == pickle.GLOBAL[0]:
            module, name = reader._global_name()
            found.add(f"{module}.{name}")
        elif op in _ARG_BYTES:
            reader._read(_ARG_BYTES[op])
        elif op == pickle.BINUNICODE[0]:
            reader._read(struct.unpack("<I", reader._read(4))[0])
        elif op in (pickle.SHORT_BINSTRING[0], pickle.LONG1[0]):
            reader._read(reader._read(1)[0])
        elif op == pickle.STOP[0]:
            return found
        elif op not in _OPS:
            _fail(f"Unsupported operand {op}")
