"""numtorch vs PyTorch vs NumPy on the same workloads, in one process, interleaved.

    python benchmarks/compare.py                  # every workload, 1 thread and default threads
    python benchmarks/compare.py --quick --filter 'tiny|matmul' --threads 1 --json out.json
    python benchmarks/compare.py sweep --threads 1 --clock cpu   # every OpInfo entry

Each workload is built for each library from the same fixed-seed data, warmed (JIT compiled),
then timed in rounds: each round times one batch per library, in a rotating order, so drift
(turbo, page cache, other load) hits all of them alike. A batch repeats the call enough times
to last ``--batch-ms``. Reported: the median per call, numtorch's time over PyTorch's (below
1 is faster), and the geometric mean of those ratios per category; throughput (GB/s, GFLOP/s)
where a workload has a natural one. Start-up workloads run in fresh interpreters.

``--threads 1`` sets OMP/OpenBLAS/MKL/NUMBA thread counts to 1 before NumPy is imported and
calls ``torch.set_num_threads(1)``; ``--threads both`` runs this script once per setting in a
child process and prints both tables. PyTorch is optional: without it the torch column is empty.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import json
import math
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")


def _common():
    from benchmarks import common

    return common


@dataclass
class Result:
    name: str
    category: str
    times: dict = field(default_factory=dict)  # lib -> median seconds
    notes: dict = field(default_factory=dict)  # lib -> "pending: ..." / "error: ..."
    target: float | None = None
    target_s: float | None = None
    work: tuple | None = None

    @property
    def ratio(self):
        nt, pt = self.times.get("numtorch"), self.times.get("torch")
        return nt / pt if nt and pt else None

    @property
    def status(self) -> str:
        if "numtorch" not in self.times:
            return "pending" if self.notes.get("numtorch", "").startswith("pending") else "error"
        ok = True
        if self.target_s is not None:
            ok = self.times["numtorch"] <= self.target_s
        elif self.target is not None:
            if self.ratio is None:
                return "no peer"
            ok = self.ratio <= self.target
        elif self.ratio is None:
            return ""
        return "ok" if ok else "MISS"


# ---- measuring ------------------------------------------------------------------------------------
# wall time by default; --clock cpu: process CPU time, which a machine shared with other jobs
# inflates far less (a descheduled process accrues none); with --threads 1 it equals wall time
# on an idle machine
_CLOCK = [time.perf_counter]


def _batch(fn, number: int) -> float:
    it = itertools.repeat(None, number)
    gc_on = gc.isenabled()
    gc.disable()
    try:
        clock = _CLOCK[0]
        t0 = clock()
        for _ in it:
            fn()
        return clock() - t0
    finally:
        if gc_on:
            gc.enable()


def _calibrate(fn, batch_s: float) -> int:
    number = 1
    while True:
        t = _batch(fn, number)
        if t >= batch_s / 5 or number >= 1 << 22:
            return max(1, round(number * batch_s / max(t, 1e-9)))
        number *= 8


def measure(fns: dict, rounds: int, batch_s: float, process: bool, samples: int | None,
            stat=statistics.median) -> dict:  # fmt: skip
    """Seconds per call for each library (``stat`` of the rounds: median by default), timed
    round-robin in rotating order."""
    order = list(fns)
    got: dict = {lib: [] for lib in order}
    if process:
        rounds = samples or rounds
        for r in range(rounds):
            for lib in order[r % len(order) :] + order[: r % len(order)]:
                got[lib].append(fns[lib]())
        return {lib: stat(v) for lib, v in got.items()}
    numbers = {lib: _calibrate(fn, batch_s) for lib, fn in fns.items()}
    for r in range(rounds):
        for lib in order[r % len(order) :] + order[: r % len(order)]:
            got[lib].append(_batch(fns[lib], numbers[lib]) / numbers[lib])
        gc.collect()
    return {lib: stat(v) for lib, v in got.items()}


def run(args) -> list:
    from benchmarks.workloads import LIBS, workloads

    selected = [w for w in workloads(sweep=args.category == "sweep")
                if re.search(args.filter, w.name) and w.category.startswith(args.category or "")]  # fmt: skip
    rounds = args.rounds or (5 if args.quick else 15)
    batch_s = args.batch_ms / 1000
    results = []
    for w in selected:
        res = Result(w.name, w.category, target=w.target, target_s=w.target_s, work=w.work)
        fns = {}
        for lib in LIBS:
            if lib == "torch" and _common().torch_or_none() is None:
                res.notes[lib] = "PyTorch not installed"
                continue
            try:
                with _common().pending():
                    fn = w.make(lib)
                    if not w.process:
                        for _ in range(2 if args.quick else 3):  # compile, fill caches
                            fn()
                fns[lib] = fn
            except NotImplementedError as e:
                res.notes[lib] = f"pending: {e}"
            except Exception as e:  # a report: note it and go on
                res.notes[lib] = f"error: {type(e).__name__}: {e}"
        if fns:
            samples = 1 if (args.quick and w.process) else w.samples
            stat = min if args.stat == "min" else statistics.median
            res.times = measure(fns, rounds, batch_s, w.process, samples, stat)
        results.append(res)
        print(_row(res), flush=True)
    return results


# ---- reporting -----------------------------------------------------------------------------------------
def _fmt_time(s):
    if s is None:
        return "-"
    for unit, scale in (("s", 1), ("ms", 1e-3), ("us", 1e-6)):
        if s >= scale:
            return f"{s / scale:.3g}{unit}"
    return f"{s * 1e9:.3g}ns"


def _fmt_tput(res, lib):
    t = res.times.get(lib)
    if not res.work or not t:
        return ""
    unit, amount = res.work
    return f"{amount / t / 1e9:.3g}"


_HEADER = (f"{'workload':34} {'numtorch':>9} {'torch':>9} {'numpy':>9} {'nt/pt':>6} "
           f"{'target':>8} {'status':>7}  throughput nt/pt")  # fmt: skip


def _row(res: Result) -> str:
    ratio = f"{res.ratio:.2f}" if res.ratio else "-"
    if res.target_s is not None:
        target = f"<={res.target_s:g}s"
    elif res.target is not None:
        target = f"<={res.target:.2f}"
    else:
        target = ""
    tput = ""
    if res.work and res.times.get("numtorch"):
        tput = f"{_fmt_tput(res, 'numtorch')} / {_fmt_tput(res, 'torch') or '-'} {res.work[0]}"
    nt = _fmt_time(res.times.get("numtorch")) if "numtorch" in res.times else "pending"
    return (f"{res.name[:34]:34} {nt:>9} {_fmt_time(res.times.get('torch')):>9} "
            f"{_fmt_time(res.times.get('numpy')):>9} {ratio:>6} {target:>8} {res.status:>7}  {tput}")  # fmt: skip


def categories(results) -> dict:
    """Geometric mean of numtorch/PyTorch time ratios per category (and workload count)."""
    out = {}
    for cat in dict.fromkeys(r.category for r in results):
        ratios = [r.ratio for r in results if r.category == cat and r.ratio]
        if ratios:
            out[cat] = (math.exp(sum(map(math.log, ratios)) / len(ratios)), len(ratios))
    return out


def report(results, mode: str) -> None:
    print(f"\n== summary, threads={mode}: geometric mean of numtorch/PyTorch time (<1: faster) ==")
    for cat, (g, n) in categories(results).items():
        print(f"  {cat:12} {g:6.2f}x  over {n} workloads")
    notes = [
        (r.name, lib, n) for r in results for lib, n in r.notes.items() if n.startswith("error")
    ]
    for name, lib, note in notes:
        print(f"  ! {name} [{lib}]: {note}")
    pend = [r.name for r in results if r.status == "pending"]
    if pend:
        print(f"  pending in numtorch ({len(pend)}): {', '.join(pend)}")


def sweep_report(results, worst: int = 20) -> None:
    """The sweep's summary: geometric mean per mode and size, the ``worst`` ratios per mode,
    and every case that did not run (with the reason)."""
    from benchmarks import sweep

    print("\n== sweep: numtorch/PyTorch time, geometric mean (<1: faster) ==")
    for mode in sweep.MODES:
        cat = [r for r in results if r.category == f"sweep {mode}"]
        cells = [f"all {sweep.geomean(r.ratio for r in cat):.2f}x ({sum(bool(r.ratio) for r in cat)})"]
        for size in sweep.SIZES:
            rs = [r.ratio for r in cat if r.name.endswith(f" {size} {mode}")]
            cells.append(f"{size} {sweep.geomean(rs):.2f}x")
        print(f"  {mode:8} " + ", ".join(cells))
    for mode in sweep.MODES:
        ranked = sorted((r for r in results if r.category == f"sweep {mode}" and r.ratio),
                        key=lambda r: r.ratio, reverse=True)  # fmt: skip
        print(f"\n  worst {worst}, {mode}:")
        for r in ranked[:worst]:
            print(f"    {r.ratio:7.2f}x  {r.name:48} {_fmt_time(r.times['numtorch']):>9} "
                  f"vs {_fmt_time(r.times['torch']):>9}")  # fmt: skip
    if _common().torch_or_none() is not None:
        print(f"\n  skipped, no PyTorch counterpart: {', '.join(sweep.unresolved()) or '-'}")
    not_run = [(r.name, r.notes.get("numtorch") or r.notes.get("torch", ""))
               for r in results if r.category.startswith("sweep") and not r.ratio]  # fmt: skip
    print(f"  not run ({len(not_run)}):")
    for name, note in not_run:
        print(f"    {name}: {note[:160]}")


def _env_info(mode):
    info = {
        "threads": mode,
        "clock": os.environ.get("NUMTORCH_BENCH_CLOCK", "wall"),
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
    }
    import numba
    import numpy

    info["numpy"], info["numba"] = numpy.__version__, numba.__version__
    info["numba_threads"] = numba.get_num_threads()
    torch = _common().torch_or_none()
    if torch is not None:
        info["torch"], info["torch_threads"] = torch.__version__, torch.get_num_threads()
    return info


def _to_json(results, mode):
    return {
        "env": _env_info(mode),
        "results": [
            {
                "name": r.name,
                "category": r.category,
                "seconds": r.times,
                "notes": r.notes,
                "ratio": r.ratio,
                "target": r.target,
                "target_s": r.target_s,
                "status": r.status,
                "work": r.work,
            }  # fmt: skip
            for r in results
        ],
        "categories": {c: g for c, (g, _) in categories(results).items()},
    }


def _parse(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("category", nargs="?", default=None,
                   help="only this category (prefix); 'sweep': the registry sweep")  # fmt: skip
    p.add_argument("--quick", action="store_true", help="fewer rounds, shorter batches")
    p.add_argument("--filter", default=".", help="regex on workload names")
    p.add_argument("--threads", choices=["1", "default", "both"], default="both")
    p.add_argument("--json", help="write results here")
    p.add_argument("--rounds", type=int, help="timing rounds per workload (default 15, quick 5)")
    p.add_argument("--batch-ms", type=float, default=None, help="length of one timed batch")
    p.add_argument(
        "--stat",
        choices=["median", "min"],
        default="median",
        help="statistic over rounds (min: for a machine under foreign load)",
    )
    p.add_argument(
        "--clock",
        choices=["wall", "cpu"],
        default="wall",
        help="cpu: process CPU time (for a loaded machine; use with --threads 1)",
    )
    p.add_argument("--list", action="store_true", help="list workload names and exit")
    a = p.parse_args(argv)
    if a.batch_ms is None:
        a.batch_ms = 5.0 if a.quick else 20.0
    return a


def _child(argv, mode: str) -> dict:
    """Run this script for one thread setting in a child process; return its JSON."""
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "r.json")
        args, skip = [], False
        for a in argv:  # drop --threads X and --json X: the child gets its own
            if skip:
                skip = False
            elif a in ("--threads", "--json"):
                skip = True
            elif not a.startswith(("--threads=", "--json=")):
                args.append(a)
        subprocess.run(
            [sys.executable, __file__, *args, "--threads", mode, "--json", out], check=True
        )
        with open(out) as f:
            return json.load(f)


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = _parse(argv)
    if args.threads == "both" and not args.list:
        both = {mode: _child(argv, mode) for mode in ("1", "default")}
        print("\n== categories: numtorch/PyTorch time, geometric mean ==")
        print(f"  {'category':12} {'1 thread':>9} {'default':>9}")
        for cat in dict.fromkeys(itertools.chain(*(b["categories"] for b in both.values()))):
            cells = [both[m]["categories"].get(cat) for m in ("1", "default")]
            print(f"  {cat:12} " + " ".join(f"{c:8.2f}x" if c else f"{'-':>9}" for c in cells))
        if args.json:
            with open(args.json, "w") as f:
                json.dump(both, f, indent=1)
        return 0
    if args.clock == "cpu":
        if args.threads != "1":
            print("note: --clock cpu sums every thread's CPU time (spinning BLAS/OpenMP workers "
                  "included): it is not latency with more than one thread")  # fmt: skip
        _CLOCK[0] = time.process_time
        os.environ["NUMTORCH_BENCH_CLOCK"] = "cpu"  # for the fresh-interpreter workloads
    if args.threads == "1":
        for v in _THREAD_VARS:
            os.environ[v] = "1"
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if root not in sys.path:  # for ``from benchmarks import common``; an installed numtorch wins
        sys.path.append(root)
    from benchmarks.workloads import workloads

    if args.list:
        print("\n".join(f"{w.category:12} {w.name}" for w in workloads(sweep=args.category == "sweep")))
        return 0
    torch = _common().torch_or_none()
    if args.threads == "1":
        import numtorch

        numtorch.set_num_threads(1)
        if torch is not None:
            torch.set_num_threads(1)
    info = _env_info(args.threads)
    print(f"== threads={args.threads}: " + ", ".join(f"{k}={v}" for k, v in info.items()) + " ==")
    print(_HEADER)
    results = run(args)
    if args.category == "sweep":
        sweep_report(results)
    else:
        report(results, args.threads)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(_to_json(results, args.threads), f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
