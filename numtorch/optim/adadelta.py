"""Adadelta, mirroring ``torch.optim.Adadelta``."""

from __future__ import annotations

import numtorch

from ..kernels import lazy
from .._tensor import Tensor
from ._elementwise import ElementwiseOptimizer, check_lr
from .optimizer import _to_scalar, bump_step, compute_dtype, finish, flat_in, flat_inout, pick, scalar_state

__all__ = ["Adadelta"]
KX = lazy("numtorch.kernels.cpu.optim_extra")


class Adadelta(ElementwiseOptimizer):
    """Adadelta: steps scaled by the running RMS of past updates over that of the gradients.

    >>> p = numtorch.nn.Parameter(numtorch.tensor([1.0], dtype=numtorch.float64))
    >>> opt = numtorch.optim.Adadelta([p], lr=1.0, eps=1e-2)
    >>> p.grad = numtorch.tensor([1.0], dtype=numtorch.float64); opt.step(); round(p.item(), 4)
    0.7039
    """

    def __init__(
        self, params, lr: float | Tensor = 1.0, rho: float = 0.9, eps: float = 1e-6,
        weight_decay: float = 0, foreach: bool | None = None, *, capturable: bool = False,
        maximize: bool = False, differentiable: bool = False,
    ) -> None:  # fmt: skip
        check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {
            "lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay,
            "maximize": maximize, "capturable": capturable, "foreach": foreach,
            "differentiable": differentiable,
        }  # fmt: skip
        super().__init__(params, defaults)

    def _init_state(self, p, state, group):
        state["step"] = scalar_state(0.0)
        state["square_avg"] = numtorch.zeros_like(p)
        state["acc_delta"] = numtorch.zeros_like(p)

    def _update(self, p, state, group):
        cd = compute_dtype(p)
        lr, wd, rho = _to_scalar(group["lr"]), group["weight_decay"], group["rho"]
        bump_step(state["step"])
        s = (cd(wd), cd(rho), cd(1 - rho), cd(group["eps"]), cd(-lr))
        flags = (wd != 0, bool(group["maximize"]))
        sq, acc = state["square_avg"], state["acc_delta"]
        pf, sf, af = flat_inout(p, cd), flat_inout(sq, cd), flat_inout(acc, cd)
        g = flat_in(p.grad, cd)
        pick(KX.adadelta_step, KX.adadelta_step_parallel, g.size)(pf[0], g, sf[0], af[0], s, flags)
        finish((p, pf), (sq, sf), (acc, af))
