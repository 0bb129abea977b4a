"""ASGD (averaged SGD), mirroring ``torch.optim.ASGD``."""

from __future__ import annotations

import numtorch

from ..kernels import lazy
from .._tensor import Tensor
from ._elementwise import ElementwiseOptimizer, check_lr
from .optimizer import _to_scalar, bump_step, compute_dtype, finish, flat_in, flat_inout, pick, scalar_state

__all__ = ["ASGD"]
KX = lazy("numtorch.kernels.cpu.optim_extra")


def _set(t: Tensor, value: float) -> None:
    t._data[()] = value
    t._vc[0] += 1


class ASGD(ElementwiseOptimizer):
    """Averaged SGD: SGD with a decaying step ``eta``, keeping the running average ``ax``.

    >>> p = numtorch.nn.Parameter(numtorch.tensor([1.0]))
    >>> opt = numtorch.optim.ASGD([p], lr=0.1, lambd=0.0)
    >>> p.grad = numtorch.tensor([0.5]); opt.step(); p.data
    tensor([0.9500])
    """

    _SCALAR_STATE = ("eta", "mu")

    def __init__(
        self, params, lr: float | Tensor = 1e-2, lambd: float = 1e-4, alpha: float = 0.75,
        t0: float = 1e6, weight_decay: float = 0, foreach: bool | None = None,
        maximize: bool = False, differentiable: bool = False, capturable: bool = False,
    ) -> None:  # fmt: skip
        check_lr(lr)
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {
            "lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0, "weight_decay": weight_decay,
            "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
            "capturable": capturable,
        }  # fmt: skip
        super().__init__(params, defaults)

    def _init_state(self, p, state, group):
        state["step"] = scalar_state(0.0)
        state["eta"] = scalar_state(_to_scalar(group["lr"]))
        state["mu"] = scalar_state(1.0)
        state["ax"] = numtorch.zeros_like(p)

    def _update(self, p, state, group):
        cd = compute_dtype(p)
        lr, wd, lambd = _to_scalar(group["lr"]), group["weight_decay"], group["lambd"]
        step = bump_step(state["step"])
        eta, mu = float(state["eta"]._data), float(state["mu"]._data)
        s = (cd(wd), cd(1 - lambd * eta), cd(-eta), cd(mu))
        flags = (wd != 0, bool(group["maximize"]), mu != 1)
        ax = state["ax"]
        pf, xf = flat_inout(p, cd), flat_inout(ax, cd)
        g = flat_in(p.grad, cd)
        pick(KX.asgd_step, KX.asgd_step_parallel, g.size)(pf[0], g, xf[0], s, flags)
        finish((p, pf), (ax, xf))
        _set(state["eta"], lr / ((1 + lambd * lr * step) ** group["alpha"]))
        _set(state["mu"], 1 / max(1, step - group["t0"]))
