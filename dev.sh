#!/usr/bin/env bash
# One entry point for people and CI. Each command creates .venv (if needed), installs what it
# needs from pyproject.toml, then runs:
#   ./dev.sh lab     open the curriculum (notebooks/) in JupyterLab
#   ./dev.sh test    every test: unit, conformance against PyTorch, magics, widgets, notebooks,
#                    and the widgets in a real browser (installs Debian's Chromium if missing);
#                    then the device-independent suites again on CUDA (emulated without a GPU).
#                    With arguments: pytest with those arguments only.
#   ./dev.sh bench   the benchmarks in bench/ (NumPy and PyTorch timed in the same run)
set -euo pipefail
cd "$(dirname "$0")"

python=${PYTHON:-python3}

setup() {  # setup EXTRA: a virtual environment with jtensor (editable) and EXTRA installed
    local extra=$1
    if [ ! -x .venv/bin/python ]; then
        "$python" -m venv .venv
    fi
    # Reinstall only when pyproject.toml changed since the last install of this extra.
    local stamp=".venv/.installed-$extra-$(sha1sum pyproject.toml | cut -c1-12)"
    if [ ! -f "$stamp" ]; then
        .venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".[$extra]"
        touch "$stamp"
    fi
}

browser() {  # Chromium for the real-browser widget test: Debian's package, never a download
    if [ -x "${JTENSOR_CHROMIUM:-/usr/bin/chromium}" ]; then
        return 0
    fi
    local sudo=()
    if [ "$(id -u)" != 0 ]; then
        if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
            sudo=(sudo -n)
        else
            echo "dev.sh: Chromium is missing and installing it needs root or sudo;" \
                 "the browser test will skip (under CI=true it fails)" >&2
            return 0
        fi
    fi
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "dev.sh: Chromium is missing and there is no apt-get to install it" >&2
        return 0
    fi
    echo "dev.sh: installing Chromium for the browser test (apt-get install -y chromium)" >&2
    "${sudo[@]}" apt-get update -q >/dev/null &&
        "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null ||
        { echo "dev.sh: installing Chromium failed" >&2; [ -z "${CI:-}" ]; }
}

command=${1:-help}
shift || true
case "$command" in
    test)
        setup test
        browser
        # The PyTorch oracle must be there: a run whose comparisons skipped proves nothing.
        export JTENSOR_REQUIRE_ORACLE=${JTENSOR_REQUIRE_ORACLE:-1}
        if [ "$#" -gt 0 ]; then
            exec .venv/bin/python -m pytest -n 2 "$@"
        fi
        # Every test on the CPU, then the device-independent suites (marked 'devices') again
        # on CUDA: the GPU when there is one, jtensor's emulated CUDA device otherwise.
        .venv/bin/python -m pytest -n 2
        exec .venv/bin/python -m pytest -n 2 --device cuda
        ;;
    lab)
        setup notebook
        # JupyterLab refuses to start as root (containers, cloud machines) without this flag.
        root=()
        if [ "$(id -u)" = 0 ]; then
            root=(--allow-root)
        fi
        exec .venv/bin/jupyter lab notebooks/ "${root[@]}" "$@"
        ;;
    bench)
        setup test
        exec .venv/bin/python bench/run.py "$@"
        ;;
    *)
        echo "usage: ./dev.sh {lab|test|bench} [args...]" >&2
        exit 2
        ;;
esac
