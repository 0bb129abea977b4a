"""``numtorch.amp.GradScaler``: loss scaling with PyTorch's update rule, on the scaled device.

# Note [Scale on the device]
# As PyTorch's, the scale, the growth tracker and the found-inf flags are one-element tensors on
# the gradients' device, updated by ``_amp_foreach_non_finite_check_and_unscale_`` and
# ``_amp_update_scale_`` without reading them back; only ``step`` (whether to skip) and
# ``get_scale`` synchronise. Both device types share this code; without CUDA a ``"cuda"``
# scaler disables itself with PyTorch's warning and becomes a pass-through, which train
# scripts written for GPUs rely on when run on a CPU.
"""

from __future__ import annotations

import warnings

from .. import _dtype as D


def _cuda_available() -> bool:
    from .. import cuda

    return cuda.is_available()


def _check_flag(t, name: str) -> None:
    if t.numel() != 1:
        raise RuntimeError(f"{name} must be a 1-element tensor.")
    if t.dtype is not D.float32:
        raise RuntimeError(f"{name} must be a float tensor.")


def _amp_foreach_non_finite_check_and_unscale_(self, found_inf, inv_scale) -> None:
    """Multiply each tensor of ``self`` by ``inv_scale`` in place; set ``found_inf`` to 1.0
    when any of them holds inf or NaN (all three stay on their device)."""
    _check_flag(inv_scale, "inv_scale")
    _check_flag(found_inf, "found_inf")
    for t in self:
        if t.device != found_inf.device or t.device != inv_scale.device:
            raise RuntimeError("scaled_grads, found_inf, and inv_scale must be on the same device.")
        if not t.dtype.is_floating_point:
            raise RuntimeError("_amp_foreach_non_finite_check_and_unscale_ only supports floating-point tensors.")
        bad = t.isfinite().logical_not().any().to(D.float32)
        found_inf.copy_(found_inf.maximum(bad.reshape(found_inf.shape)))
        t.mul_(inv_scale.to(t.dtype).reshape(()))


def _amp_update_scale_(self, growth_tracker, found_inf, scale_growth_factor: float,
                       scale_backoff_factor: float, growth_interval: int):  # fmt: skip
    """PyTorch's scale update, in place on the device: back off after inf/NaN, grow after
    ``growth_interval`` clean steps (unless the grown scale overflows); returns ``self``."""
    _check_flag(self, "current_scale")
    _check_flag(found_inf, "found_inf")
    if growth_tracker.numel() != 1 or growth_tracker.dtype is not D.int32:
        raise RuntimeError("growth_tracker must be a 1-element int tensor.")
    from .. import where

    found = found_inf.reshape(self.shape) != 0
    tracker = where(found, 0, growth_tracker.reshape(self.shape) + 1).to(D.int32)
    grow = found.logical_not() & (tracker == growth_interval)
    grown = self * scale_growth_factor
    scale = where(found, self * scale_backoff_factor, where(grow & grown.isfinite(), grown, self))
    growth_tracker.copy_(where(grow, 0, tracker).to(D.int32).reshape(growth_tracker.shape))
    self.copy_(scale)
    return self


