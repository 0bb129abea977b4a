"""Adam (and AdamW through ``decoupled_weight_decay``), mirroring ``torch.optim.Adam``."""

from __future__ import annotations

from .._sparse_tensor import SparseCooTensor
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

__all__ = ["Adam"]


class Adam(Optimizer):
    """Adam: adaptive moment estimation (``amsgrad`` keeps the running max of the second moment).

    >>> p = numtorch.nn.Parameter(numtorch.tensor([1.0]))
    >>> opt = numtorch.optim.Adam([p], lr=0.1)
    >>> p.grad = numtorch.tensor([0.5]); opt.step(); p.data
    tensor([0.9000])
    """

    def __init__(
        self, params, lr: float | Tensor = 1e-3, betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8, weight_decay: float = 0, amsgrad: bool = False, *,
        foreach: bool | None = None, maximize: bool = False, capturable: bool = False,
        differentiable: bool = False, fused: bool | None = None,
        decoupled_weight_decay: bool = False,
    ) -> None:  # fmt: skip
        _check_adam_args(lr, betas, eps, weight_decay)
        betas = tuple(betas)
        defaults = {
            "lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
            "amsgrad": amsgrad, "maximize": maximize, "foreach": foreach,
            "capturable": capturable, "differentiable": differentiable, "fused": fused,
            "decoupled_weight_decay": decoupled_weight_decay,
        }  # fmt: skip
        super().__init__(params, defaults)
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("amsgrad", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("capturable", False)
            group.setdefault("differentiable", False)
            group.setdefault("decoupled_weight_decay", False)
            fused = group.setdefault("fused", None)
            for p in group["params"]:
                p_state = self.state.get(p, [])
                if len(p_state) != 0 and not isinstance(p_state["step"], Tensor):
                    dt = _get_scalar_dtype(is_fused=fused)
                    p_state["step"] = scalar_state(float(p_state["step"]), dt)

    def _init_state(self, p: Tensor, group: dict) -> dict:
        import numtorch

        state = self.state[p]
        if len(state) == 0:
            state["step"] = scalar_state(0.0)
            state["exp_avg"] = numtorch.zeros_like(p)
            state["exp_avg_sq"] = numtorch.zeros_like(p)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = numtorch.zeros_like(p)
        return state

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform one step; ``closure`` (re-evaluating the loss) is called with grad enabled."""
        loss = _closure_loss(closure)
        for group in self.param_groups:
            _check_differentiable(group)
            for p in group["params"]:
                if p.grad is not None:
                    if p.grad.__class__ is SparseCooTensor:  # PyTorch's text, AdamW's included
                        raise RuntimeError("Adam does not support sparse gradients, please consider SparseAdam instead")
                    _adam_update(p, self._init_state(p, group), group)
        return loss


def _check_adam_args(lr, betas, eps, weight_decay) -> None:
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")
    if not (
        (isinstance(betas[0], float) and isinstance(betas[1], float))
        or (isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor))
    ):
        raise ValueError("betas must be either both floats or both Tensors")


def _adam_update(p: Tensor, state: dict, group: dict) -> None:
    cd = compute_dtype(p)
    lr = _to_scalar(group["lr"])
    beta1, beta2 = (_to_scalar(b) for b in group["betas"])
    wd = group["weight_decay"]
    step = bump_step(state["step"])
    # the scalar arithmetic is PyTorch's, in Python floats (float64), before the cast to cd
    bias_correction1 = 1 - beta1**step
    bias_correction2 = 1 - beta2**step
    step_size = lr / bias_correction1
    bias_correction2_sqrt = bias_correction2**0.5
    w1 = cd(1 - beta1)
    s = (
        cd(wd), cd(1 - lr * wd), w1, cd(1) - w1, cd(beta2), cd(1 - beta2),
        cd(bias_correction2_sqrt), cd(group["eps"]), cd(-step_size), cd(0.5),
    )  # fmt: skip
    flags = (wd != 0, bool(group["decoupled_weight_decay"]), bool(group["maximize"]))
    m, v = state["exp_avg"], state["exp_avg_sq"]
    pf, mf, vf = flat_inout(p, cd), flat_inout(m, cd), flat_inout(v, cd)
    g = flat_in(p.grad, cd)
    if group["amsgrad"]:
        vmax = state["max_exp_avg_sq"]
        xf = flat_inout(vmax, cd)
        fn = pick(K.adam_amsgrad_step, K.adam_amsgrad_step_parallel, g.size)
        fn(pf[0], g, mf[0], vf[0], xf[0], s, flags)
        finish((p, pf), (m, mf), (v, vf), (vmax, xf))
    else:
        pick(K.adam_step, K.adam_step_parallel, g.size)(pf[0], g, mf[0], vf[0], s, flags)
        finish((p, pf), (m, mf), (v, vf))
