"""A run without the PyTorch oracle must not pass silently in CI or under ./dev.sh test."""

from importlib import metadata

import pytest

from tests import conftest


def _pretend(monkeypatch, version):
    real = metadata.version

    def fake(name):
        if name == "torch":
            if version is None:
                raise metadata.PackageNotFoundError(name)
            return version
        return real(name)

    monkeypatch.setattr(metadata, "version", fake)


@pytest.mark.parametrize("env", [{"CI": "true"}, {"JTENSOR_REQUIRE_ORACLE": "1"}])
@pytest.mark.parametrize("version", [None, "2.5.1", "2.13.1"])
def test_missing_or_other_oracle_is_an_error_when_required(monkeypatch, env, version):
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("JTENSOR_REQUIRE_ORACLE", raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    _pretend(monkeypatch, version)
    with pytest.raises(pytest.UsageError, match="torch==2.13.0 is required"):
        conftest._check_oracle()


@pytest.mark.parametrize("version", [None, "2.13.0", "2.13.0+cpu"])
def test_the_pinned_oracle_or_an_explicit_opt_out_passes(monkeypatch, version):
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setenv("JTENSOR_REQUIRE_ORACLE", "1" if version else "0")
    _pretend(monkeypatch, version)
    conftest._check_oracle()   # no error


def test_dev_sh_requires_the_oracle_by_default():
    import pathlib

    text = (pathlib.Path(conftest.__file__).parents[1] / "dev.sh").read_text()
    assert "export JTENSOR_REQUIRE_ORACLE=${JTENSOR_REQUIRE_ORACLE:-1}" in text
