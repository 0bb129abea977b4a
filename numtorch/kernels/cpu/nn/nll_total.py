"""nll_loss's checked kernel and its total in one call (Note [Loss binding fast calls]): the
fast call of a reduced F.nll_loss / F.cross_entropy made two kernel calls, nll_loss_checked and
total, each through its own entry; this makes both, in that order, on the same arrays."""

from __future__ import annotations

from numtorch.kernels._jit import kernel
from numtorch.kernels.cpu.nn.loss import nll_loss_checked, total


@kernel
def nll_loss_checked_total(x, target, w, C, S, ignore_index, out):
    """(nll_loss_checked's answer, total(out)); the total is 0.0 where the targets' check failed."""
    tw = nll_loss_checked(x, target, w, C, S, ignore_index, out)
    if tw < 0:
        return tw, 0.0
    return tw, total(out)
