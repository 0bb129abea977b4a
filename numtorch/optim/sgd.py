"""SGD with momentum, dampening, Nesterov and weight decay, mirroring ``torch.optim.SGD``."""

from __future__ import annotations

import numpy as np

from .._sparse_tensor import SparseCooTensor
from .._tensor import Tensor, _make
from .optimizer import (
    K,
    Optimizer,
    _check_differentiable,
    _closure_loss,
    _to_scalar,
    _use_grad_for_differentiable,
    compute_dtype,
    finish,
    flat_in,
    flat_inout,
    pick,
)  # fmt: skip

__all__ = ["SGD"]


class SGD(Optimizer):
    """Stochastic gradient descent (optionally with momentum).

    >>> p = numtorch.nn.Parameter(numtorch.tensor([1.0]))
    >>> opt = numtorch.optim.SGD([p], lr=0.1, momentum=0.9)
    >>> for _ in range(2):
    ...     p.grad = numtorch.tensor([1.0]); opt.step()
    >>> p.data
    tensor([0.7100])
    """

    def __init__(
        self, params, lr: float | Tensor = 1e-3, momentum: float = 0, dampening: float = 0,
        weight_decay: float = 0, nesterov: bool = False, *, maximize: bool = False,
        foreach: bool | None = None, differentiable: bool = False, fused: bool | None = None,
    ) -> None:  # fmt: skip
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {
            "lr": lr, "momentum": momentum, "dampening": dampening, "weight_decay": weight_decay,
            "nesterov": nesterov, "maximize": maximize, "foreach": foreach,
            "differentiable": differentiable, "fused": fused,
        }  # fmt: skip
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("nesterov", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("differentiable", False)
            group.setdefault("fused", False)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform one step; ``closure`` (re-evaluating the loss) is called with grad enabled."""
        loss = _closure_loss(closure)
        for group in self.param_groups:
            _check_differentiable(group)
            momentum = group["momentum"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                if momentum != 0:
                    state = self.state[p]
                    state["momentum_buffer"] = _sgd_update(p, state.get("momentum_buffer"), group)
                else:
                    _sgd_update(p, None, group)
        return loss


def _sgd_update(p: Tensor, buf: Tensor | None, group: dict) -> Tensor | None:
    if p.grad.__class__ is SparseCooTensor:
        return _sgd_sparse(p, buf, group)
    cd = compute_dtype(p)
    lr = _to_scalar(group["lr"])
    wd, momentum = group["weight_decay"], group["momentum"]
    first = momentum != 0 and buf is None
    if first:
        # PyTorch seeds the buffer with a clone of the (decayed) gradient; the kernel writes it
        if p._device.type == "cpu":
            buf = _make(np.empty(p._data.shape, p._data.dtype), p._dtype, Tensor, p._device)
        else:  # a CUDA parameter's buffer lives on its device
            import numtorch

            buf = numtorch.empty_like(p)
    s = (cd(-lr), cd(wd), cd(momentum), cd(1 - group["dampening"]))
    flags = (wd != 0, first, bool(group["nesterov"]), bool(group["maximize"]))
    pf, g = flat_inout(p, cd), flat_in(p.grad, cd)
    if momentum == 0:
        pick(K.sgd_step, K.sgd_step_parallel, g.size)(pf[0], g, s, flags)
        finish((p, pf))
        return None
    bf = flat_inout(buf, cd)
    pick(K.sgd_momentum_step, K.sgd_momentum_step_parallel, g.size)(pf[0], g, bf[0], s, flags)
    finish((p, pf), (buf, bf))
    return buf


def _sgd_sparse(p: Tensor, buf, group: dict):
    # PyTorch's _single_tensor_sgd with ops that take a sparse gradient (its weight decay adds
    # the dense parameter to the sparse gradient, which PyTorch refuses as well)
    grad = -p.grad if group["maximize"] else p.grad
    if group["weight_decay"] != 0:
        grad = grad.add(p, alpha=group["weight_decay"])
    momentum = group["momentum"]
    if momentum != 0:
        if buf is None:
            buf = grad.clone().detach()
        else:
            buf.mul_(momentum).add_(grad, alpha=1 - group["dampening"])
        grad = grad.add(buf, alpha=momentum) if group["nesterov"] else buf
    p.add_(grad, alpha=-_to_scalar(group["lr"]))
    return buf
