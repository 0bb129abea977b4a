"""Differential fuzzing of numtorch against PyTorch (issue 10).

``campaign(n, seed)`` draws ``n`` calls across the op families in ``FAMILIES``, runs each in
torch and in numtorch, and classifies it (Note [Fuzz classes] in runner.py). The CLI
(``python -m tests.parity.fuzz --calls N``) prints the per-class counts and the distinct
findings; the tests (tests/test_fuzz_fast.py in the default run, tests/parity/test_fuzz.py
under ``-m slow``) drive the same generators through hypothesis, derandomized.
"""

from __future__ import annotations

import random
import time
from collections import Counter, defaultdict

import numpy as np

from . import gen, gen_more
from .runner import BENIGN, CLASSES, Call, T, classify, run

FAMILIES = {
    "binary": gen.gen_binary, "unary": gen.gen_unary, "operator": gen.gen_operator,
    "ternary": gen.gen_ternary, "reduction": gen.gen_reduction, "sorting": gen.gen_sorting,
    "indexing": gen_more.gen_indexing, "view": gen_more.gen_view, "join": gen_more.gen_join,
    "linalg": gen_more.gen_linalg, "products": gen_more.gen_product, "nn": gen_more.gen_nn,
    "factory": gen_more.gen_factory, "autograd": gen_more.gen_autograd, "misc": gen_more.gen_misc,
}  # fmt: skip


def draw(r: random.Random, families=None) -> Call:
    names = sorted(families or FAMILIES)
    return FAMILIES[r.choice(names)](r)


def check(call: Call) -> tuple[str, str]:
    """(class, detail) of one call; imports torch on first use."""
    import torch

    import numtorch

    if crashes_the_oracle(call):
        return "skipped", "torch 2.13 dies with SIGFPE on this call (numtorch answers it)"
    ref = run(torch, call)
    got = run(numtorch, call)
    return classify(call, ref, got)


def crashes_the_oracle(call: Call) -> bool:
    """torch 2.13 kills the process with SIGFPE on an integer trunc division of the dtype's
    minimum by -1 (``torch.div(torch.tensor([-2**63]), -1, rounding_mode='trunc')``): such a
    call cannot be compared, only skipped. So does ``torch.range`` with an integer dtype and a
    fractional step (the step truncates to 0 before torch divides by it), and ``linalg.eigvals``
    of a matrix holding NaN segfaults (MKL's gebal)."""
    if call.target in ("linalg.eig", "linalg.eigvals"):  # torch 2.13 segfaults in MKL's gebal on NaN input
        return any(isinstance(a, T) and a.arr.dtype.kind in "fc" and not np.isfinite(a.arr).all()
                   for a in [*call.args, *call.kwargs.values()])  # fmt: skip
    if call.target == "torch.range":
        step = call.args[2] if len(call.args) > 2 else call.kwargs.get("step", 1)
        dt = call.kwargs.get("dtype")
        integral = dt is not None and dt.name in ("int8", "int16", "int32", "int64", "uint8", "bool")
        return integral and isinstance(step, float) and abs(step) < 1
    if "div" not in call.target or "trunc" not in [*call.args, *call.kwargs.values()]:
        return False
    ints = [a.arr for a in [*call.args, *call.kwargs.values()] if isinstance(a, T) and a.arr.dtype.kind in "iu"]
    has_min = any(a.size and (a == np.iinfo(a.dtype).min).any() for a in ints if a.dtype.kind == "i")
    has_minus_one = any(a.size and (a == -1).any() for a in ints) or -1 in call.args
    return has_min and has_minus_one


def campaign(n: int, seed: int = 0, families=None, budget_s: float | None = None, log=None):
    """Run up to ``n`` calls (or until ``budget_s`` seconds pass); returns (counts, findings)
    where findings maps (class, label) to [count, first call, detail]."""
    counts: Counter = Counter()
    findings: dict = defaultdict(lambda: [0, None, ""])
    t0 = time.perf_counter()
    for i in range(n):
        if budget_s is not None and time.perf_counter() - t0 > budget_s:
            break
        call = draw(random.Random(f"{seed}:{i}"), families)
        if log is not None:  # a crash (segfault, OOM kill) leaves the call that caused it
            log.write(f"{i} {call!r}\n")
            log.flush()
        cls, detail = check(call)
        counts[cls] += 1
        if cls not in BENIGN and cls != "ok":
            f = findings[cls, call.label()]
            if f[1] is None:
                f[1], f[2] = call, detail
            f[0] += 1
    return counts, dict(findings)


def report(counts, findings, show: int = 5) -> str:
    lines = [f"{'class':<12} {'calls':>7} {'distinct':>9}"]
    for c in CLASSES + BENIGN:
        distinct = sum(1 for k in findings if k[0] == c)
        lines.append(f"{c:<12} {counts.get(c, 0):>7} {distinct if c in CLASSES else '':>9}")
    lines.append(f"{'total':<12} {sum(counts.values()):>7}")
    for c in CLASSES:
        items = sorted(((v[0], k[1], v) for k, v in findings.items() if k[0] == c), key=lambda t: -t[0])
        if not items or not show:
            continue
        lines.append(f"\n== {c} ({len(items)} distinct)")
        for n, label, v in items[:show]:
            lines.append(f"  {n:>4}x {label}\n        {v[1]!r}\n        -> {v[2]}")
    return "\n".join(lines)
