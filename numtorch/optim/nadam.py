"""NAdam, mirroring ``torch.optim.NAdam``."""

from __future__ import annotations

import numtorch

from ..kernels import lazy
from .._tensor import Tensor
from ._elementwise import ElementwiseOptimizer, check_betas, check_lr
from .optimizer import _to_scalar, bump_step, compute_dtype, finish, flat_in, flat_inout, pick, scalar_state

__all__ = ["NAdam"]
KX = lazy("numtorch.kernels.cpu.optim_extra")


class NAdam(ElementwiseOptimizer):
    """NAdam: Adam with Nesterov momentum and a momentum schedule (``momentum_decay``).

    >>> p = numtorch.nn.Parameter(numtorch.tensor([1.0]))
    >>> opt = numtorch.optim.NAdam([p], lr=0.1)
    >>> p.grad = numtorch.tensor([0.5]); opt.step(); p.data
    tensor([0.9000])
    """

    _FLAG_DEFAULTS = {**ElementwiseOptimizer._FLAG_DEFAULTS, "decoupled_weight_decay": False}
    _SCALAR_STATE = ("mu_product",)

    def __init__(
        self, params, lr: float | Tensor = 2e-3, betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8, weight_decay: float = 0, momentum_decay: float = 4e-3,
        decoupled_weight_decay: bool = False, *, foreach: bool | None = None,
        maximize: bool = False, capturable: bool = False, differentiable: bool = False,
    ) -> None:  # fmt: skip
        check_lr(lr)
        check_betas(eps, betas, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = {
            "lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
            "momentum_decay": momentum_decay, "decoupled_weight_decay": decoupled_weight_decay,
            "maximize": maximize, "foreach": foreach, "capturable": capturable,
            "differentiable": differentiable,
        }  # fmt: skip
        super().__init__(params, defaults)

    def _init_state(self, p, state, group):
        state["step"] = scalar_state(0.0)
        state["mu_product"] = scalar_state(1.0)
        state["exp_avg"] = numtorch.zeros_like(p)
        state["exp_avg_sq"] = numtorch.zeros_like(p)

    def _update(self, p, state, group):
        cd = compute_dtype(p)
        lr, wd, md = _to_scalar(group["lr"]), group["weight_decay"], group["momentum_decay"]
        beta1, beta2 = group["betas"]
        step = bump_step(state["step"])
        bias_correction2 = 1 - beta2**step
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * md)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * md)))
        # mu_product *= mu runs in the 0-d state tensor's dtype, as PyTorch's mul_ does
        mp_t = state["mu_product"]
        mp_t._data[()] = mp_t._data * mp_t._data.dtype.type(mu)
        mp_t._vc[0] += 1
        mp = float(mp_t._data)
        mp_next = mp * mu_next
        w1 = cd(1 - beta1)
        s = (
            cd(wd), cd(1 - lr * wd), w1, cd(1) - w1, cd(beta2), cd(1 - beta2),
            cd(bias_correction2), cd(group["eps"]), cd(-lr * (1.0 - mu) / (1.0 - mp)),
            cd((-lr * mu_next) / (1.0 - mp_next)), cd(0.5),
        )  # fmt: skip
        flags = (wd != 0, bool(group["decoupled_weight_decay"]), bool(group["maximize"]))
        m, v = state["exp_avg"], state["exp_avg_sq"]
        pf, mf, vf = flat_inout(p, cd), flat_inout(m, cd), flat_inout(v, cd)
        g = flat_in(p.grad, cd)
        pick(KX.nadam_step, KX.nadam_step_parallel, g.size)(pf[0], g, mf[0], vf[0], s, flags)
        finish((p, pf), (m, mf), (v, vf))
