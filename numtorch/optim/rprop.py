"""Rprop (resilient backpropagation), mirroring ``torch.optim.Rprop``."""

from __future__ import annotations

import numtorch

from ..kernels import lazy
from .._tensor import Tensor
from ._elementwise import ElementwiseOptimizer, check_lr
from .optimizer import _to_scalar, bump_step, compute_dtype, finish, flat_in, flat_inout, pick, scalar_state

__all__ = ["Rprop"]
KX = lazy("numtorch.kernels.cpu.optim_extra")


class Rprop(ElementwiseOptimizer):
    """Rprop: each element moves by its own step size, grown while its gradient keeps its sign.

    >>> p = numtorch.nn.Parameter(numtorch.tensor([1.0]))
    >>> opt = numtorch.optim.Rprop([p], lr=0.1)
    >>> p.grad = numtorch.tensor([-3.0]); opt.step(); p.data
    tensor([1.1000])
    """

    def __init__(
        self, params, lr: float | Tensor = 1e-2, etas: tuple[float, float] = (0.5, 1.2),
        step_sizes: tuple[float, float] = (1e-6, 50), *, capturable: bool = False,
        foreach: bool | None = None, maximize: bool = False, differentiable: bool = False,
    ) -> None:  # fmt: skip
        check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {
            "lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach,
            "maximize": maximize, "differentiable": differentiable, "capturable": capturable,
        }  # fmt: skip
        super().__init__(params, defaults)

    def _init_state(self, p, state, group):
        lr = _to_scalar(group["lr"])
        state["step"] = scalar_state(0.0)
        state["prev"] = numtorch.zeros_like(p)
        state["step_size"] = numtorch.full_like(p.grad, complex(lr, lr) if p.is_complex() else lr)

    def _update(self, p, state, group):
        cd = compute_dtype(p)
        bump_step(state["step"])
        em, ep = group["etas"]
        lo, hi = group["step_sizes"]
        s = (cd(em), cd(ep), cd(lo), cd(hi), cd(0), cd(1), cd(-1))
        prev, ss = state["prev"], state["step_size"]
        pf, vf, sf = flat_inout(p, cd), flat_inout(prev, cd), flat_inout(ss, cd)
        g = flat_in(p.grad, cd)
        fn = pick(KX.rprop_step, KX.rprop_step_parallel, g.size)
        fn(pf[0], g, vf[0], sf[0], s, (bool(group["maximize"]),))
        finish((p, pf), (prev, vf), (ss, sf))
