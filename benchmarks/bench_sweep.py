"""The registry sweep under asv: every OpInfo entry (``numtorch.testing._opinfo.op_db``), forward
and forward+backward, at the small and large size of ``benchmarks/sweep.py``, for numtorch and
its PyTorch peer. Entries without a PyTorch counterpart, forward+backward of non-differentiable
entries and samples that cannot be scaled skip (NotImplementedError).

The same cases run side by side, with the geometric mean and the worst 20 ratios, in
``python benchmarks/compare.py sweep``.
"""

from __future__ import annotations

from . import sweep
from .common import LIBS, Benchmark, torch_or_none


class Sweep(Benchmark):
    params = [sweep.entry_ids(), list(sweep.SIZES), list(sweep.MODES), LIBS]
    param_names = ["entry", "size", "mode", "lib"]

    def setup(self, entry, size, mode, lib):
        libs = ("numtorch", "torch") if torch_or_none() is not None else ("numtorch",)
        if lib == "torch" and "torch" not in libs:
            raise NotImplementedError("PyTorch is not installed")
        self.fn = sweep.build(entry, size, mode, lib, libs)
        self.fn()  # compile, fill caches

    def time_op(self, entry, size, mode, lib):
        self.fn()
