"""``jtensor.jit`` against ``torch.jit``: scripted and traced modules and functions (reprs,
types, outputs, shared parameters), PyTorch's checks, save/load round trips, freeze, the
decorators and helpers, fork/wait, and the tracer's warnings."""

import io
import warnings

import numpy as np
import pytest

import jtensor

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _pair(build):
    """The same model built in both libraries, with jtensor's weights copied from PyTorch's."""
    torch.manual_seed(0)
    theirs = build(torch)
    mine = build(jtensor)
    mine.load_state_dict(
        {k: jtensor.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()}
    )
    return mine, theirs


def _mlp(lib):
    nn = lib.nn
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))


def _same(mine, theirs):
    np.testing.assert_allclose(mine.detach().numpy(), theirs.detach().numpy(), rtol=1e-5, atol=1e-6)


def _x():
    data = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    return jtensor.tensor(data), torch.tensor(data)


def _names(lib):
    class Scaled(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = lib.nn.Linear(3, 3)
            self.k = 5
            self.register_buffer("shift", lib.zeros(3))

        def helper(self, x):
            return x * 2

        @lib.jit.export
        def plus_one(self, x):
            return x + 1

        @lib.jit.ignore
        def skipped(self, x):
            return x

        def forward(self, x):
            return self.helper(self.lin(x)) * self.k + self.shift

    return Scaled


# ---------------------------------------------------------------------------- script
def test_script_sequential_repr_type_and_output():
    mine, theirs = _pair(_mlp)
    sm, st = jtensor.jit.script(mine), torch.jit.script(theirs)
    assert repr(sm) == repr(st)
    assert str(sm) == str(st)
    assert type(sm).__name__ == type(st).__name__ == "RecursiveScriptModule"
    assert [c.__name__ for c in type(sm).__mro__] == [c.__name__ for c in type(st).__mro__]
    assert isinstance(sm, jtensor.jit.ScriptModule) and isinstance(sm, jtensor.nn.Module)
    assert sm.original_name == st.original_name == "Sequential"
    assert sm._modules["0"].original_name == st._modules["0"].original_name == "Linear"
    xm, xt = _x()
    _same(sm(xm), st(xt))
    _same(sm.forward(xm), st.forward(xt))


def test_script_shares_parameters_and_state_dict():
    mine, theirs = _pair(_mlp)
    sm, st = jtensor.jit.script(mine), torch.jit.script(theirs)
    assert list(sm.state_dict()) == list(st.state_dict())
    assert [n for n, _ in sm.named_parameters()] == [n for n, _ in st.named_parameters()]
    assert [n for n, _ in sm.named_modules()] == [n for n, _ in st.named_modules()]
    assert sm._modules["0"].weight is mine[0].weight
    assert st._modules["0"].weight is theirs[0].weight
    # Indexing and iterating reach the original layers, in both.
    assert sm[0] is mine[0] and st[0] is theirs[0]
    assert [m is o for m, o in zip(sm, mine, strict=True)] == [
        m is o for m, o in zip(st, theirs, strict=True)
    ]
    assert len(sm) == len(st) == 3
    # Training the scripted module trains the original's parameters.
    opt = jtensor.optim.SGD(sm.parameters(), lr=0.1)
    before = mine[0].weight.detach().clone()
    sm(_x()[0]).sum().backward()
    opt.step()
    assert not jtensor.equal(before, mine[0].weight.detach())


def test_script_train_eval_reaches_dropout():
    def build(lib):
        nn = lib.nn
        return nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.9))

    mine, theirs = _pair(build)
    sm, st = jtensor.jit.script(mine), torch.jit.script(theirs)
    assert sm.training is st.training is True
    assert sm.eval() is sm
    st.eval()
    assert sm.training is st.training is False
    assert sm._modules["1"].training is st._modules["1"].training is False
    xm, xt = _x()
    _same(sm(xm), st(xt))  # eval mode: dropout is the identity in both


