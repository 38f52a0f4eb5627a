"""Forged, damaged and truncated checkpoints: ``jtensor.load`` fails with a clear
``RuntimeError`` or ``pickle.UnpicklingError`` naming the problem (``ValueError`` for an
unknown byteorder record, as PyTorch), never another exception,
never a tensor that fails later, and never runs code from the file.

The hand-made pickles below are protocol 2 as ``torch.save`` writes them, so each test
changes one thing (a size, a key, a storage type) of an otherwise valid checkpoint.
"""

import io
import os
import pickle
import pickletools
import struct
import tempfile
import zipfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import jtensor

pytestmark = [
    pytest.mark.devices,  # device-independent: also runs with --device cuda
    # mutated files may name another pickle protocol, which is warned about (as PyTorch)
    pytest.mark.filterwarnings("ignore:Detected pickle protocol:UserWarning"),
]

ALLOWED_ERRORS = (RuntimeError, pickle.UnpicklingError)


# ------------------------------------------------------------------- building files
def _str(text):
    data = text.encode()
    return b"X" + struct.pack("<I", len(data)) + data


def _int(value):
    return b"J" + struct.pack("<i", value)


def _ints(values):
    return b"(" + b"".join(_int(v) for v in values) + b"t"


def tensor_pickle(
    storage_type="FloatStorage",
    key="0",
    location="cpu",
    numel=6,
    offset=0,
    size=(6,),
    stride=(1,),
    rebuild=b"ctorch._utils\n_rebuild_tensor_v2\n",
):
    """data.pkl of one tensor: ``_rebuild_tensor_v2(storage, offset, size, stride, False,
    OrderedDict())``, every field given."""
    pid = (
        b"("
        + _str("storage")
        + b"ctorch\n"
        + storage_type.encode()
        + b"\n"
        + _str(key)
        + _str(location)
        + _int(numel)
        + b"t"
    )
    args = pid + b"Q" + _int(offset) + _ints(size) + _ints(stride) + b"\x89"
    hooks = b"ccollections\nOrderedDict\n)R"
    return b"\x80\x02" + rebuild + b"(" + args + hooks + b"tR."


