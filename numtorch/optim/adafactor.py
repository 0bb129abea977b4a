"""Adafactor, mirroring ``torch.optim.Adafactor``: factored second moments (a row and a column
mean per matrix) instead of Adam's full ``exp_avg_sq``. The update is a handful of reductions and
one outer product per parameter, written with numtorch ops in PyTorch's single-tensor order."""

from __future__ import annotations

import numtorch

from .._tensor import Tensor
from .optimizer import Optimizer, _closure_loss, _get_scalar_dtype, _to_scalar, scalar_state

__all__ = ["Adafactor"]


class Adafactor(Optimizer):
    """Adafactor: relative step sizes with factored second-moment estimates (sublinear memory).

    >>> p = numtorch.nn.Parameter(numtorch.ones(2, 3))
    >>> opt = numtorch.optim.Adafactor([p], lr=0.01)
    >>> p.grad = numtorch.ones(2, 3); opt.step(); round(p[0, 0].item(), 4)
    0.99
    """

    def __init__(self, params, lr: float | Tensor = 1e-2, beta2_decay: float = -0.8,
                 eps: tuple[float | None, float] = (None, 1e-3), d: float = 1.0, weight_decay: float = 0.0, *,
                 foreach: bool | None = None, maximize: bool = False) -> None:  # fmt: skip
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = {"lr": lr, "beta2_decay": beta2_decay, "eps": eps, "d": d, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize}  # fmt: skip
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
        for s in self.state.values():
            if "step" in s and not isinstance(s["step"], Tensor):
                s["step"] = scalar_state(float(s["step"]), _get_scalar_dtype())

    def _init_state(self, p: Tensor) -> dict:
        state = self.state[p]
        if len(state) == 0:
            state["step"] = scalar_state(0.0)
            if p.grad.dim() > 1:
                state["row_var"] = p.grad.new_zeros([*p.grad.shape[:-1], 1])
                state["col_var"] = p.grad.new_zeros([*p.grad.shape[:-2], 1, p.grad.shape[-1]])
            else:
                state["variance"] = numtorch.zeros_like(p.grad)
        return state

    def step(self, closure=None):
        """Perform one step; ``closure`` (re-evaluating the loss) is called with grad enabled."""
        loss = _closure_loss(closure)
        with numtorch.no_grad():
            for group in self.param_groups:
                eps1, eps2 = group["eps"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    if p.is_complex():
                        raise RuntimeError("Adafactor does not support complex parameters")
                    if p.grad.is_sparse:
                        raise RuntimeError("Adafactor does not support sparse gradients")
                    if eps1 is None:  # as in PyTorch, the first parameter's epsilon serves the group
                        eps1 = numtorch.finfo(p.dtype).eps
                    _update(p, self._init_state(p), group, eps1, eps2)
        return loss


def _update(param, state, group, eps1, eps2) -> None:
    lr, wd, d = _to_scalar(group["lr"]), group["weight_decay"], group["d"]
    grad = -param.grad if group["maximize"] else param.grad
    step_t = state["step"]
    step_t += 1
    step = step_t.item()
    one_minus_beta2_t = step ** group["beta2_decay"]
    rho_t = min(lr, 1 / step**0.5)
    alpha = max(eps2, param.norm(2).item() / param.numel() ** 0.5) * rho_t
    if wd != 0:
        param.mul_(1 - lr * wd)
    if grad.dim() > 1:
        row_var, col_var = state["row_var"], state["col_var"]
        row_var.lerp_(grad.norm(dim=-1, keepdim=True).square_().div_(grad.size(-1)), one_minus_beta2_t)
        col_var.lerp_(grad.norm(dim=-2, keepdim=True).square_().div_(grad.size(-2)), one_minus_beta2_t)
        var_estimate = row_var @ col_var
        var_estimate.div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=eps1))
    else:
        variance = state["variance"]
        variance.lerp_(grad * grad, one_minus_beta2_t)
        var_estimate = variance.clone()
    update = var_estimate.clamp_(min=eps1 * eps1).rsqrt_()
    update.mul_(grad)
    denom = max(1.0, update.norm(2).item() / (update.numel() ** 0.5 * d))
    param.add_(update, alpha=-alpha / denom)
