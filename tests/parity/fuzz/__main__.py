"""``python -m tests.parity.fuzz --calls N [--seed S] [--family F ...] [--show K]``."""

from __future__ import annotations

import argparse
import faulthandler
import os
import tempfile
import time

os.environ.setdefault("NUMTORCH_KERNEL_CACHE", os.path.join(tempfile.gettempdir(), "numtorch-test-kernels"))

from . import FAMILIES, campaign, report  # noqa: E402


def main(argv=None) -> None:
    p = argparse.ArgumentParser(prog="python -m tests.parity.fuzz", description=__doc__)
    p.add_argument("--calls", type=int, default=2000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--family", action="append", choices=sorted(FAMILIES))
    p.add_argument("--show", type=int, default=8, help="distinct findings listed per class")
    p.add_argument("--budget", type=float, default=None, help="stop after this many seconds")
    p.add_argument("--log", default=None, help="write each call here before running it")
    a = p.parse_args(argv)
    t0 = time.perf_counter()
    log = open(a.log, "w") if a.log else None  # noqa: SIM115 -- open for the whole campaign
    faulthandler.enable()
    counts, findings = campaign(a.calls, a.seed, a.family, a.budget, log)
    print(report(counts, findings, a.show))
    print(f"\n{sum(counts.values())} calls in {time.perf_counter() - t0:.0f} s (seed {a.seed})")


if __name__ == "__main__":
    main()
