"""CUDA semantics, jtensor beside PyTorch, on the same device (issue 20).

    python3 bench/gpu_semantics.py [--json PATH] [--emulated]

For a real GPU (the device machine's ``python3`` holds CuPy and PyTorch with CUDA): each probe
runs the same small program under ``torch`` and under ``jtensor``, each in a fresh process
(a device-side assertion leaves a CUDA context unusable, so no probe may share one), and
records what happened step by step: the values returned, the exception type and the step at
which it surfaced, and whether the context still works afterwards. The report lists, per
probe, the two records and whether they agree; the JSON holds everything.

Probes: the caching allocator's ``memory_allocated``/``memory_reserved`` over one sequence of
allocations, frees and ``empty_cache``; asynchronous launches and ``synchronize``; events and
``elapsed_time``; ``non_blocking`` copies from pinned memory; streams and ``wait_stream``;
cross-device errors; float32 subnormals and NaN signs (CuPy flushes subnormals); and the
out-of-range index in every index kernel (``x[idx]``,
``x[idx] = v``, ``gather``, ``scatter``, ``scatter_add``, ``index_add``, ``index_copy``,
``index_put_``, ``index_select``, ``take``, ``embedding``), where a real GPU reports a
device-side assertion at a later synchronisation and then refuses further work.

``--emulated`` runs only the jtensor side on jtensor's emulated device (to check the script
itself on a machine without a GPU). Not a test: it never fails on a difference, it reports.
"""

import argparse
import json
import os
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")

# Each probe is a program body using ``torch`` (bound to torch or jtensor) and ``step(name,
# thunk)``, which runs ``thunk``, records its value (or the exception type and message) under
# ``name`` and goes on. The prelude defines ``step`` and ``alive`` (does a fresh op work?).
PRELUDE = """
import json, sys
LIB = sys.argv[1]
if LIB == "jtensor":
    import jtensor as torch
    if len(sys.argv) > 2 and sys.argv[2] == "emulated":
        import warnings
        warnings.simplefilter("ignore")
        torch.cuda.emulate()
else:
    import torch
RECORD = []

def _plain(v):
    if hasattr(v, "tolist") and hasattr(v, "dtype"):
        return {"tensor": v.detach().cpu().tolist(), "dtype": str(v.dtype).split(".")[-1]}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, float):
        return round(v, 6)
    if isinstance(v, (int, bool, str)) or v is None:
        return v
    return repr(v)

def step(name, thunk):
    try:
        RECORD.append([name, "ok", _plain(thunk())])
    except Exception as e:
        RECORD.append([name, "raised", type(e).__name__, str(e).splitlines()[0][:200]])

def alive():
    return (torch.ones(3, device="cuda") * 2).sum().item()
"""

EPILOGUE = """
print("RECORD=" + json.dumps(RECORD))
"""

MiB = 1024 * 1024

