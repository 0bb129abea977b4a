"""Adagrad, mirroring ``torch.optim.Adagrad``."""

from __future__ import annotations

from .._tensor import Tensor
from .optimizer import (
    K,
    Optimizer,
    _check_differentiable,
    _closure_loss,
    _get_scalar_dtype,
    _to_scalar,
    _use_grad_for_differentiable,
    bump_step,
    compute_dtype,
    finish,
    flat_in,
    flat_inout,
    pick,
    scalar_state,
)  # fmt: skip

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Adagrad: per-element learning rates from the accumulated squared gradients.

    >>> p = numtorch.nn.Parameter(numtorch.tensor([1.0]))
    >>> opt = numtorch.optim.Adagrad([p], lr=0.5)
    >>> p.grad = numtorch.tensor([3.0]); opt.step(); p.data
    tensor([0.5000])
    """

    def __init__(
        self, params, lr: float | Tensor = 1e-2, lr_decay: float = 0, weight_decay: float = 0,
        initial_accumulator_value: float = 0, eps: float = 1e-10, foreach: bool | None = None,
        *, maximize: bool = False, differentiable: bool = False, fused: bool | None = None,
    ) -> None:  # fmt: skip
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(
                f"Invalid initial_accumulator_value value: {initial_accumulator_value}"
            )
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = {
            "lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
            "initial_accumulator_value": initial_accumulator_value, "foreach": foreach,
            "maximize": maximize, "differentiable": differentiable, "fused": fused,
        }  # fmt: skip
        super().__init__(params, defaults)
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
        import numtorch

        # unlike the other optimizers, Adagrad creates its state eagerly
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = scalar_state(0.0, _get_scalar_dtype(is_fused=group["fused"]))
                init_value = (
                    complex(initial_accumulator_value, initial_accumulator_value)
                    if p.is_complex()
                    else initial_accumulator_value
                )
                state["sum"] = numtorch.full_like(p, init_value)

    def __setstate__(self, state):
        super().__setstate__(state)
        fused = None
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            fused = group.setdefault("fused", None)
        for s in self.state.values():
            if "step" in s and not isinstance(s["step"], Tensor):
                s["step"] = scalar_state(float(s["step"]), _get_scalar_dtype(is_fused=fused))

    def share_memory(self) -> None:
        """A no-op (state lives in ordinary process memory)."""

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform one step; ``closure`` (re-evaluating the loss) is called with grad enabled."""
        loss = _closure_loss(closure)
        for group in self.param_groups:
            _check_differentiable(group)
            for p in group["params"]:
                if p.grad is not None:
                    _adagrad_update(p, self.state[p], group)
        return loss


def _adagrad_update(p: Tensor, state: dict, group: dict) -> None:
    cd = compute_dtype(p)
    step = bump_step(state["step"])
    lr, wd = _to_scalar(group["lr"]), group["weight_decay"]
    clr = lr / (1 + (step - 1) * group["lr_decay"])
    acc = state["sum"]
    pf, af = flat_inout(p, cd), flat_inout(acc, cd)
    g = flat_in(p.grad, cd)
    s = (cd(wd), cd(group["eps"]), cd(-clr))
    flags = (wd != 0, bool(group["maximize"]))
    pick(K.adagrad_step, K.adagrad_step_parallel, g.size)(pf[0], g, af[0], s, flags)
    finish((p, pf), (acc, af))
