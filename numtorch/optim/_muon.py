"""Muon, mirroring ``torch.optim.Muon``: momentum SGD whose update for a 2-d parameter is
orthogonalized by a quintic Newton-Schulz iteration.

PyTorch runs the iteration in bfloat16; numtorch's bfloat16 computes in float32 anyway, so it runs in float32
(the update is an approximate orthogonalization either way: singular values land in about [0.5, 1.5]).
"""

from __future__ import annotations

import math

import numtorch

from .._tensor import Tensor
from .optimizer import Optimizer, _to_scalar

__all__ = ["Muon"]

EPS = 1e-7
DEFAULT_A, DEFAULT_B, DEFAULT_C = 3.4445, -4.7750, 2.0315
DEFAULT_NS_STEPS = 5


def _zeropower_via_newtonschulz(grad: Tensor, ns_coefficients, ns_steps: int, eps: float) -> Tensor:
    if ns_steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if len(grad.shape) != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(ns_coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = ns_coefficients
    x = grad.float()
    tall = grad.size(0) > grad.size(1)
    if tall:
        x = x.T
    x = x / x.norm().clamp(min=eps)
    for _ in range(ns_steps):
        gram = x @ x.T
        update = numtorch.addmm(gram, gram, gram, beta=b, alpha=c)
        x = numtorch.addmm(x, update, x, beta=a)
    return x.T if tall else x


def _adjust_lr(lr: float, adjust_lr_fn, param_shape) -> float:
    A, B = param_shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        return lr * math.sqrt(max(1, A / B))
    if adjust_lr_fn == "match_rms_adamw":
        return lr * 0.2 * math.sqrt(max(A, B))
    return lr


class Muon(Optimizer):
    """Muon for 2-d (hidden-layer) parameters; use AdamW for biases and embeddings.

    >>> w = numtorch.nn.Parameter(numtorch.eye(2))
    >>> opt = numtorch.optim.Muon([w], lr=0.1, weight_decay=0.0)
    >>> w.grad = numtorch.tensor([[1.0, 0.0], [0.0, 0.0]]); opt.step()
    >>> w.data[1, 1].item(), round(w.data[0, 0].item(), 2) < 1.0
    (1.0, True)
    """

    def __init__(self, params, lr: float = 1e-3, weight_decay: float = 0.1, momentum: float = 0.95,
                 nesterov: bool = True, ns_coefficients=(DEFAULT_A, DEFAULT_B, DEFAULT_C), eps: float = EPS,
                 ns_steps: int = DEFAULT_NS_STEPS, adjust_lr_fn: str | None = None) -> None:  # fmt: skip
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in ("original", "match_rms_adamw"):
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = {"lr": lr, "weight_decay": weight_decay, "momentum": momentum, "nesterov": nesterov,
                    "ns_coefficients": ns_coefficients, "eps": eps, "ns_steps": ns_steps,
                    "adjust_lr_fn": adjust_lr_fn}  # fmt: skip
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError(
                        f"Muon only supports 2D parameters whereas we found a parameter with size: {p.size()}"
                    )

    @numtorch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with numtorch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            lr, wd, mom = _to_scalar(group["lr"]), group["weight_decay"], group["momentum"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                if p.is_complex():
                    raise RuntimeError("Muon does not support complex parameters")
                grad = p.grad
                state = self.state[p]
                if "momentum_buffer" not in state:
                    state["momentum_buffer"] = numtorch.zeros_like(grad)
                buf = state["momentum_buffer"]
                buf.lerp_(grad, 1 - mom)
                update = grad.lerp(buf, mom) if group["nesterov"] else buf
                update = _zeropower_via_newtonschulz(update, group["ns_coefficients"], group["ns_steps"], group["eps"])
                p.mul_(1 - lr * wd)
                p.add_(update.to(p.dtype), alpha=-_adjust_lr(lr, group["adjust_lr_fn"], p.shape))
        return loss
