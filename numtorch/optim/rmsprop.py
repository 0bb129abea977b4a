"""RMSprop, mirroring ``torch.optim.RMSprop``."""

from __future__ import annotations

from .._tensor import Tensor
from .optimizer import (
    K,
    Optimizer,
    _check_differentiable,
    _closure_loss,
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

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """RMSprop: divide the gradient by a running root-mean-square of recent gradients.

    >>> p = numtorch.nn.Parameter(numtorch.tensor([1.0]))
    >>> opt = numtorch.optim.RMSprop([p], lr=0.01, alpha=0.75)
    >>> p.grad = numtorch.tensor([2.0]); opt.step(); p.data
    tensor([0.9800])
    """

    def __init__(
        self, params, lr: float | Tensor = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
        weight_decay: float = 0, momentum: float = 0, centered: bool = False,
        capturable: bool = False, foreach: bool | None = None, maximize: bool = False,
        differentiable: bool = False,
    ) -> None:  # fmt: skip
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = {
            "lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps, "centered": centered,
            "weight_decay": weight_decay, "capturable": capturable, "foreach": foreach,
            "maximize": maximize, "differentiable": differentiable,
        }  # fmt: skip
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("momentum", 0)
            group.setdefault("centered", False)
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("capturable", False)
            for p in group["params"]:
                p_state = self.state.get(p, [])
                if len(p_state) != 0 and not isinstance(p_state["step"], Tensor):
                    p_state["step"] = scalar_state(float(p_state["step"]))

    def _init_state(self, p: Tensor, group: dict) -> dict:
        import numtorch

        state = self.state[p]
        if len(state) == 0:
            state["step"] = scalar_state(0.0)
            state["square_avg"] = numtorch.zeros_like(p)
            if group["momentum"] > 0:
                state["momentum_buffer"] = numtorch.zeros_like(p)
            if group["centered"]:
                state["grad_avg"] = numtorch.zeros_like(p)
        return state

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform one step; ``closure`` (re-evaluating the loss) is called with grad enabled."""
        loss = _closure_loss(closure)
        for group in self.param_groups:
            _check_differentiable(group)
            for p in group["params"]:
                if p.grad is not None:
                    _rmsprop_update(p, self._init_state(p, group), group)
        return loss


def _rmsprop_update(p: Tensor, state: dict, group: dict) -> None:
    cd = compute_dtype(p)
    bump_step(state["step"])
    lr, alpha, wd = _to_scalar(group["lr"]), group["alpha"], group["weight_decay"]
    centered, has_mom = bool(group["centered"]), group["momentum"] > 0
    w = cd(1 - alpha)
    s = (
        cd(wd), cd(alpha), cd(1 - alpha), w, cd(1) - w, cd(group["eps"]), cd(group["momentum"]),
        cd(-lr), cd(0.5), cd(-1),
    )  # fmt: skip
    flags = (wd != 0, bool(group["maximize"]))
    sq = state["square_avg"]
    pf, sqf, g = flat_inout(p, cd), flat_inout(sq, cd), flat_in(p.grad, cd)
    arrays, updated = [pf[0], g, sqf[0]], [(p, pf), (sq, sqf)]
    for key, on in (("grad_avg", centered), ("momentum_buffer", has_mom)):
        if on:
            f = flat_inout(state[key], cd)
            arrays.append(f[0])
            updated.append((state[key], f))
    serial, parallel = _RMSPROP_KERNELS[(centered, has_mom)]
    pick(getattr(K, serial), getattr(K, parallel), g.size)(*arrays, s, flags)
    finish(*updated)


_RMSPROP_KERNELS = {
    (False, False): ("rmsprop_step", "rmsprop_step_parallel"),
    (True, False): ("rmsprop_centered_step", "rmsprop_centered_step_parallel"),
    (False, True): ("rmsprop_momentum_step", "rmsprop_momentum_step_parallel"),
    (True, True): ("rmsprop_centered_momentum_step", "rmsprop_centered_momentum_step_parallel"),
}
