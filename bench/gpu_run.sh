#!/usr/bin/env bash
# THE GPU RUN of issue 20, on the lent machine, in one call (prepare first: bench/gpu_prepare.sh):
#   run(command="bash bench/gpu_run.sh", carry=[".whl"], timeout_s=590)
# Each stage has its own time limit so one hang cannot eat the device time; everything it
# learns lands in $OUT (at most 8 files come back):
#   env.txt        GPU, driver, CUDA, CuPy, NumPy and torch versions; jtensor sees the real GPU
#   semantics.txt  bench/gpu_semantics.py: allocator figures, async, events, non_blocking,
#                  streams, cross-device errors, device-side asserts: jtensor vs torch CUDA
#   semantics.json the records behind it
#   bench.txt      bench/cuda_bench.py against torch CUDA on the same GPU (+ bench.json)
#   notebook.txt   notebooks/06_devices.ipynb (and the capstone) run cell by cell on the GPU
#   failures.txt   each failing test's traceback, written as it fails (bench/gpu_failures.py)
#   suite.log      the device-independent suite on the real GPU (--device cuda), run in the
#                  background beside the checks above, verbose, so a run cut by its limit
#                  still names every test that failed before it
# The torch there is not the 2.13 oracle: comparisons may differ in a few places; note them,
# do not change tests for them (JTENSOR_REQUIRE_ORACLE=0 lets the suite run with it).
set -uo pipefail
cd "$(dirname "$0")/.."
. bench/gpu_setup.sh
SUITE_S=${SUITE_S:-420}

echo "== suite starts in the background (${SUITE_S} s at most, -n 12)"
( JTENSOR_FAILURES="$OUT/failures.txt" PYTHONPATH="$PWD/bench:$PYTHONPATH" timeout -s INT -k 20 "$SUITE_S" \
    "$PY" -m pytest -p no:cacheprovider -p gpu_failures -o addopts="" -v -n 14 --device cuda \
    -W ignore::DeprecationWarning --tb=short --durations=25 tests/ > "$OUT/suite.log" 2>&1
  echo "exit $?" >> "$OUT/suite.log"
  # tests/cuda targets cuda itself (not through --device): the real GPU when there is one
  JTENSOR_FAILURES="$OUT/failures.txt" PYTHONPATH="$PWD/bench:$PYTHONPATH" timeout -s INT -k 10 60 \
    "$PY" -m pytest -p no:cacheprovider -p gpu_failures -o addopts="" -v -n 4 --tb=short \
    tests/cuda >> "$OUT/suite.log" 2>&1
  echo "tests/cuda exit $?" >> "$OUT/suite.log" ) &
SUITE_PID=$!

{
    nvidia-smi || true
    "$PY" - <<'PYEOF'
import sys, numpy, cupy, torch
print(sys.version)
print("numpy", numpy.__version__, "| cupy", cupy.__version__, "| torch", torch.__version__,
      "cuda", torch.version.cuda)
rt = cupy.cuda.runtime
print("CUDA runtime", rt.runtimeGetVersion(), "| driver", rt.driverGetVersion())
import jtensor, jtensor.cuda as c
print("jtensor cuda available", c.is_available(), "| emulated", c.is_emulated(),
      "|", c.get_device_name())
x = jtensor.arange(6.0, device="cuda").view(2, 3)
print("smoke:", (x @ x.t()).cpu().tolist(), x.device)
PYEOF
    smoke
} > "$OUT/env.txt" 2>&1
echo "== env"; cat "$OUT/env.txt"

echo "== semantics"
timeout 75 "$PY" bench/gpu_semantics.py --json "$OUT/semantics.json" > "$OUT/semantics.txt" 2>&1
echo "exit $?" >> "$OUT/semantics.txt"; cat "$OUT/semantics.txt"

echo "== notebooks"
timeout 90 "$PY" bench/gpu_notebook.py notebooks/06_devices.ipynb notebooks/16_training.ipynb \
    > "$OUT/notebook.txt" 2>&1
echo "exit $?" >> "$OUT/notebook.txt"; grep -E "FAILED|failed cell|exit|Error" "$OUT/notebook.txt" | head -20

wait $SUITE_PID
suite_summary

run_bench 80
