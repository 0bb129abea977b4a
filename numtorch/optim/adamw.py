"""AdamW: Adam with decoupled weight decay, mirroring ``torch.optim.AdamW``."""

from __future__ import annotations

from .._tensor import Tensor
from .adam import Adam

__all__ = ["AdamW"]


class AdamW(Adam):
    """Adam with weight decay applied to the parameters directly (``p *= 1 - lr * wd``).

    >>> p = numtorch.nn.Parameter(numtorch.tensor([1.0]))
    >>> opt = numtorch.optim.AdamW([p], lr=0.1, weight_decay=0.5)
    >>> p.grad = numtorch.tensor([0.0]); opt.step(); p.data
    tensor([0.9500])
    """

    def __init__(
        self, params, lr: float | Tensor = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8, weight_decay: float = 1e-2, amsgrad: bool = False, *,
        maximize: bool = False, foreach: bool | None = None, capturable: bool = False,
        differentiable: bool = False, fused: bool | None = None,
    ) -> None:  # fmt: skip
        super().__init__(
            params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
            capturable=capturable, differentiable=differentiable, fused=fused,
            decoupled_weight_decay=True,
        )  # fmt: skip

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
