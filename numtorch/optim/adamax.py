"""Adamax, mirroring ``torch.optim.Adamax``."""

from __future__ import annotations

import numtorch

from ..kernels import lazy
from .._tensor import Tensor
from ._elementwise import ElementwiseOptimizer, check_betas, check_lr
from .optimizer import _to_scalar, bump_step, compute_dtype, finish, flat_in, flat_inout, pick, scalar_state

__all__ = ["Adamax"]
KX = lazy("numtorch.kernels.cpu.optim_extra")


class Adamax(ElementwiseOptimizer):
    """Adamax: Adam with the infinity norm of past gradients in place of the second moment.

    >>> p = numtorch.nn.Parameter(numtorch.tensor([1.0]))
    >>> opt = numtorch.optim.Adamax([p], lr=0.1)
    >>> p.grad = numtorch.tensor([0.5]); opt.step(); p.data
    tensor([0.9000])
    """

    def __init__(
        self, params, lr: float | Tensor = 2e-3, betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8, weight_decay: float = 0, foreach: bool | None = None, *,
        maximize: bool = False, differentiable: bool = False, capturable: bool = False,
    ) -> None:  # fmt: skip
        check_lr(lr)
        check_betas(eps, betas, weight_decay)
        defaults = {
            "lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
            "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
            "capturable": capturable,
        }  # fmt: skip
        super().__init__(params, defaults)

    def _init_state(self, p, state, group):
        state["step"] = scalar_state(0.0)
        state["exp_avg"] = numtorch.zeros_like(p)
        state["exp_inf"] = numtorch.zeros_like(p)

    def _update(self, p, state, group):
        cd = compute_dtype(p)
        lr, wd = _to_scalar(group["lr"]), group["weight_decay"]
        beta1, beta2 = group["betas"]
        step = bump_step(state["step"])
        clr = lr / (1 - beta1**step)
        w1 = cd(1 - beta1)
        s = (cd(wd), w1, cd(1) - w1, cd(beta2), cd(group["eps"]), cd(-clr), cd(0.5))
        flags = (wd != 0, bool(group["maximize"]))
        m, u = state["exp_avg"], state["exp_inf"]
        pf, mf, uf = flat_inout(p, cd), flat_inout(m, cd), flat_inout(u, cd)
        g = flat_in(p.grad, cd)
        pick(KX.adamax_step, KX.adamax_step_parallel, g.size)(pf[0], g, mf[0], uf[0], s, flags)
        finish((p, pf), (m, mf), (u, uf))
