"""CyclicLR (kept apart from lr_scheduler.py for the module size cap; exported from there)."""

from __future__ import annotations

import math
import types
from functools import partial
from typing import Any

from .lr_scheduler import (
    LRScheduler,
    _format_param,
    _update_param_group_val,
    _warn_get_lr_called_within_step,
)  # fmt: skip
from .optimizer import Optimizer


class CyclicLR(LRScheduler):
    """Cyclical learning rates: lr cycles between ``base_lr`` and ``max_lr`` (triangular,
    triangular2, exp_range or a custom ``scale_fn``), momentum the opposite way. Step per batch.

    >>> p = numtorch.nn.Parameter(numtorch.ones(1))
    >>> opt = numtorch.optim.SGD([p], lr=0.1, momentum=0.9)
    >>> sched = numtorch.optim.lr_scheduler.CyclicLR(opt, 0.01, 0.1, step_size_up=2)
    >>> opt.step(); sched.step(); round(sched.get_last_lr()[0], 6)
    0.055
    """

    def __init__(
        self, optimizer, base_lr, max_lr, step_size_up: int = 2000,
        step_size_down: int | None = None, mode: str = "triangular", gamma: float = 1.0,
        scale_fn=None, scale_mode: str = "cycle", cycle_momentum: bool = True,
        base_momentum: float = 0.8, max_momentum: float = 0.9, last_epoch: int = -1,
    ) -> None:  # fmt: skip
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        base_lrs = _format_param("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups, strict=True):
                _update_param_group_val(group, "lr", lr)
        self.max_lrs = _format_param("max_lr", optimizer, max_lr)
        step_size_up = float(step_size_up)
        step_size_down = float(step_size_down) if step_size_down is not None else step_size_up
        self.total_size = step_size_up + step_size_down
        self.step_ratio = step_size_up / self.total_size
        if mode not in ["triangular", "triangular2", "exp_range"] and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode
        self._init_scale_fn()
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError(
                    "optimizer must support momentum or beta1 with `cycle_momentum` option enabled"
                )
            self.use_beta1 = "betas" in self.optimizer.defaults
            self.base_momentums = _format_param("base_momentum", optimizer, base_momentum)
            self.max_momentums = _format_param("max_momentum", optimizer, max_momentum)
            if last_epoch == -1:
                for m, b, group in zip(self.max_momentums, self.base_momentums, optimizer.param_groups, strict=True):  # fmt: skip
                    self._set_momentum(group, m)
                    group["max_momentum"] = m
                    group["base_momentum"] = b
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _set_momentum(self, group: dict, m) -> None:
        if self.use_beta1:
            group["betas"] = (m, *group["betas"][1:])
        else:
            group["momentum"] = m

    def _init_scale_fn(self) -> None:
        if self._scale_fn_custom is not None:
            return
        if self.mode == "triangular":
            self._scale_fn_ref = _triangular
            self.scale_mode = "cycle"
        elif self.mode == "triangular2":
            self._scale_fn_ref = _triangular2
            self.scale_mode = "cycle"
        elif self.mode == "exp_range":
            self._scale_fn_ref = partial(_exp_range, self.gamma)
            self.scale_mode = "iterations"

    def scale_fn(self, x) -> float:
        """The amplitude scale at cycle (or iteration) ``x``."""
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        return self._scale_fn_ref(x)

    def get_lr(self) -> list:
        """The learning rates for the step ``last_epoch`` (and, with ``cycle_momentum``,
        sets the groups' momentum)."""
        _warn_get_lr_called_within_step(self)
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        if x <= self.step_ratio:
            scale_factor = x / self.step_ratio
        else:
            scale_factor = (x - 1) / (self.step_ratio - 1)
        at = cycle if self.scale_mode == "cycle" else self.last_epoch
        lrs = [base + (hi - base) * scale_factor * self.scale_fn(at)
               for base, hi in zip(self.base_lrs, self.max_lrs, strict=True)]  # fmt: skip
        if self.cycle_momentum:
            moms = [hi - (hi - base) * scale_factor * self.scale_fn(at)
                    for base, hi in zip(self.base_momentums, self.max_momentums, strict=True)]  # fmt: skip
            for group, m in zip(self.optimizer.param_groups, moms, strict=True):
                self._set_momentum(group, m)
        return lrs

    def state_dict(self) -> dict[str, Any]:
        """The scheduler's state; a custom ``scale_fn`` is kept only as a callable object's
        ``__dict__`` (functions and lambdas cannot be saved)."""
        state = super().state_dict()
        state.pop("_scale_fn_ref", None)
        fn = state.pop("_scale_fn_custom")
        state["_scale_fn_custom"] = None
        if fn is not None and not isinstance(fn, types.FunctionType):
            state["_scale_fn_custom"] = fn.__dict__.copy()
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Load the scheduler's state."""
        fn = state_dict.pop("_scale_fn_custom")
        super().load_state_dict(state_dict)
        if fn is not None:
            self._scale_fn_custom.__dict__.update(fn)
        self._init_scale_fn()


def _triangular(x: float) -> float:
    return 1.0


def _triangular2(x: float) -> float:
    return 1 / (2.0 ** (x - 1))


def _exp_range(gamma: float, x: float) -> float:
    return gamma**x
