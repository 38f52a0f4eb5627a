"""``jtensor.onnx`` (importable; export refuses clearly) and ``jtensor.hub`` (cache paths as
PyTorch's, cached checkpoints, local hubconf repositories) against PyTorch. No test touches
the network: GitHub's unreachability is simulated."""

import os
import urllib.error

import pytest

import jtensor

torch = pytest.importorskip("torch")

HUBCONF = '''"""A test hub."""
dependencies = ["os"]


def _helper():
    return 1


def tiny(n=2, *, scale=1):
    """Make a tiny list."""
    return [scale] * n


def linear(lib_name="jtensor"):
    """A linear layer."""
    import importlib

    return importlib.import_module(lib_name).nn.Linear(2, 1)


value = 3
'''


# ---------------------------------------------------------------------------- onnx
def test_onnx_imports_and_is_not_exporting():
    import jtensor.onnx as onnx

    import torch.onnx  # noqa: F401

    assert onnx.is_in_onnx_export() is torch.onnx.is_in_onnx_export() is False
    assert onnx.TrainingMode.EVAL == int(torch.onnx.TrainingMode.EVAL)
    assert issubclass(onnx.OnnxExporterError, RuntimeError)
    assert issubclass(torch.onnx.OnnxExporterError, RuntimeError)


@pytest.mark.parametrize("name", ["export", "dynamo_export"])
def test_onnx_export_refuses_naming_the_model(tmp_path, name):
    path = tmp_path / "model.onnx"
    with pytest.raises(RuntimeError, match=r"\(Linear\).*cannot write ONNX"):
        getattr(jtensor.onnx, name)(jtensor.nn.Linear(2, 1), (jtensor.zeros(1, 2),), str(path))
    assert not path.exists()