def archive(records, prefix="archive"):
    """A zip checkpoint of ``records`` (name -> bytes, in order) under ``prefix/``."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        for name, data in records.items():
            zf.writestr(f"{prefix}/{name}", data)
    return out.getvalue()


def checkpoint(pkl=None, storages=None, **extra):
    """A checkpoint: ``pkl`` (default: one float tensor of 6 elements) and its storages."""
    storages = {"0": struct.pack("<6f", *range(6))} if storages is None else storages
    records = {"data.pkl": tensor_pickle() if pkl is None else pkl, "byteorder": b"little"}
    records.update({f"data/{k}": v for k, v in storages.items()})
    records["version"] = b"3\n"
    records.update(extra)
    return archive(records)


def load(raw, **kwargs):
    return jtensor.load(io.BytesIO(raw), **kwargs)


def test_the_builders_make_a_valid_checkpoint():
    t = load(checkpoint())
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0] and t.dtype is jtensor.float32
    view = load(checkpoint(tensor_pickle(offset=1, size=(2, 2), stride=(1, 2))))
    assert view.tolist() == [[1.0, 3.0], [2.0, 4.0]] and view.storage_offset() == 1
    torch = pytest.importorskip("torch")
    assert torch.load(io.BytesIO(checkpoint())).tolist() == t.tolist()


# ------------------------------------------------------------------ forged files
@pytest.mark.parametrize(
    "fields",
    [
        {"size": (7,)},
        {"size": (3,), "stride": (3,)},
        {"offset": 6, "size": (1,)},
        {"offset": 4, "size": (2, 2), "stride": (2, 1)},
    ],
)
def test_tensor_reaching_past_its_storage(fields):
    raw = checkpoint(tensor_pickle(**fields))
    with pytest.raises(RuntimeError, match="out of bounds for storage"):
        load(raw)
    with pytest.raises(RuntimeError, match="out of bounds for storage"):
        load(raw, weights_only=False)


@pytest.mark.parametrize(
    "fields",
    [{"stride": (-1,)}, {"size": (-2,)}, {"offset": -1}, {"size": (2, 3), "stride": (1,)}],
)
def test_negative_or_inconsistent_geometry(fields):
    with pytest.raises(RuntimeError, match="corrupt checkpoint"):
        load(checkpoint(tensor_pickle(**fields)))


def test_missing_storage_record():
    with pytest.raises(RuntimeError, match=r"storage '9' has no record data/9"):
        load(checkpoint(tensor_pickle(key="9")))
    with pytest.raises(RuntimeError, match="has no record data/0"):
        load(checkpoint(storages={}))


def test_wrong_byte_count():
    with pytest.raises(RuntimeError, match=r"should hold 6 elements of 4 bytes \(24 bytes\)"):
        load(checkpoint(storages={"0": b"\x00" * 20}))
    with pytest.raises(RuntimeError, match="should hold 7 elements"):
        load(checkpoint(tensor_pickle(numel=7)))


def test_unknown_storage_type_or_dtype():
    with pytest.raises(pickle.UnpicklingError, match="GLOBAL torch.FooStorage was not an allowed"):
        load(checkpoint(tensor_pickle(storage_type="FooStorage")))
    # weights_only=False never imports torch to look the name up
    with pytest.raises(RuntimeError, match="torch.FooStorage, which jtensor does not support"):
        load(checkpoint(tensor_pickle(storage_type="FooStorage")), weights_only=False)
    torch = pytest.importorskip("torch")
    buffer = io.BytesIO()
    torch.save(torch.ones(2, dtype=torch.uint16), buffer)
    with pytest.raises(RuntimeError, match="dtype torch.uint16, which jtensor does not support"):
        load(buffer.getvalue())


def test_not_a_storage_or_not_a_tensor_field():
    pkl = tensor_pickle().replace(b"Q", b"", 1)  # the persistent id tuple left as it is
    with pytest.raises(ALLOWED_ERRORS, match="storage"):
        load(checkpoint(pkl))
    bad_key = tensor_pickle().replace(_str("0"), _int(0), 1)
    with pytest.raises(RuntimeError, match="persistent id"):
        load(checkpoint(bad_key))


def test_sparse_indices_out_of_range():
    torch = pytest.importorskip("torch")
    buffer = io.BytesIO()
    torch.save(torch.sparse_coo_tensor([[0, 5]], [1.0, 2.0], (3,), check_invariants=False), buffer)
    with pytest.raises(RuntimeError, match="size is 3 but found index 5"):
        load(buffer.getvalue())


def test_truncated_and_damaged_archives():
    raw = checkpoint()
    for cut in (0, 10, len(raw) // 2, len(raw) - 1):
        with pytest.raises(RuntimeError):
            load(raw[:cut])
    with pytest.raises(RuntimeError, match="failed reading zip archive"):
        load(raw[: len(raw) - 30])
    with pytest.raises(RuntimeError, match="failed locating file data.pkl"):
        load(archive({"version": b"3\n"}))
    with pytest.raises(RuntimeError, match="failed locating file version"):
        load(archive({"data.pkl": tensor_pickle(), "data/0": b"\x00" * 24}))
    with pytest.raises(RuntimeError, match="maximum supported version"):
        load(checkpoint(version=b"99\n"))
    with pytest.raises(RuntimeError, match="not in a subdirectory"):
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w") as zf:
            zf.writestr("data.pkl", tensor_pickle())
        load(out.getvalue())
    with pytest.raises(RuntimeError, match="not a checkpoint"):
        load(b"plain bytes, no zip")
    torch = pytest.importorskip("torch")
    buffer = io.BytesIO()
    torch.save(torch.ones(2), buffer, _use_new_zipfile_serialization=False)
    with pytest.raises(RuntimeError, match="PyTorch's legacy format"):
        load(buffer.getvalue())


def test_pytorch_raises_runtime_error_for_the_same_forgeries():
    torch = pytest.importorskip("torch")
    forged = [
        checkpoint(tensor_pickle(size=(7,))),
        checkpoint(tensor_pickle(stride=(-1,))),
        checkpoint(tensor_pickle(key="9")),
        checkpoint(storages={"0": b"\x00" * 20}),
        checkpoint(tensor_pickle(numel=7)),
        checkpoint()[:100],
    ]
    for raw in forged:
        for lib in (jtensor, torch):
            with pytest.raises(RuntimeError):
                lib.load(io.BytesIO(raw))


def test_byteorder_record():
    big = checkpoint(storages={"0": struct.pack(">6f", *range(6))}, byteorder=b"big")
    assert load(big).tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    pkl = tensor_pickle("ComplexDoubleStorage", numel=1, size=(1,))
    raw = checkpoint(pkl, storages={"0": struct.pack(">2d", 1.5, -2.0)}, byteorder=b"big")
    assert load(raw).tolist() == [1.5 - 2j]
    with pytest.raises(ValueError, match="Unknown endianness type: middle"):
        load(checkpoint(byteorder=b"middle"))
    torch = pytest.importorskip("torch")
    assert torch.load(io.BytesIO(big)).tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    with pytest.raises(ValueError, match="Unknown endianness type: middle"):
        torch.load(io.BytesIO(checkpoint(byteorder=b"middle")))


_RAN = []


def record_call(*args):
    """A function a forged file would like to call: it must never run."""
    _RAN.append(args)
    return "ran"


@pytest.mark.parametrize(
    "global_line", [b"cos\nsystem\n", b"cbuiltins\neval\n", f"c{__name__}\nrecord_call\n".encode()]
)
def test_never_runs_code(global_line):
    pkl = b"\x80\x02" + global_line + _str("echo hacked") + b"\x85R."
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        load(checkpoint(pkl))
    assert _RAN == []
    raw = checkpoint(pkl)
    assert (
        jtensor.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(raw))
        != []  # listed, not run
    )
    assert _RAN == []


def test_opcodes_outside_the_weights_only_set_are_refused():
    pkl = pickle.dumps({"a": 1}, protocol=4)  # FRAME, SHORT_BINUNICODE, MEMOIZE...
    with pytest.raises(pickle.UnpicklingError, match="Unsupported operand"):
        load(checkpoint(pkl))
    assert load(checkpoint(pkl), weights_only=False) == {"a": 1}


def test_forged_reduce_arguments_are_named():
    # bytearray(n) would allocate n bytes; complex("...") parses; both refused
    for call in (b"cbuiltins\nbytearray\n" + _int(10**9), b"cbuiltins\ncomplex\n" + _str("1+2j")):
        with pytest.raises(ALLOWED_ERRORS, match="corrupt checkpoint"):
            load(checkpoint(b"\x80\x02" + call + b"\x85R."))
    with pytest.raises(pickle.UnpicklingError, match="Can only append to lists"):
        load(checkpoint(b"\x80\x02}" + _int(1) + b"a."))
    with pytest.raises(pickle.UnpicklingError, match="Memo value not found"):
        load(checkpoint(b"\x80\x02h\x05."))
    with pytest.raises(pickle.UnpicklingError, match="stack underflow"):
        load(checkpoint(b"\x80\x02R."))


# ------------------------------------------------------------------------- fuzzing
def _valid_files():
    """Valid checkpoints to mutate: a tensor, views sharing a storage, a state dict, a
    sparse tensor and a Parameter, written by jtensor."""
    base = jtensor.arange(6.0, device="cpu")
    objects = [
        base,
        {
            "a": base,
            "v": base[1:].view(5, 1),
            "t": base.view(2, 3).t(),
            "i": jtensor.tensor([1, 2]),
        },
        jtensor.nn.Linear(2, 2).state_dict(),
        {"s": jtensor.sparse_coo_tensor([[0, 1]], [1.0, 2.0], (3,), device="cpu")},
        [jtensor.nn.Parameter(jtensor.ones(2, device="cpu")), (1, 2.5, "x", None, b"b")],
    ]
    files = []
    for obj in objects:
        buffer = io.BytesIO()
        jtensor.save(obj, buffer)
        files.append(buffer.getvalue())
    return files


VALID = _valid_files()


def _touch(obj, depth=0):
    """Use everything loaded: a tensor that loads must also read."""
    if depth > 50:
        return
    if isinstance(obj, jtensor.Tensor):
        if obj.is_sparse:
            obj._indices().tolist(), obj._values().tolist()
        else:
            obj.cpu().tolist()
    elif isinstance(obj, dict):
        for key, value in obj.items():
            _touch(key, depth + 1), _touch(value, depth + 1)
    elif isinstance(obj, (list, tuple, set)):
        for item in obj:
            _touch(item, depth + 1)


def _load_or_fail_cleanly(raw, mmap=False):
    try:
        if mmap:
            with tempfile.TemporaryDirectory() as folder:
                path = os.path.join(folder, "fuzz.pt")
                with open(path, "wb") as handle:
                    handle.write(raw)
                obj = jtensor.load(path, mmap=True)
        else:
            obj = load(raw)
    except ALLOWED_ERRORS:
        return
    except ValueError as exc:
        # PyTorch's one ValueError while loading: a byteorder record that is neither
        # "little" nor "big"
        assert str(exc).startswith("Unknown endianness type"), exc
        return
    _touch(obj)


def _members(raw):
    with zipfile.ZipFile(io.BytesIO(raw)) as zf:
        return {info.filename: zf.read(info) for info in zf.infolist()}


def _rezip(members):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return out.getvalue()


# Every pickle opcode (all protocols), to splice into data.pkl.
OPCODES = sorted({op.code.encode("latin1") for op in pickletools.opcodes})

FUZZ = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None
)


@pytest.mark.parametrize("mmap", [False, True])  # read into memory, or mapped in place
@FUZZ
@given(
    index=st.integers(0, len(VALID) - 1),
    edits=st.lists(st.tuples(st.floats(0, 1, exclude_max=True), st.integers(0, 255)), max_size=8),
)
def test_fuzz_bytes_of_the_file(mmap, index, edits):
    raw = bytearray(VALID[index])
    for where, value in edits:
        raw[int(where * len(raw))] = value
    _load_or_fail_cleanly(bytes(raw), mmap=mmap)


@FUZZ
@given(index=st.integers(0, len(VALID) - 1), cut=st.floats(0, 1))
def test_fuzz_truncation(index, cut):
    raw = VALID[index]
    _load_or_fail_cleanly(raw[: int(cut * len(raw))])


@FUZZ
@given(
    index=st.integers(0, len(VALID) - 1),
    victim=st.integers(0, 20),
    action=st.sampled_from(["drop", "replace", "duplicate", "empty"]),
    payload=st.binary(max_size=64),
)
def test_fuzz_zip_members(index, victim, action, payload):
    members = _members(VALID[index])
    names = list(members)
    name = names[victim % len(names)]
    if action == "drop":
        del members[name]
    elif action == "replace":
        members[name] = payload
    elif action == "empty":
        members[name] = b""
    else:
        members[name.rsplit("/", 1)[0] + "/data/" + str(victim)] = payload
    if not members:
        members["archive/x"] = payload
    _load_or_fail_cleanly(_rezip(members))


@FUZZ
@given(
    index=st.integers(0, len(VALID) - 1),
    edits=st.lists(
        st.tuples(
            st.sampled_from(["replace", "insert", "delete"]),
            st.floats(0, 1, exclude_max=True),
            st.sampled_from(OPCODES) | st.binary(min_size=1, max_size=4),
        ),
        min_size=1,
        max_size=4,
    ),
)
def test_fuzz_pickle_opcodes(index, edits):
    members = _members(VALID[index])
    name = next(n for n in members if n.endswith("/data.pkl"))
    pkl = bytearray(members[name])
    for action, where, chunk in edits:
        at = int(where * len(pkl))
        if action == "replace":
            pkl[at : at + len(chunk)] = chunk
        elif action == "insert":
            pkl[at:at] = chunk
        else:
            del pkl[at : at + len(chunk)]
    members[name] = bytes(pkl)
    _load_or_fail_cleanly(_rezip(members))
