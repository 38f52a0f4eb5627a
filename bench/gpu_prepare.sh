#!/usr/bin/env bash
# Run HERE (a machine with network) before a session's GPU run (issue 20): downloads the pure
# Python wheels the test suite and the notebook check need on the lent GPU machine, whose
# python3 (3.12) already holds NumPy, CuPy and PyTorch with CUDA but nothing can be fetched.
# They go to .whl/ (ignored by git locally through .git/info/exclude), which the run carries:
#   run(command="bash bench/gpu_run.sh", carry=[".whl"], timeout_s=560)
set -euo pipefail
cd "$(dirname "$0")/.."
grep -qx '/.whl/' .git/info/exclude 2>/dev/null || echo '/.whl/' >> .git/info/exclude
rm -rf .whl && mkdir .whl
python=${PYTHON:-.venv/bin/python}
"$python" -m pip download --quiet --disable-pip-version-check --only-binary=:all: \
    --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
    --platform manylinux2014_x86_64 -d .whl \
    pytest pytest-xdist hypothesis ipython nbformat tqdm
echo "gpu_prepare: $(ls .whl | wc -l) wheels, $(du -sh .whl | cut -f1) in .whl/"