def test_script_custom_module_attributes_and_methods():
    mine, theirs = _pair(lambda lib: _names(lib)())
    sm, st = jtensor.jit.script(mine), torch.jit.script(theirs)
    assert repr(sm) == repr(st)
    assert sm.original_name == st.original_name == "Scaled"
    assert sm.k == st.k == 5
    xm, xt = _x()
    xm, xt = xm[:, :3], xt[:, :3]
    _same(sm(xm), st(xt))
    _same(sm.helper(xm), st.helper(xt))
    _same(sm.plus_one(xm), st.plus_one(xt))
    _same(sm.skipped(xm), st.skipped(xt))
    assert sm.shift is mine.shift
    assert list(dict(sm.named_buffers())) == list(dict(st.named_buffers())) == ["shift"]
    sm.k = 7
    st.k = 7
    _same(sm(xm), st(xt))
    with pytest.raises(AttributeError, match="'RecursiveScriptModule' object has no attribute"):
        _ = sm.nonexistent
    with pytest.raises(AttributeError, match="'RecursiveScriptModule' object has no attribute"):
        _ = st.nonexistent


def test_script_code_and_graph_are_refused_clearly():
    sm = jtensor.jit.script(_mlp(jtensor))
    assert "def forward" in torch.jit.script(_mlp(torch)).code
    for name in ("code", "graph", "inlined_graph"):
        with pytest.raises(RuntimeError, match="no TorchScript compiler"):
            getattr(sm, name)


def test_script_function():
    def f(x, y):
        """Adds."""
        return x + y

    sf, tf = jtensor.jit.script(f), torch.jit.script(f)
    assert type(sf).__name__ == type(tf).__name__ == "ScriptFunction"
    assert isinstance(sf, jtensor.jit.ScriptFunction)
    assert sf.name == tf.name == "f"
    assert sf.__doc__ == tf.__doc__ == "Adds."
    assert sf.__name__ == tf.__name__ == "ScriptFunction"
    assert sf.qualified_name.startswith("__torch__.")
    assert sf.qualified_name.split(".")[-1] == tf.qualified_name.split(".")[-1] == "f"
    _same(sf(jtensor.ones(2), jtensor.ones(2)), tf(torch.ones(2), torch.ones(2)))
    # Decorator form.
    decorated = jtensor.jit.script(f)
    assert jtensor.equal(decorated(jtensor.ones(1), jtensor.ones(1)), jtensor.tensor([2.0]))


def test_script_returns_scripted_objects_as_they_are():
    sm = jtensor.jit.script(_mlp(jtensor))
    assert jtensor.jit.script(sm) is sm
    st = torch.jit.script(_mlp(torch))
    assert torch.jit.script(st) is st


def _error(fn, *args):
    try:
        fn(*args)
    except Exception as exc:  # noqa: BLE001 (compare what each library raises)
        return type(exc), str(exc)
    return None


def test_script_errors_match_torch():
    lam = lambda x: x  # noqa: E731
    mine = _error(jtensor.jit.script, lam)
    theirs = _error(torch.jit.script, lam)
    assert mine[0] is theirs[0] is RuntimeError
    assert mine[1] == theirs[1]  # "Expected a single top-level function: <file>:<line>"
    for value in (5, "s", object()):
        assert _error(jtensor.jit.script, value) == _error(torch.jit.script, value)
    mine = _error(jtensor.jit.script, jtensor.nn.Linear)
    theirs = _error(torch.jit.script, torch.nn.Linear)
    assert mine[0] is theirs[0] is RuntimeError
    assert mine[1].replace("jtensor.nn.modules", "torch.nn.modules") == theirs[1]


def test_script_warns_as_deprecated_like_torch():
    for lib in (jtensor, torch):
        with pytest.warns(DeprecationWarning, match=r"`torch.jit.script` is deprecated"):
            lib.jit.script(_mlp(lib))


