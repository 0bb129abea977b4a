"""The shared frame of the optimizers whose update is one fused kernel per parameter and whose
state is created lazily on the first step (NAdam, RAdam, Adamax, Adadelta, ASGD, Rprop)."""

from __future__ import annotations

from .._tensor import Tensor
from .optimizer import (
    Optimizer,
    _check_differentiable,
    _closure_loss,
    _get_scalar_dtype,
    _use_grad_for_differentiable,
    scalar_state,
)  # fmt: skip

__all__: list[str] = []


def check_lr(lr) -> None:
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")


def check_betas(eps, betas, weight_decay) -> None:
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


class ElementwiseOptimizer(Optimizer):
    # the group flags older state dicts may lack, and the 0-d state entries besides "step"
    _FLAG_DEFAULTS: dict = {
        "foreach": None, "maximize": False, "differentiable": False, "capturable": False,
    }  # fmt: skip
    _SCALAR_STATE: tuple = ()

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            for k, v in self._FLAG_DEFAULTS.items():
                group.setdefault(k, v)
        for s in self.state.values():
            for key in ("step", *self._SCALAR_STATE):
                if key in s and not isinstance(s[key], Tensor):
                    s[key] = scalar_state(float(s[key]), _get_scalar_dtype())

    def _init_state(self, p: Tensor, state: dict, group: dict) -> None:
        raise NotImplementedError

    def _update(self, p: Tensor, state: dict, group: dict) -> None:
        raise NotImplementedError

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform one step; ``closure`` (re-evaluating the loss) is called with grad enabled."""
        loss = _closure_loss(closure)
        for group in self.param_groups:
            _check_differentiable(group)
            for p in group["params"]:
                if p.grad is None:
                    continue
                if p.grad.is_sparse:
                    raise RuntimeError(f"{type(self).__name__} does not support sparse gradients")
                state = self.state[p]
                if len(state) == 0:
                    self._init_state(p, state, group)
                self._update(p, state, group)
        return loss