# ---------------------------------------------------------------------------- hub: paths
@pytest.fixture
def hub_env(monkeypatch):
    """Both libraries' hub directory reset, TORCH_HOME/XDG_CACHE_HOME unset."""
    for name in ("TORCH_HOME", "XDG_CACHE_HOME", "TORCH_HUB"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(torch.hub, "_hub_dir", None)
    monkeypatch.setattr(jtensor.hub, "_hub_dir", None)
    return monkeypatch


def test_get_dir_default_and_environment(hub_env, tmp_path):
    assert jtensor.hub.get_dir() == torch.hub.get_dir()
    assert jtensor.hub.get_dir() == os.path.expanduser("~/.cache/torch/hub")
    hub_env.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert jtensor.hub.get_dir() == torch.hub.get_dir() == str(tmp_path / "xdg/torch/hub")
    hub_env.setenv("TORCH_HOME", str(tmp_path / "home"))
    assert jtensor.hub.get_dir() == torch.hub.get_dir() == str(tmp_path / "home/hub")


def test_set_dir_expands_user(hub_env):
    jtensor.hub.set_dir("~/somewhere")
    torch.hub.set_dir("~/somewhere")
    assert jtensor.hub.get_dir() == torch.hub.get_dir() == os.path.expanduser("~/somewhere")


# ---------------------------------------------------------------------------- hub: checkpoints
def _no_network(*args, **kwargs):
    raise AssertionError("the test tried to reach the network")


def test_load_state_dict_from_url_uses_the_cached_file(hub_env, tmp_path):
    hub_env.setattr("jtensor.hub.urlopen", _no_network)
    hub_env.setattr("torch.hub.urlopen", _no_network)
    jtensor.hub.set_dir(str(tmp_path / "hub"))
    torch.hub.set_dir(str(tmp_path / "hub"))
    checkpoints = tmp_path / "hub" / "checkpoints"
    checkpoints.mkdir(parents=True)
    state = {"weight": torch.arange(6.0).reshape(2, 3), "bias": torch.ones(2)}
    torch.save(state, checkpoints / "tiny-0123abcd.pth")
    url = "https://example.invalid/models/tiny-0123abcd.pth"
    mine = jtensor.hub.load_state_dict_from_url(url, map_location="cpu", progress=False)
    theirs = torch.hub.load_state_dict_from_url(url, map_location="cpu", progress=False)
    assert list(mine) == list(theirs)
    for key in theirs:
        assert mine[key].tolist() == theirs[key].tolist()
    # model_dir and file_name choose the cached file.
    other = tmp_path / "other"
    other.mkdir()
    torch.save({"x": torch.zeros(1)}, other / "named.pt")
    mine = jtensor.hub.load_state_dict_from_url(url, model_dir=str(other), file_name="named.pt")
    theirs = torch.hub.load_state_dict_from_url(url, model_dir=str(other), file_name="named.pt")
    assert list(mine) == list(theirs) == ["x"]
    layer = jtensor.nn.Linear(2, 1)
    assert set(layer.state_dict()) == {"weight", "bias"}


def test_download_url_to_file_writes_and_checks_hash(hub_env, tmp_path):
    """A local file:// URL: urllib's download path without any network."""
    source = tmp_path / "source.bin"
    source.write_bytes(b"jtensor hub")
    import hashlib

    digest = hashlib.sha256(b"jtensor hub").hexdigest()
    for lib in (jtensor, torch):
        dst = tmp_path / f"{lib.__name__}.bin"
        lib.hub.download_url_to_file(source.as_uri(), str(dst), digest[:8], progress=False)
        assert dst.read_bytes() == b"jtensor hub"
        bad = tmp_path / f"{lib.__name__}-bad.bin"
        with pytest.raises(RuntimeError, match="invalid hash value"):
            lib.hub.download_url_to_file(source.as_uri(), str(bad), "ffff", progress=False)
        assert not bad.exists()
        assert not [p for p in os.listdir(tmp_path) if p.endswith(".partial")]


# ---------------------------------------------------------------------------- hub: hubconf
@pytest.fixture
def repo(tmp_path):
    path = tmp_path / "repo"
    path.mkdir()
    (path / "hubconf.py").write_text(HUBCONF)
    return str(path)


def test_local_load_calls_the_entrypoint(repo):
    for lib in (jtensor, torch):
        assert lib.hub.load(repo, "tiny", 3, scale=2, source="local") == [2, 2, 2]
    layer = jtensor.hub.load(repo, "linear", source="local")
    assert isinstance(layer, jtensor.nn.Linear)


def test_local_list_and_help(repo):
    assert jtensor.hub.list(repo, source="local") == ["linear", "tiny"]
    assert jtensor.hub.help(repo, "tiny", source="local") == "Make a tiny list."
    # PyTorch's list/help read GitHub only; its load of a local repo sees the same module.
    import importlib.util

    spec = importlib.util.spec_from_file_location("hubconf", os.path.join(repo, "hubconf.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    expected = [f for f in dir(module) if callable(getattr(module, f)) and not f.startswith("_")]
    assert jtensor.hub.list(repo, source="local") == expected


def test_local_errors_match_torch(repo):
    def error(lib, *args, **kwargs):
        try:
            lib.hub.load(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001
            return type(exc), str(exc)
        return None

    for args, kwargs in (
        ((repo, "nope"), {"source": "local"}),
        ((repo, "value"), {"source": "local"}),
        ((repo, 3), {"source": "local"}),
        ((repo, "tiny"), {"source": "gitlab"}),
    ):
        assert error(jtensor, *args, **kwargs) == error(torch, *args, **kwargs)
    with open(os.path.join(repo, "hubconf.py"), "a") as f:
        f.write("\ndependencies = ['surely_not_a_module_xyz']\n")
    assert error(jtensor, repo, "tiny", source="local") == error(
        torch, repo, "tiny", source="local"
    )


def test_github_without_network_raises_runtime_error(hub_env, tmp_path):
    def offline(*args, **kwargs):
        raise urllib.error.URLError("[Errno -3] Temporary failure in name resolution")

    hub_env.setattr("jtensor.hub.urlopen", offline)
    jtensor.hub.set_dir(str(tmp_path / "hub"))
    with pytest.raises(RuntimeError, match="no internet connection"):
        jtensor.hub.load("pytorch/vision", "resnet18")
    with pytest.raises(RuntimeError, match="no internet connection"):
        jtensor.hub.list("pytorch/vision:main", skip_validation=True)