# ---------------------------------------------------------------------------- trace
def test_trace_module_repr_type_and_output():
    mine, theirs = _pair(_mlp)
    xm, xt = _x()
    tm = jtensor.jit.trace(mine, xm)
    tt = torch.jit.trace(theirs, xt)
    assert repr(tm) == repr(tt)
    assert [c.__name__ for c in type(tm).__mro__] == [c.__name__ for c in type(tt).__mro__]
    assert type(tm._modules["0"]).__name__ == type(tt._modules["0"]).__name__ == "TracedModule"
    assert tm.original_name == tt.original_name == "Sequential"
    assert list(tm.state_dict()) == list(tt.state_dict())
    assert tm._modules["0"].weight is mine[0].weight
    _same(tm(xm * 2), tt(xt * 2))
    assert _error(lambda: tm[0]) == (
        TypeError,
        "'TopLevelTracedModule' object is not subscriptable",
    )
    assert _error(lambda: tt[0]) == (
        TypeError,
        "'TopLevelTracedModule' object is not subscriptable",
    )


def test_trace_function_and_kwargs():
    def f(x, y):
        return x * y + 1

    sf = jtensor.jit.trace(f, (jtensor.ones(2), jtensor.ones(2)))
    tf = torch.jit.trace(f, (torch.ones(2), torch.ones(2)))
    assert type(sf).__name__ == type(tf).__name__ == "ScriptFunction"
    assert sf.name == tf.name == "f"
    a = np.array([1.0, 2.0], dtype=np.float32)
    _same(sf(jtensor.tensor(a), jtensor.tensor(a)), tf(torch.tensor(a), torch.tensor(a)))
    single = jtensor.jit.trace(lambda x: x * 3, jtensor.ones(2))
    assert jtensor.equal(single(jtensor.ones(1)), jtensor.tensor([3.0]))
    kw = jtensor.jit.trace(f, example_kwarg_inputs={"x": jtensor.ones(1), "y": jtensor.ones(1)})
    assert jtensor.equal(kw(jtensor.ones(1), jtensor.ones(1)), jtensor.tensor([2.0]))


def test_trace_is_tracing_during_the_example_run_only():
    seen = {}

    def make(lib, key):
        def f(x):
            seen.setdefault(key, []).append(lib.jit.is_tracing())
            return x + 1

        return f

    jtensor.jit.trace(make(jtensor, "mine"), jtensor.ones(1))
    torch.jit.trace(make(torch, "theirs"), torch.ones(1), check_trace=False)
    assert seen["mine"] == seen["theirs"] == [True]
    assert jtensor.jit.is_tracing() is torch.jit.is_tracing() is False