PROBES = {
    "allocator": """
torch.cuda.empty_cache()
base_a = torch.cuda.memory_allocated()
sizes = [1, 1000, 256 * 1024, 3 * 1024 * 1024, 50 * 1024 * 1024, 0]
held = []
for n in sizes:
    held.append(torch.empty(n, dtype=torch.uint8, device="cuda"))
    step(f"alloc {n}: allocated, reserved", lambda: (torch.cuda.memory_allocated() - base_a,
                                                     torch.cuda.memory_reserved()))
del held[4]
step("free 50 MiB", lambda: (torch.cuda.memory_allocated() - base_a,
                             torch.cuda.memory_reserved()))
held.append(torch.empty(50 * 1024 * 1024, dtype=torch.uint8, device="cuda"))
step("realloc 50 MiB (cache hit)", lambda: (torch.cuda.memory_allocated() - base_a,
                                            torch.cuda.memory_reserved()))
held.clear()
step("all freed", lambda: (torch.cuda.memory_allocated() - base_a,
                           torch.cuda.memory_reserved() > 0))
torch.cuda.empty_cache()
step("after empty_cache", lambda: (torch.cuda.memory_allocated() - base_a,
                                   torch.cuda.memory_reserved()))
step("max_memory_allocated >= 50 MiB",
     lambda: torch.cuda.max_memory_allocated() >= 50 * 1024 * 1024)
step("memory_stats keys", lambda: sorted(k for k in torch.cuda.memory_stats()
                                         if k.startswith("allocated_bytes.all"))[:4])
""",
    "async-and-sync": """
a = torch.randn(2048, 2048, device="cuda")
torch.cuda.synchronize()
import time
t0 = time.perf_counter()
for _ in range(20):
    b = a @ a
launch = time.perf_counter() - t0
torch.cuda.synchronize()
total = time.perf_counter() - t0
step("launch returns before the work is done", lambda: launch < total)
step("result after synchronize", lambda: b.shape)
step("stream query after sync", lambda: torch.cuda.current_stream().query())
""",
    "events": """
start = torch.cuda.Event(enable_timing=True)
end = torch.cuda.Event(enable_timing=True)
a = torch.randn(1024, 1024, device="cuda")
start.record()
for _ in range(10):
    a = a @ a.t() / 1024
end.record()
step("elapsed before sync (may raise)", lambda: end.query() in (True, False))
end.synchronize()
step("elapsed_time positive", lambda: start.elapsed_time(end) > 0)
plain = torch.cuda.Event()
plain.record()
plain.synchronize()
step("elapsed_time without timing", lambda: start.elapsed_time(plain))
""",
    "non-blocking": """
src = torch.arange(1 << 20, dtype=torch.float32).pin_memory()
step("is_pinned", lambda: src.is_pinned())
d = src.to("cuda", non_blocking=True)
torch.cuda.synchronize()
step("non_blocking copy value", lambda: d[-3:])
back = torch.empty(1 << 20, pin_memory=True)
back.copy_(d, non_blocking=True)
torch.cuda.current_stream().synchronize()
step("device to pinned host", lambda: back[:3])
step("plain tensor is_pinned", lambda: torch.ones(2).is_pinned())
""",
    "streams": """
s = torch.cuda.Stream()
a = torch.ones(1 << 20, device="cuda")
s.wait_stream(torch.cuda.current_stream())  # a is ready before the side stream reads it
with torch.cuda.stream(s):
    b = a * 3
torch.cuda.current_stream().wait_stream(s)
step("result from side stream", lambda: b[:2])
step("current stream restored", lambda: torch.cuda.current_stream() == torch.cuda.default_stream())
e = s.record_event()
e.synchronize()
step("stream record_event query", lambda: e.query())
""",
    "cross-device": """
x = torch.ones(3, device="cuda")
y = torch.ones(3)
step("cuda + cpu", lambda: x + y)
step("cuda + cpu 0-d", lambda: x + torch.tensor(2.0))
step("cpu matmul cuda", lambda: torch.ones(3) @ x)
step("index cuda by cpu index", lambda: x[torch.tensor([0, 2])])
step("copy_ across devices", lambda: y.copy_(x))
step("cuda:1 on one GPU", lambda: torch.ones(1, device="cuda:1"))
""",
    # CuPy compiles every kernel with -ftz=true (cupy/cuda/compiler.py): float32 subnormals
    # would be flushed to zero where PyTorch's CUDA kernels keep them. And NaN signs: x86
    # makes negative default NaNs, CUDA positive canonical ones.
    "floating-point": """
import struct
def bits32(t):
    return [struct.unpack("<I", struct.pack("<f", v))[0] for v in t.cpu().tolist()]
def bits64(t):
    return [struct.unpack("<Q", struct.pack("<d", v))[0] for v in t.cpu().tolist()]
sub = torch.tensor([1e-40, -1e-40, 1e-45, 1.0], device="cuda")
step("float32 subnormal * 1", lambda: bits32(sub * 1))
step("float32 subnormal != 0", lambda: (sub != 0).tolist())
step("float32 subnormal any", lambda: bool(sub[:3].any()))
step("float32 subnormal sum", lambda: bits32((sub[:3] * 1e30).sum().reshape(1)))
step("float32 abs / neg", lambda: [bits32(sub.abs()), bits32(-sub)])
sub64 = torch.tensor([1e-310, -1e-310], dtype=torch.float64, device="cuda")
step("float64 subnormal * 1", lambda: bits64(sub64 * 1))
neg = torch.tensor([-1.0, 0.0], device="cuda")
step("float32 sqrt(-1), 0/0 bits", lambda: bits32(torch.cat([neg[:1].sqrt(), neg[1:] / 0])))
step("float64 sqrt(-1) bits", lambda: bits64(neg.double()[:1].sqrt()))
step("float32 nan sign after neg", lambda: bits32(-(neg[:1].sqrt())))
""",
}