class GradScaler:
    """Scale the loss, unscale gradients before the step, skip steps with inf/NaN gradients.

    >>> scaler = numtorch.amp.GradScaler("cpu", enabled=False)
    >>> scaler.scale(numtorch.tensor(2.0))
    tensor(2.)
    """

    def __init__(self, device: str = "cuda", init_scale: float = 2.0**16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000, enabled: bool = True):  # fmt: skip
        self._device = device
        if enabled and device == "cuda" and not _cuda_available():
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.", stacklevel=2)
            enabled = False
        self._enabled = enabled
        if enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
        self._init_scale, self._scale, self._growth_tracker = init_scale, None, None
        self._init_growth_tracker = 0
        self._growth_factor, self._backoff_factor = growth_factor, backoff_factor
        self._growth_interval = growth_interval
        self._per_optimizer: dict = {}

    def _lazy_init(self, dev) -> None:
        from .. import full

        self._scale = full((), self._init_scale, dtype=D.float32, device=dev)
        self._growth_tracker = full((), self._init_growth_tracker, dtype=D.int32, device=dev)

    def is_enabled(self) -> bool:
        return self._enabled

    def get_scale(self) -> float:
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else float(self._scale.item())

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        self._growth_factor = new_factor

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        self._backoff_factor = new_factor

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        self._growth_interval = new_interval

    def _get_growth_tracker(self) -> int:
        return self._init_growth_tracker if self._growth_tracker is None else int(self._growth_tracker.item())

    def scale(self, outputs):
        """Multiply ``outputs`` (a tensor or nested sequence of tensors) by the scale factor."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(o) for o in outputs)
        if self._scale is None:
            self._lazy_init(outputs.device)
        return outputs * self._scale.to(device=outputs.device)

    def _state(self, optimizer) -> dict:
        return self._per_optimizer.setdefault(id(optimizer), {"stage": "ready", "found_inf": {}})

    def _unscale_grads_(self, optimizer, inv_scale, found_inf, allow_fp16: bool) -> dict:
        from .. import full

        groups: dict = {}
        for group in optimizer.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if not allow_fp16 and p.grad.dtype is D.float16:
                    raise ValueError("Attempting to unscale FP16 gradients.")
                groups.setdefault(p.grad.device, []).append(p.grad)
        per_device = {}
        for dev, grads in groups.items():
            f = per_device[dev] = full((), 0.0, dtype=D.float32, device=dev)
            _amp_foreach_non_finite_check_and_unscale_(grads, f, inv_scale.to(dev))
        return per_device

    def unscale_(self, optimizer) -> None:
        """Divide ``optimizer``'s gradients by the scale, in place, and record whether any is inf/NaN."""
        if not self._enabled:
            return
        st = self._state(optimizer)
        if st["stage"] == "unscaled":
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if st["stage"] == "stepped":
            raise RuntimeError("unscale_() is being called after step().")
        if self._scale is None:
            raise AssertionError("Attempted unscale_ but _scale is None.  This may indicate your script did not use scaler.scale(loss or outputs) earlier in the iteration.")
        inv_scale = self._scale.double().reciprocal().float()
        st["found_inf"] = self._unscale_grads_(optimizer, inv_scale, None, False)
        st["stage"] = "unscaled"

    def step(self, optimizer, *args, **kwargs):
        """``optimizer.step()`` unless the unscaled gradients hold inf/NaN."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        st = self._state(optimizer)
        if st["stage"] == "stepped":
            raise RuntimeError("step() has already been called since the last update().")
        if st["stage"] == "ready":
            self.unscale_(optimizer)
        if len(st["found_inf"]) == 0:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        ret = None
        if not sum(v.item() for v in st["found_inf"].values()):  # the one read back per step
            ret = optimizer.step(*args, **kwargs)
        st["stage"] = "stepped"
        return ret

    def update(self, new_scale=None) -> None:
        """Grow the scale after ``growth_interval`` clean steps; back off after a step with inf/NaN."""
        if not self._enabled:
            return
        if self._scale is None:
            raise AssertionError("Attempted update but _scale is None.  This may indicate your script did not use scaler.scale(loss or outputs) earlier in the iteration.")
        if new_scale is not None:
            if isinstance(new_scale, float):
                self._scale.fill_(new_scale)
            else:
                reason = "new_scale should be a float or a 1-element torch.cuda.FloatTensor or torch.FloatTensor with requires_grad=False."
                if new_scale.device != self._scale.device or new_scale.numel() != 1 or new_scale.requires_grad:
                    raise AssertionError(reason)
                self._scale.copy_(new_scale.reshape(()))
        else:
            found = [f.to(self._scale.device) for s in self._per_optimizer.values() for f in s["found_inf"].values()]
            if len(found) == 0:
                raise AssertionError("No inf checks were recorded prior to update.")
            total = found[0]
            for f in found[1:]:
                total = total + f
            _amp_update_scale_(self._scale, self._growth_tracker, total, self._growth_factor,
                               self._backoff_factor, self._growth_interval)  # fmt: skip
        self._per_optimizer = {}

    def state_dict(self) -> dict:
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                "_growth_tracker": self._get_growth_tracker()}  # fmt: skip

    def load_state_dict(self, state_dict: dict) -> None:
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved from a disabled instance of GradScaler.")
        self._init_scale = float(state_dict["scale"])
        if self._scale is not None:
            self._scale.fill_(self._init_scale)
        self._growth_factor = float(state_dict["growth_factor"])
        self._backoff_factor = float(state_dict["backoff_factor"])
        self._growth_interval = int(state_dict["growth_interval"])
        self._init_growth_tracker = int(state_dict["_growth_tracker"])
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(self._init_growth_tracker)