def _trace_error(lib, fn, inputs, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _error(lambda: lib.jit.trace(fn, inputs, check_trace=False, **kwargs))


@pytest.mark.parametrize("kind", ["int", "float", "bool", "str", "None", "list-int", "nested"])
def test_trace_rejects_non_tensor_inputs_like_torch(kind):
    def f(x, y):
        return x * 2

    def inputs(lib):
        values = {
            "int": 3,
            "float": 2.5,
            "bool": True,
            "str": "a",
            "None": None,
            "list-int": [1, 2],
            "nested": (lib.ones(1), 3),
        }
        return (lib.ones(1), values[kind])

    mine = _trace_error(jtensor, f, inputs(jtensor))
    theirs = _trace_error(torch, f, inputs(torch))
    assert mine == theirs
    assert mine[0] is RuntimeError and "cannot be traced" in mine[1]


@pytest.mark.parametrize("kind", ["None", "int", "tuple-int", "dict", "str"])
def test_trace_rejects_outputs_like_torch(kind):
    def make(lib):
        outputs = {
            "None": lambda x: None,
            "int": lambda x: 3,
            "tuple-int": lambda x: (x * 2, 3),
            "dict": lambda x: {"a": x * 2},
            "str": lambda x: "a",
        }
        return outputs[kind]

    mine = _trace_error(jtensor, make(jtensor), jtensor.ones(1))
    theirs = _trace_error(torch, make(torch), torch.ones(1))
    assert mine == theirs
    assert mine[0] is RuntimeError


def test_trace_dict_output_allowed_when_not_strict():
    out = jtensor.jit.trace(lambda x: {"a": x * 2}, jtensor.ones(1), strict=False)
    torch.jit.trace(lambda x: {"a": x * 2}, torch.ones(1), strict=False, check_trace=False)
    assert jtensor.equal(out(jtensor.ones(1))["a"], jtensor.tensor([2.0]))


def _tracer_warnings(lib, fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lib.jit.trace(fn, lib.ones(2), check_trace=False)
    return [
        (w.category.__name__, str(w.message))
        for w in caught
        if w.category.__name__ == "TracerWarning"
    ]


@pytest.mark.parametrize(
    "kind", ["if", "item", "float", "int", "tolist", "numpy", "len", "iter", "list-output"]
)
def test_trace_warns_where_torch_does(kind):
    def make(lib):
        def f(x):
            if kind == "if":
                return x if x.sum() > 0 else -x
            if kind == "item":
                return x * x.sum().item()
            if kind == "float":
                return x * float(x.sum())
            if kind == "int":
                return x * int(x.sum())
            if kind == "tolist":
                return x * len(x.tolist())
            if kind == "numpy":
                return x * x.numpy().shape[0]
            if kind == "len":
                return x * len(x)
            if kind == "iter":
                return sum(v for v in x)
            return [x * 2, x * 3]

        return f

    mine = _tracer_warnings(jtensor, make(jtensor))
    theirs = _tracer_warnings(torch, make(torch))
    assert mine == theirs and len(mine) >= 1


def test_trace_no_warning_for_tensor_only_code():
    assert _tracer_warnings(jtensor, lambda x: (x * 2).relu()) == []
    # After the trace, conversions no longer warn.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert bool(jtensor.ones(1)) and jtensor.ones(1).item() == 1.0


def test_trace_runs_python_each_call():
    # The documented difference: jtensor's result re-runs the Python branch.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced = jtensor.jit.trace(lambda x: x if x.sum() > 0 else -x, jtensor.ones(2))
    assert jtensor.equal(traced(-jtensor.ones(2)), jtensor.ones(2))


def test_trace_of_script_module_is_a_no_op():
    sm = jtensor.jit.script(_mlp(jtensor))
    st = torch.jit.script(_mlp(torch))
    with pytest.warns(UserWarning, match="already a ScriptModule"):
        assert jtensor.jit.trace(sm, jtensor.ones(1, 4)) is sm
    with pytest.warns(UserWarning, match="already a ScriptModule"):
        assert torch.jit.trace(st, torch.ones(1, 4)) is st


# ---------------------------------------------------------------------------- save / load
@pytest.mark.parametrize("how", ["method-path", "function-path", "function-buffer"])
@pytest.mark.parametrize("make", ["script", "trace"])
def test_save_load_round_trip(tmp_path, how, make):
    def build(lib):
        nn = lib.nn
        return nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.5), nn.Linear(8, 2)).eval()

    results = {}
    for lib, (model, x) in (
        (jtensor, (_pair(build)[0], _x()[0])),
        (torch, (_pair(build)[1], _x()[1])),
    ):
        wrapped = lib.jit.script(model) if make == "script" else lib.jit.trace(model, x)
        path = tmp_path / f"{lib.__name__}.pt"
        if how == "method-path":
            wrapped.save(str(path))
            loaded = lib.jit.load(str(path))
        elif how == "function-path":
            lib.jit.save(wrapped, path)
            loaded = lib.jit.load(path, map_location="cpu")
        else:
            buffer = io.BytesIO()
            lib.jit.save(wrapped, buffer)
            buffer.seek(0)
            loaded = lib.jit.load(buffer)
        results[lib.__name__] = (loaded, loaded(x), wrapped(x))
    (lm, ym, wm), (lt, yt, _) = results["jtensor"], results["torch"]
    assert repr(lm) == repr(lt)
    assert type(lm).__name__ == type(lt).__name__ == "RecursiveScriptModule"
    assert lm.training is lt.training is False
    assert list(lm.state_dict()) == list(lt.state_dict())
    _same(ym, yt)
    _same(ym, wm)
    # The loaded module owns its parameters (not the saved module's).
    assert lm._modules["0"].weight is not wm.__dict__  # a fresh module
    assert isinstance(lm._modules["0"].weight, jtensor.nn.Parameter)


