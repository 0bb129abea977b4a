"""RAdam, mirroring ``torch.optim.RAdam``."""

from __future__ import annotations

import numtorch

from ..kernels import lazy
from .._tensor import Tensor
from ._elementwise import ElementwiseOptimizer, check_betas, check_lr
from .optimizer import _to_scalar, bump_step, compute_dtype, finish, flat_in, flat_inout, pick, scalar_state

__all__ = ["RAdam"]
KX = lazy("numtorch.kernels.cpu.optim_extra")


class RAdam(ElementwiseOptimizer):
    """RAdam: Adam whose adaptive step is switched on once the variance estimate is reliable.

    >>> p = numtorch.nn.Parameter(numtorch.tensor([1.0]))
    >>> opt = numtorch.optim.RAdam([p], lr=0.1)
    >>> p.grad = numtorch.tensor([0.5]); opt.step(); p.data
    tensor([0.9500])
    """

    _FLAG_DEFAULTS = {**ElementwiseOptimizer._FLAG_DEFAULTS, "decoupled_weight_decay": False}

    def __init__(
        self, params, lr: float | Tensor = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8, weight_decay: float = 0, decoupled_weight_decay: bool = False, *,
        foreach: bool | None = None, maximize: bool = False, capturable: bool = False,
        differentiable: bool = False,
    ) -> None:  # fmt: skip
        check_lr(lr)
        check_betas(eps, betas, weight_decay)
        defaults = {
            "lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
            "maximize": maximize, "foreach": foreach, "capturable": capturable,
            "decoupled_weight_decay": decoupled_weight_decay, "differentiable": differentiable,
        }  # fmt: skip
        super().__init__(params, defaults)

    def _init_state(self, p, state, group):
        state["step"] = scalar_state(0.0)
        state["exp_avg"] = numtorch.zeros_like(p)
        state["exp_avg_sq"] = numtorch.zeros_like(p)

    def _update(self, p, state, group):
        cd = compute_dtype(p)
        lr, wd = _to_scalar(group["lr"]), group["weight_decay"]
        beta1, beta2 = group["betas"]
        step = bump_step(state["step"])
        bias_correction1 = 1 - beta1**step
        bias_correction2 = 1 - beta2**step
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
        rectified = rho_t > 5.0
        rect = 1.0
        if rectified:
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
        w1 = cd(1 - beta1)
        s = (
            cd(wd), cd(1 - lr * wd), w1, cd(1) - w1, cd(beta2), cd(1 - beta2),
            cd(bias_correction1), cd(lr), cd(bias_correction2**0.5), cd(group["eps"]), cd(rect),
            cd(0.5), cd(-1),
        )  # fmt: skip
        flags = (wd != 0, bool(group["decoupled_weight_decay"]), bool(group["maximize"]), rectified)
        m, v = state["exp_avg"], state["exp_avg_sq"]
        pf, mf, vf = flat_inout(p, cd), flat_inout(m, cd), flat_inout(v, cd)
        g = flat_in(p.grad, cd)
        pick(KX.radam_step, KX.radam_step_parallel, g.size)(pf[0], g, mf[0], vf[0], s, flags)
        finish((p, pf), (m, mf), (v, vf))
