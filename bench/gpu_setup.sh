# Sourced by bench/gpu_run.sh and bench/gpu_rerun.sh on the lent GPU machine, from the
# repository root: $OUT, $PY, the carried wheels (.whl/) installed into /tmp/site, and
# PYTHONPATH with the repository first.
OUT=${OUT:-/tmp/jtensor-gpu-out}
mkdir -p "$OUT"
PY=${PYTHON:-python3}
export PYTHONUNBUFFERED=1 JTENSOR_REQUIRE_ORACLE=0
if [ -d .whl ]; then
    "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
        --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site || exit 1
fi
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}

suite_summary() {  # passed count, the failing ids, the log's end
    echo "== suite"
    grep -cE " PASSED " "$OUT/suite.log" | sed 's/^/passed: /'
    grep -E " (FAILED|ERROR) " "$OUT/suite.log" | sed 's/^\[gw[0-9]*\] \[ *[0-9]*%\] //' \
        | sort | head -150
    tail -4 "$OUT/suite.log"
}

run_bench() {  # bench/cuda_bench.py beside torch CUDA, then where jtensor's time goes
    stop_workers
    echo "== bench (after the suite, so its timings have the GPU alone)"
    timeout "$1" "$PY" bench/cuda_bench.py --json "$OUT/bench.json" > "$OUT/bench.txt" 2>&1
    echo "exit $?" >> "$OUT/bench.txt"
    ( cd bench && timeout 45 "$PY" gpu_profile.py --top 30 ) >> "$OUT/bench.txt" 2>&1
    echo "profile exit $?" >> "$OUT/bench.txt"
    cat "$OUT/bench.txt"
}

# jtensor on the GPU: the subnormal hook in force (CuPy flushes float32 subnormals
# otherwise), and a first product and cast.
smoke() {
    "$PY" - <<'PYEOF'
import numpy as np, jtensor
from jtensor.cuda import _cupy
x = jtensor.tensor([1e-45, -1e-45, 1e-40, 1.0], device="cuda")
bits = lambda t: t.cpu().numpy().view(np.uint32).tolist()
print("subnormals kept by the kernels:", _cupy.SUBNORMALS)
print("x * 1 bits:", bits(x * 1), "| x != 0:", (x != 0).tolist(), "| sum:", bits(x[:3].sum()))
print("abs:", bits(x.abs()), "| x / 2:", bits(x / 2))
y = jtensor.arange(6.0, device="cuda").view(2, 3)
print("smoke:", (y @ y.t()).cpu().tolist(), jtensor.tensor([-1.0, 300.0], device="cuda").byte().tolist())
PYEOF
}

stop_workers() {  # xdist workers a time limit left running must not share the bench's GPU
    pkill -f 'exec\(eval\(sys\.stdin\.readline' 2>/dev/null
    sleep 1
}
