"""Reductions: ``_reduce`` (the engine), ``core`` (sum, mean, prod, max/min, all/any, ... and the
area's helpers), ``scan`` (cumulative ops, softmax), ``sorting`` (sort, topk, median, ...) and
``stats`` (var/std, norm, logsumexp)."""

from . import _reduce, core, scan, sorting, stats  # noqa: F401
from . import arg_fast, fast_bindings, norm_fast, stats_fast  # noqa: F401  (after core, whose bindings it completes)
from . import scan_fast, sort_fast  # noqa: F401  (installed by arg_fast.install)