def test_save_load_custom_module_and_extra_files(tmp_path):
    Scaled = _names(jtensor)
    global _SavedScaled
    _SavedScaled = Scaled  # pickle finds the class by name
    Scaled.__qualname__ = "_SavedScaled"
    Scaled.__module__ = __name__
    sm = jtensor.jit.script(Scaled())
    sm.k = 3
    path = tmp_path / "scaled.pt"
    jtensor.jit.save(sm, str(path), _extra_files={"note.txt": b"hello"})
    extra = {"note.txt": "", "absent.txt": ""}
    loaded = jtensor.jit.load(str(path), _extra_files=extra)
    assert extra["note.txt"] == b"hello"
    x = jtensor.ones(2, 3)
    assert jtensor.equal(loaded(x), sm(x))
    assert loaded.k == 3 and loaded.original_name == "Scaled"

    st = torch.jit.script(_names(torch)())
    tpath = tmp_path / "theirs.pt"
    torch.jit.save(st, str(tpath), _extra_files={"note.txt": b"hello"})
    textra = {"note.txt": ""}
    torch.jit.load(str(tpath), _extra_files=textra)
    assert textra["note.txt"] == extra["note.txt"]


def _multiply(x, y):
    return x * y


def test_save_load_script_function(tmp_path):
    f = _multiply
    for lib in (jtensor, torch):
        path = tmp_path / f"{lib.__name__}.pt"
        try:
            lib.jit.script(f).save(str(path))
        except OSError:
            pytest.skip("PyTorch cannot read this test's source")
        loaded = lib.jit.load(str(path))
        assert type(loaded).__name__ == "RecursiveScriptModule"
        assert loaded.original_name == "PlaceholderModule"
        assert float(loaded(lib.ones(1) * 2, lib.ones(1) * 3)) == 6.0


def test_save_load_errors_match_torch(tmp_path):
    missing = str(tmp_path / "missing.pt")
    assert _error(jtensor.jit.load, missing) == _error(torch.jit.load, missing)
    assert _error(jtensor.jit.load, str(tmp_path)) == _error(torch.jit.load, str(tmp_path))
    # A plain checkpoint is not a TorchScript file: the same RuntimeError opening.
    plain = str(tmp_path / "plain.pt")
    torch.save({"a": 1}, plain)
    mine, theirs = _error(jtensor.jit.load, plain), _error(torch.jit.load, plain)
    assert mine[0] is theirs[0] is RuntimeError
    assert mine[1].split(". ")[0] == theirs[1].split(". ")[0]
    # A real TorchScript archive is refused with the reason.
    ts = str(tmp_path / "ts.pt")
    torch.jit.script(_mlp(torch)).save(ts)
    with pytest.raises(RuntimeError, match="cannot run TorchScript code"):
        jtensor.jit.load(ts)
    # Saving a plain module: the missing method, as in PyTorch.
    for lib in (jtensor, torch):
        with pytest.raises(AttributeError, match="'Sequential' object has no attribute 'save'"):
            lib.jit.save(_mlp(lib), str(tmp_path / "x.pt"))
        with pytest.raises(AttributeError, match="no attribute 'save_to_buffer'"):
            lib.jit.save(_mlp(lib), io.BytesIO())
        with pytest.raises(ValueError, match="map_location should be either None"):
            lib.jit.load(ts, map_location=3)


