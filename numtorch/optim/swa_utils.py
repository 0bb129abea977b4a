"""Stochastic weight averaging and EMA, mirroring ``torch.optim.swa_utils``: ``AveragedModel``,
``SWALR``, ``update_bn`` and the averaging functions (the multi-tensor ones lerp floating tensors
as PyTorch's foreach kernels do; AveragedModel's default takes PyTorch's CPU per-tensor path)."""

from __future__ import annotations

import itertools
import math
import warnings
from copy import deepcopy
from typing import Any

import numtorch

from .. import _dtype as D
from .._tensor import Tensor
from ..nn.modules.batchnorm import _BatchNorm
from ..nn.modules.module import Module
from .lr_scheduler import LRScheduler, _format_param

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn", "get_swa_multi_avg_fn", "get_ema_avg_fn",
           "get_swa_avg_fn"]  # fmt: skip


def _check_decay(decay) -> None:
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")


def get_ema_multi_avg_fn(decay=0.999):
    """In-place EMA update of lists of tensors: ``ema = lerp(ema, current, 1 - decay)``.

    >>> fn = get_ema_multi_avg_fn(0.5); a = [numtorch.zeros(1)]; fn(a, [numtorch.ones(1)], 0); a
    [tensor([0.5000])]
    """
    _check_decay(decay)

    def ema_update(ema_param_list, current_param_list, _) -> None:
        with numtorch.no_grad():
            for p_ema, p_model in zip(ema_param_list, current_param_list, strict=True):
                if p_ema.is_floating_point() or p_ema.is_complex():
                    p_ema.lerp_(p_model, 1 - decay)
                else:
                    p_ema.copy_(p_ema * decay + p_model * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn():
    """In-place running mean of lists of tensors over ``num_averaged + 1`` models.

    >>> fn = get_swa_multi_avg_fn(); a = [numtorch.zeros(1)]; fn(a, [numtorch.ones(1)], 1); a
    [tensor([0.5000])]
    """

    def swa_update(averaged_param_list, current_param_list, num_averaged) -> None:
        with numtorch.no_grad():
            n = float(num_averaged)
            for p_avg, p_model in zip(averaged_param_list, current_param_list, strict=True):
                if p_avg.is_floating_point() or p_avg.is_complex():
                    p_avg.lerp_(p_model, 1 / (n + 1))
                elif isinstance(num_averaged, Tensor):
                    p_avg.addcdiv_(p_model - p_avg, num_averaged + 1)
                else:
                    p_avg.add_(p_model - p_avg, alpha=1.0 / (n + 1))

    return swa_update


def get_ema_avg_fn(decay=0.999):
    """The EMA of one tensor: ``decay * ema + (1 - decay) * current``.

    >>> get_ema_avg_fn(0.5)(numtorch.zeros(1), numtorch.ones(1), 0)
    tensor([0.5000])
    """
    _check_decay(decay)

    def ema_update(ema_param, current_param, num_averaged):
        with numtorch.no_grad():
            return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn():
    """The running mean of one tensor over ``num_averaged + 1`` models.

    >>> get_swa_avg_fn()(numtorch.zeros(1), numtorch.ones(1), 1)
    tensor([0.5000])
    """

    def swa_update(averaged_param, current_param, num_averaged):
        with numtorch.no_grad():
            return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


class AveragedModel(Module):
    """A copy of ``model`` whose parameters are the running average (or EMA) of ``model``'s.

    >>> net = numtorch.nn.Linear(2, 1); swa = AveragedModel(net)
    >>> swa.update_parameters(net); int(swa.n_averaged)
    1
    """

    def __init__(self, model: Module, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False) -> None:
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", numtorch.tensor(0, dtype=D.int64, device=device))
        self.avg_fn, self.multi_avg_fn, self.use_buffers = avg_fn, multi_avg_fn, use_buffers

    def forward(self, *args, **kwargs):
        """Forward through the averaged copy."""
        return self.module(*args, **kwargs)

    def update_parameters(self, model: Module) -> None:
        """Fold ``model``'s current parameters (and buffers with ``use_buffers``) into the average."""
        if self.use_buffers:
            self_param = itertools.chain(self.module.parameters(), self.module.buffers())
            model_param = itertools.chain(model.parameters(), model.buffers())
        else:
            self_param, model_param = self.parameters(), model.parameters()
        mine, theirs = [], []
        copy_param = bool(self.n_averaged == 0)
        for p_averaged, p_model in zip(self_param, model_param, strict=False):
            p_model_ = p_model.detach().to(p_averaged.device)
            mine.append(p_averaged.detach())
            theirs.append(p_model_)
            if copy_param:
                p_averaged.detach().copy_(p_model_)
        if self.n_averaged > 0:
            if self.multi_avg_fn is not None:
                self.multi_avg_fn(mine, theirs, self.n_averaged)
            elif self.avg_fn is None:
                # PyTorch's path for CPU tensors (no foreach kernels there): the per-tensor mean
                avg_fn = get_swa_avg_fn()
                for p_averaged, p_model in zip(mine, theirs, strict=True):
                    p_averaged.copy_(avg_fn(p_averaged, p_model, self.n_averaged))
            else:
                for p_averaged, p_model in zip(mine, theirs, strict=True):
                    p_averaged.detach().copy_(self.avg_fn(p_averaged.detach(), p_model, self.n_averaged))
        if not self.use_buffers:
            for b_swa, b_model in zip(self.module.buffers(), model.buffers(), strict=True):
                b_swa.detach().copy_(b_model.detach().to(b_swa.device))
        self.n_averaged += 1


def update_bn(loader, model: Module, device=None) -> None:
    """Recompute the BatchNorm running statistics of ``model`` with one pass over ``loader``.

    >>> net = numtorch.nn.Sequential(numtorch.nn.BatchNorm1d(2)); update_bn([numtorch.ones(4, 2)], net)
    >>> net[0].running_mean
    tensor([1., 1.])
    """
    with numtorch.no_grad():
        momenta = {}
        for module in model.modules():
            if isinstance(module, _BatchNorm):
                module.reset_running_stats()
                momenta[module] = module.momentum
        if not momenta:
            return
        was_training = model.training
        model.train()
        for module in momenta:
            module.momentum = None
        for input in loader:
            if isinstance(input, (list, tuple)):
                input = input[0]
            if device is not None:
                input = input.to(device)
            model(input)
        for bn_module in momenta:
            bn_module.momentum = momenta[bn_module]
        model.train(was_training)


class SWALR(LRScheduler):
    """Anneal each group's lr to ``swa_lr`` over ``anneal_epochs`` (cosine or linear), then hold it.

    >>> p = numtorch.nn.Parameter(numtorch.ones(1)); opt = numtorch.optim.SGD([p], lr=1.0)
    >>> sched = SWALR(opt, swa_lr=0.1, anneal_epochs=1, anneal_strategy="linear")
    >>> opt.step(); sched.step(); round(opt.param_groups[0]["lr"], 6)
    0.1
    """

    def __init__(self, optimizer, swa_lr: float, anneal_epochs=10, anneal_strategy: str = "cos", last_epoch=-1) -> None:
        swa_lrs = _format_param("swa_lr", optimizer, swa_lr)
        for lr, group in zip(swa_lrs, optimizer.param_groups, strict=True):
            group["swa_lr"] = lr
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        return swa_lr if alpha == 1 else (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self):
        """The learning rates for the current step of the annealing."""
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please use `get_last_lr()`.",
                          UserWarning, stacklevel=2)  # fmt: skip
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_alpha = self.anneal_func(max(0, min(1, (step - 1) / max(1, self.anneal_epochs))))
        prev_lrs = [self._get_initial_lr(g["lr"], g["swa_lr"], prev_alpha) for g in self.optimizer.param_groups]
        alpha = self.anneal_func(max(0, min(1, step / max(1, self.anneal_epochs))))
        return [g["swa_lr"] * alpha + lr * (1 - alpha) for g, lr in zip(self.optimizer.param_groups, prev_lrs, strict=True)]

    def _set_anneal_func(self, anneal_strategy: str) -> None:
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal

    def state_dict(self) -> dict[str, Any]:
        """The scheduler's state, without the optimizer and the annealing function."""
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Load the scheduler's state."""
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