# An out-of-range index in each index kernel: when does the error surface, as what, and is
# the context usable afterwards?
INDEX_KERNELS = {
    "getitem": "x[bad]",
    "setitem": "x.__setitem__(bad, 1.0)",
    "gather": "torch.gather(x, 0, bad)",
    "scatter": "x.clone().scatter_(0, bad, 1.0)",
    "scatter_add": "x.clone().scatter_add_(0, bad, torch.ones(1, device='cuda'))",
    "index_add": "x.clone().index_add_(0, bad, torch.ones(1, device='cuda'))",
    "index_copy": "x.clone().index_copy_(0, bad, torch.ones(1, device='cuda'))",
    "index_put_": "x.clone().index_put_((bad,), torch.ones(1, device='cuda'))",
    "index_select": "x.index_select(0, bad)",
    "take": "torch.take(x, bad)",
    "embedding": "torch.nn.functional.embedding(bad, x.view(4, 1))",
}
for _name, _expr in INDEX_KERNELS.items():
    PROBES[f"index:{_name}"] = f"""
x = torch.arange(4., device="cuda")
bad = torch.tensor([10], device="cuda")
step("call", lambda: ({_expr}) is not None)
step("synchronize", lambda: torch.cuda.synchronize())
step("next op", alive)
step("next op again", alive)
"""


def run_probe(lib, body, emulated):
    program = PRELUDE + textwrap.dedent(body) + EPILOGUE
    argv = [sys.executable, "-c", program, lib] + (["emulated"] if emulated else [])
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=120, env=env, cwd=ROOT)
    except subprocess.TimeoutExpired:
        return {"crashed": "timeout after 120 s"}
    for line in done.stdout.splitlines():
        if line.startswith("RECORD="):
            return {"steps": json.loads(line[len("RECORD=") :])}
    tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
    return {"crashed": f"exit {done.returncode}: " + " | ".join(tail)}


def compare(torch_rec, jt_rec):
    """Per step: 'same', or what differs (value, or exception type / where it surfaced)."""
    if "crashed" in torch_rec or "crashed" in jt_rec:
        return ["crashed"]
    out = []
    for t, j in zip(torch_rec["steps"], jt_rec["steps"], strict=False):
        if t[1] != j[1]:
            out.append(f"{t[0]}: torch {t[1]} {t[2]}, jtensor {j[1]} {j[2]}")
        elif t[1] == "raised" and t[2] != j[2]:
            out.append(f"{t[0]}: torch raised {t[2]}, jtensor raised {j[2]}")
        elif t[1] == "ok" and t[2] != j[2]:
            out.append(f"{t[0]}: torch {t[2]!r}, jtensor {j[2]!r}")
    if len(torch_rec["steps"]) != len(jt_rec["steps"]):
        out.append("different number of steps")
    return out or ["same"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the records here")
    parser.add_argument(
        "--emulated",
        action="store_true",
        help="only jtensor, on its emulated device (checks the script)",
    )
    args = parser.parse_args()
    libs = ["jtensor"] if args.emulated else ["torch", "jtensor"]
    jobs = [(name, lib) for name in PROBES for lib in libs]
    with ThreadPoolExecutor(max_workers=min(8, os.cpu_count() or 2)) as pool:
        results = list(pool.map(lambda job: run_probe(job[1], PROBES[job[0]], args.emulated), jobs))
    records = {}
    for (name, lib), rec in zip(jobs, results, strict=True):
        records.setdefault(name, {})[lib] = rec
    report = {}
    for name, recs in records.items():
        if args.emulated:
            report[name] = recs["jtensor"].get("crashed") or "ran"
        else:
            report[name] = compare(recs["torch"], recs["jtensor"])
        print(f"{name}: {report[name]}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"records": records, "report": report}, f, indent=1)


if __name__ == "__main__":
    main()
