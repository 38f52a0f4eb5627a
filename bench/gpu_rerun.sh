#!/usr/bin/env bash
# A targeted GPU run (issue 20): reruns, on the real GPU, the tests listed in
# bench/gpu_ids/rerun.txt: the node ids that failed on the H100 on 2026-11-27
# (bench/gpu_ids/failed_first.txt) and those its 300 s limit cut off. Prepare first
# (bench/gpu_prepare.sh), then:
#   run(command="bash bench/gpu_rerun.sh", carry=[".whl"], timeout_s=420)
# Writes env.txt (with a subnormal check of the CuPy kernels), semantics.txt/json, suite.log,
# failures.txt (60 lines a failure), cpu_oracle.log and bench.txt/json into $OUT.
set -uo pipefail
cd "$(dirname "$0")/.."
. bench/gpu_setup.sh
SUITE_S=${SUITE_S:-240}

{ smoke || { echo "== the subnormal hook broke CuPy: JTENSOR_CUDA_FTZ=1 from here"; export JTENSOR_CUDA_FTZ=1; smoke; }; } > "$OUT/env.txt" 2>&1
grep -q "JTENSOR_CUDA_FTZ=1 from here" "$OUT/env.txt" && export JTENSOR_CUDA_FTZ=1
echo "== env"; cat "$OUT/env.txt"

( timeout 75 "$PY" bench/gpu_semantics.py --json "$OUT/semantics.json" > "$OUT/semantics.txt" 2>&1
  echo "exit $?" >> "$OUT/semantics.txt" ) &
SEM=$!

files=$(cut -d: -f1 bench/gpu_ids/rerun.txt | sort -u | grep -v '^tests/cuda/')
JTENSOR_SELECT=bench/gpu_ids/rerun.txt JTENSOR_FAILURES="$OUT/failures.txt" JTENSOR_FAILURES_TAIL=60 \
    PYTHONPATH="$PWD/bench:$PYTHONPATH" timeout -s INT -k 20 "$SUITE_S" "$PY" -m pytest -p no:cacheprovider \
    -p gpu_failures -o addopts="" -v -n 14 --device cuda -W ignore::DeprecationWarning \
    --tb=short $files > "$OUT/suite.log" 2>&1
echo "exit $?" >> "$OUT/suite.log"
JTENSOR_FAILURES="$OUT/failures.txt" PYTHONPATH="$PWD/bench:$PYTHONPATH" timeout -s INT -k 10 40 \
    "$PY" -m pytest -p no:cacheprovider -p gpu_failures -o addopts="" -q -n 4 --tb=short \
    tests/cuda >> "$OUT/suite.log" 2>&1
echo "tests/cuda exit $?" >> "$OUT/suite.log"
# The first run's failures again, on the CPU (no --device) against the same oracle: those that
# fail there too differ because of that oracle (torch 2.11 there, 2.13 in CI), not the GPU.
cfiles=$(cut -d: -f1 bench/gpu_ids/failed_first.txt | sort -u | grep -v '^tests/cuda/')
JTENSOR_SELECT=bench/gpu_ids/failed_first.txt PYTHONPATH="$PWD/bench:$PYTHONPATH" timeout -s INT -k 10 75 "$PY" -m pytest \
    -p no:cacheprovider -p gpu_failures -o addopts="" -q -rf -n 6 -W ignore::DeprecationWarning \
    --tb=no $cfiles > "$OUT/cpu_oracle.log" 2>&1
echo "exit $?" >> "$OUT/cpu_oracle.log"
wait $SEM
echo "== semantics"; cat "$OUT/semantics.txt"
suite_summary
run_bench 60