# ---------------------------------------------------------------------------- freeze
def test_freeze_and_optimize_for_inference():
    mine, theirs = _pair(_mlp)
    for lib, model in ((jtensor, mine), (torch, theirs)):
        with pytest.raises(RuntimeError, match="Freezing expects a ScriptModule"):
            lib.jit.freeze(model.eval())
        with pytest.raises(RuntimeError, match="only implemented for modules in eval mode"):
            lib.jit.freeze(lib.jit.script(model.train()))
        with pytest.raises(RuntimeError, match="optimize_for_inference expects a ScriptModule"):
            lib.jit.optimize_for_inference(model)
    fm = jtensor.jit.freeze(jtensor.jit.script(mine.eval()))
    ft = torch.jit.freeze(torch.jit.script(theirs.eval()))
    assert repr(fm) == repr(ft) == "RecursiveScriptModule(original_name=Sequential)"
    assert list(fm.parameters()) == [] and list(ft.parameters()) == []
    assert list(fm.state_dict()) == list(ft.state_dict()) == []
    assert hasattr(fm, "training") is hasattr(ft, "training") is False
    xm, xt = _x()
    _same(fm(xm), ft(xt))
    assert jtensor.jit.optimize_for_inference(fm) is fm
    assert torch.jit.optimize_for_inference(ft) is ft
    om = jtensor.jit.optimize_for_inference(jtensor.jit.script(mine.train()))
    ot = torch.jit.optimize_for_inference(torch.jit.script(theirs.train()))
    assert repr(om) == repr(ot)
    _same(om(xm), ot(xt))


# ---------------------------------------------------------------------------- helpers
def test_decorators_return_the_function():
    def f(x):
        return x

    for lib in (jtensor, torch):
        assert lib.jit.ignore(f) is f
        with pytest.warns(FutureWarning, match=r"ignore\(True\) has been deprecated"):
            assert lib.jit.ignore(drop=True)(f) is f
        assert lib.jit.unused(f) is f
        assert lib.jit.export(f) is f
    assert _error(jtensor.jit.ignore, "x") == _error(torch.jit.ignore, "x")


def test_helpers_match_torch():
    for lib in (jtensor, torch):
        assert lib.jit.is_scripting() is False
        assert lib.jit.is_tracing() is False
        assert lib.jit.annotate(list, [1]) == [1]
    assert jtensor.jit.Final is torch.jit.Final
    assert jtensor.jit.Final[int] == torch.jit.Final[int]
    assert [c.__name__ for c in jtensor.jit.Error.__mro__] == [
        c.__name__ for c in torch.jit.Error.__mro__
    ]
    assert issubclass(jtensor.jit.TracerWarning, Warning)
    assert issubclass(jtensor.jit.ScriptWarning, Warning)
    assert issubclass(jtensor.jit.RecursiveScriptModule, jtensor.jit.ScriptModule)
    assert issubclass(jtensor.jit.TopLevelTracedModule, jtensor.jit.TracedModule)


def test_fork_and_wait():
    def f(x, k=1):
        return x * k

    for lib in (jtensor, torch):
        fut = lib.jit.fork(f, lib.ones(2), k=3)
        assert fut.done() is True
        assert lib.equal(fut.wait(), lib.ones(2) * 3)
        assert lib.equal(lib.jit.wait(fut), lib.ones(2) * 3)
        assert lib.equal(fut.value(), lib.ones(2) * 3)

    def boom(x):
        raise ValueError("boom")

    for lib in (jtensor, torch):
        with pytest.raises(ValueError, match="boom"):
            lib.jit.fork(boom, 1)


def test_hybridize_program_runs_unchanged(tmp_path):
    """d2l's hybridize chapter: script, call, time, save, load."""
    import time

    def run(lib, path):
        lib.manual_seed(0)
        nn = lib.nn
        net = nn.Sequential(
            nn.Linear(512, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 2)
        )
        x = lib.randn(size=(1, 512))
        net = lib.jit.script(net)
        start = time.time()
        for _ in range(3):
            net(x)
        assert time.time() - start >= 0
        net.save(str(path))
        return lib.jit.load(str(path))(x).shape

    assert tuple(run(jtensor, tmp_path / "a")) == tuple(run(torch, tmp_path / "b")) == (1, 2)
