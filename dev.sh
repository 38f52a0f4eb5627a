#!/usr/bin/env bash
# One entry point for people and CI. Each command creates .venv (if needed), installs what it
# needs from pyproject.toml, then runs:
#   ./dev.sh lab     open the curriculum (notebooks/) in JupyterLab
#   ./dev.sh test    every test: unit, conformance against PyTorch, magics, widgets, notebooks
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

command=${1:-help}
shift || true
case "$command" in
    test)
        setup test
        exec .venv/bin/python -m pytest -n 2 "$@"
        ;;
    lab)
        setup notebook
        exec .venv/bin/jupyter lab notebooks/ "$@"
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
