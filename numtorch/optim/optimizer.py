"""``Optimizer``: parameter groups, per-parameter state, state dicts and step hooks, mirroring
``torch.optim.Optimizer``. Concrete optimizers update each parameter with one fused Numba
kernel (numtorch/kernels/cpu/optim.py) through the helpers at the bottom of this module.
"""

from __future__ import annotations

import functools
import warnings
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Iterable
from copy import deepcopy
from itertools import chain
from typing import Any

import numpy as np

from .. import _dtype as D
from .._state import STATE
from .._tensor import Tensor, _make
from ..kernels import PARALLEL_THRESHOLD, lazy
from ..nn.modules.module import _typename
from ..utils.hooks import RemovableHandle

__all__ = ["Optimizer", "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook"]

K = lazy("numtorch.kernels.cpu.optim")

_global_optimizer_pre_hooks: dict[int, Callable] = OrderedDict()
_global_optimizer_post_hooks: dict[int, Callable] = OrderedDict()


class _RequiredParameter:
    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


def _use_grad_for_differentiable(func):
    # step() runs with grad mode = defaults['differentiable'] (off for the usual no-grad update)
    @functools.wraps(func)
    def _use_grad(self, *args, **kwargs):
        prev = STATE.grad_enabled
        try:
            STATE.grad_enabled = bool(self.defaults["differentiable"])
            return func(self, *args, **kwargs)
        finally:
            STATE.grad_enabled = prev

    return _use_grad


def _get_value(x):
    return x.item() if isinstance(x, Tensor) else x


def _to_scalar(x):
    if isinstance(x, Tensor):
        return x.item()
    return x


def _get_scalar_dtype(is_fused=None):
    if is_fused:
        return D.float32
    return D.float64 if D.get_default_dtype() is D.float64 else D.float32


def register_optimizer_step_pre_hook(hook: Callable) -> RemovableHandle:
    """Register ``hook(optimizer, args, kwargs)`` to run before every optimizer's step."""
    handle = RemovableHandle(_global_optimizer_pre_hooks)
    _global_optimizer_pre_hooks[handle.id] = hook
    return handle


def register_optimizer_step_post_hook(hook: Callable) -> RemovableHandle:
    """Register ``hook(optimizer, args, kwargs)`` to run after every optimizer's step."""
    handle = RemovableHandle(_global_optimizer_post_hooks)
    _global_optimizer_post_hooks[handle.id] = hook
    return handle


def _hook_dict(self, name: str, hook, prepend: bool = False) -> RemovableHandle:
    hooks = getattr(self, name)
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


_HOOK_DICTS = (
    "_optimizer_step_pre_hooks", "_optimizer_step_post_hooks", "_optimizer_state_dict_pre_hooks",
    "_optimizer_state_dict_post_hooks", "_optimizer_load_state_dict_pre_hooks",
    "_optimizer_load_state_dict_post_hooks",
)  # fmt: skip


class Optimizer:
    """Base class for optimizers: holds ``param_groups`` (dicts of params + hyperparameters) and
    ``state`` (per-parameter tensors such as momentum buffers).

    >>> p = numtorch.nn.Parameter(numtorch.ones(2))
    >>> opt = numtorch.optim.SGD([p], lr=0.1)
    >>> p.grad = numtorch.ones(2); opt.step(); p.data
    tensor([0.9000, 0.9000])
    """

    def __init__(self, params, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        for name in _HOOK_DICTS:
            setattr(self, name, OrderedDict())
        self._patch_step_function()
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or dicts, "
                "but got " + _typename(params)
            )
        self.state: defaultdict[Tensor, Any] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    def __getstate__(self) -> dict[str, Any]:
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        for name in _HOOK_DICTS:
            if name not in self.__dict__:
                setattr(self, name, OrderedDict())
        self._patch_step_function()
        self.defaults.setdefault("differentiable", False)

    def __repr__(self) -> str:
        format_string = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            format_string += f"\nParameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    format_string += f"    {key}: {group[key]}\n"
        return format_string + ")"

    @staticmethod
    def profile_hook_step(func):
        """Wrap a ``step`` so that the global and per-optimizer step hooks run around it."""

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            self = args[0]
            for pre_hook in chain(
                _global_optimizer_pre_hooks.values(), self._optimizer_step_pre_hooks.values()
            ):
                result = pre_hook(self, args, kwargs)
                if result is not None:
                    if isinstance(result, tuple) and len(result) == 2:
                        args, kwargs = result
                    else:
                        raise RuntimeError(
                            f"{func} must return None or a tuple of (new_args, new_kwargs), but got "
                            f"{result}."
                        )
            out = func(*args, **kwargs)
            for post_hook in chain(
                self._optimizer_step_post_hooks.values(), _global_optimizer_post_hooks.values()
            ):
                post_hook(self, args, kwargs)
            return out

        return wrapper

    def _patch_step_function(self) -> None:
        # wraps the subclass's step once per class (as PyTorch does), so hooks need no super() call
        if not getattr(self.__class__.step, "hooked", None):
            self.__class__.step = self.profile_hook_step(self.__class__.step)
            self.__class__.step.hooked = True

    def register_step_pre_hook(self, hook) -> RemovableHandle:
        """Register ``hook(optimizer, args, kwargs)`` run before ``step``; it may return new
        ``(args, kwargs)``."""
        return _hook_dict(self, "_optimizer_step_pre_hooks", hook)

    def register_step_post_hook(self, hook) -> RemovableHandle:
        """Register ``hook(optimizer, args, kwargs)`` run after ``step``."""
        return _hook_dict(self, "_optimizer_step_post_hooks", hook)

    def register_state_dict_pre_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """Register ``hook(optimizer)`` run before ``state_dict``."""
        return _hook_dict(self, "_optimizer_state_dict_pre_hooks", hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """Register ``hook(optimizer, state_dict)`` run after ``state_dict``; may return a new dict."""
        return _hook_dict(self, "_optimizer_state_dict_post_hooks", hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """Register ``hook(optimizer, state_dict)`` run before ``load_state_dict``."""
        return _hook_dict(self, "_optimizer_load_state_dict_pre_hooks", hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """Register ``hook(optimizer)`` run after ``load_state_dict``."""
        return _hook_dict(self, "_optimizer_load_state_dict_post_hooks", hook, prepend)

    def state_dict(self) -> dict[str, Any]:
        """``{'state': {param_index: {...}}, 'param_groups': [{..., 'params': [indices]}]}``, with
        parameters replaced by their position across all groups (PyTorch's format).

        >>> p = numtorch.nn.Parameter(numtorch.ones(1))
        >>> numtorch.optim.SGD([p], lr=0.1).state_dict()["param_groups"][0]["params"]
        [0]
        """
        for pre_hook in self._optimizer_state_dict_pre_hooks.values():
            pre_hook(self)
        param_mappings: dict[int, int] = {}
        start_index = 0

        def pack_group(group: dict[str, Any]) -> dict[str, Any]:
            nonlocal start_index
            packed = {k: v for k, v in group.items() if k != "params"}
            param_mappings.update(
                {
                    id(p): i
                    for i, p in enumerate(group["params"], start_index)
                    if id(p) not in param_mappings
                }
            )
            packed["params"] = [param_mappings[id(p)] for p in group["params"]]
            start_index += len(packed["params"])
            return packed

        param_groups = [pack_group(g) for g in self.param_groups]
        packed_state = {
            (param_mappings[id(k)] if isinstance(k, Tensor) else k): v
            for k, v in self.state.items()
        }
        state_dict = {"state": packed_state, "param_groups": param_groups}
        for post_hook in self._optimizer_state_dict_post_hooks.values():
            hook_result = post_hook(self, state_dict)
            if hook_result is not None:
                state_dict = hook_result
        return state_dict

    @staticmethod
    def _process_value_according_to_param_policy(param, value, param_id, param_groups, key=None):
        fused = capturable = False
        for pg in param_groups:
            if param_id in pg["params"]:
                fused = pg.get("fused", False)
                capturable = pg.get("capturable", False)
                break
        if key == "step":
            if capturable or fused:
                return value.to(dtype=D.float32, device=param.device)
            return value
        if param.is_floating_point():
            return _cast_like(value, param.dtype, param.device)
        return _cast_like(value, None, param.device)

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Load state produced by ``state_dict``; state tensors are cast to their parameter's
        dtype and device."""
        state_dict = state_dict.copy()
        for pre_hook in self._optimizer_load_state_dict_pre_hooks.values():
            hook_result = pre_hook(self, state_dict)
            if hook_result is not None:
                state_dict = hook_result
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(
            len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups, strict=True)
        ):
            raise ValueError(
                "loaded state dict contains a parameter group that doesn't match the size of "
                "optimizer's group"
            )
        id_map = dict(
            zip(
                chain.from_iterable(g["params"] for g in saved_groups),
                chain.from_iterable(g["params"] for g in groups),
                strict=True,
            )
        )

        def _cast(param, value, param_id=None, param_groups=None, key=None):
            if isinstance(value, Tensor):
                return Optimizer._process_value_according_to_param_policy(
                    param, value, param_id, param_groups, key
                )
            if isinstance(value, dict):
                return {
                    k: _cast(param, v, param_id=param_id, param_groups=param_groups, key=k)
                    for k, v in value.items()
                }
            if isinstance(value, Iterable) and not isinstance(value, str):
                return type(value)(
                    _cast(param, v, param_id=param_id, param_groups=param_groups) for v in value
                )
            return value

        state: defaultdict[Tensor, dict[Any, Any]] = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = _cast(param, v, param_id=k, param_groups=state_dict["param_groups"])
            else:
                state[k] = v

        def update_group(group, new_group):
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
            return new_group

        param_groups = [update_group(g, ng) for g, ng in zip(groups, saved_groups, strict=True)]
        self.__setstate__({"state": state, "param_groups": param_groups})
        for post_hook in self._optimizer_load_state_dict_post_hooks.values():
            post_hook(self)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of all optimized parameters (to None by default, else to zeros)."""
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    if set_to_none:
                        p.grad = None
                    else:
                        if p.grad.grad_fn is not None:
                            p.grad.detach_()
                        else:
                            p.grad.requires_grad_(False)
                        p.grad.zero_()

    def step(self, closure=None):
        """Perform one optimization step (``closure`` re-evaluates the loss and returns it)."""
        raise NotImplementedError

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group of parameters with its own hyperparameters (defaults fill the rest).

        >>> a, b = numtorch.nn.Parameter(numtorch.ones(1)), numtorch.nn.Parameter(numtorch.ones(1))
        >>> opt = numtorch.optim.SGD([a], lr=0.1); opt.add_param_group({"params": [b], "lr": 0.5})
        >>> [g["lr"] for g in opt.param_groups]
        [0.1, 0.5]
        """
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the "
                "ordering of tensors in sets will change between runs. Please use a list instead."
            )
        else:
            param_group["params"] = list(params)
        _split_names(param_group)
        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError(
                    "optimizer can only optimize Tensors, but one of the params is "
                    + _typename(param)
                )
            if not self.defaults.get("differentiable", None) and not (
                param.is_leaf or param._retains_grad
            ):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(
                    f"parameter group didn't specify a value of required optimization parameter {name}"
                )
            param_group.setdefault(name, default)
        params = param_group["params"]
        if len(params) != len({id(p) for p in params}):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; in future, this "
                "will cause an error; see github.com/pytorch/pytorch/issues/40967 for more "
                "information",
                stacklevel=3,
            )
        param_set: set[int] = set()
        for group in self.param_groups:
            param_set.update(id(p) for p in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                current_group_txt = (
                    "with names" if "param_names" in param_group else "without names"
                )
                raise ValueError(
                    "all optimizer param groups should be with/without names. cannot add param "
                    f"group {current_group_txt} to the optimizer"
                )
        if not param_set.isdisjoint(id(p) for p in param_group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)


def _split_names(param_group: dict) -> None:
    # params may be given as named_parameters(): [(name, tensor), ...]
    names, tensors = [], []
    for param in param_group["params"]:
        if isinstance(param, tuple):
            names.append(param[0])
            tensors.append(param[1])
        else:
            tensors.append(param)
    param_group["params"] = tensors
    if names:
        if len(names) != len(tensors):
            raise ValueError(
                "all optimizer params should be with/without names. Some param names are missing"
            )
        param_group["param_names"] = names


def _cast_like(value: Tensor, dtype, device) -> Tensor:
    if dtype is not None and value.dtype is not dtype:
        value = value.to(dtype)
    if device is not None and value.device != device:
        value = value.to(device)
    return value


def _closure_loss(closure):
    if closure is None:
        return None
    prev = STATE.grad_enabled
    STATE.grad_enabled = True
    try:
        return closure()
    finally:
        STATE.grad_enabled = prev


def _check_differentiable(group: dict) -> None:
    if group.get("differentiable"):
        raise NotImplementedError(
            "differentiable=True is not supported: numtorch optimizers update parameters with "
            "fused kernels outside autograd"
        )


# ---- the bridge to the fused kernels -----------------------------------------------------------
# Note [Optimizer kernels follow PyTorch's single-tensor order] (kernels/cpu/optim.py).
_COMPUTE = {np.dtype(np.float32): np.float32, np.dtype(np.float64): np.float64,
            np.dtype(np.float16): np.float32, D.bfloat16.np: np.float32, np.dtype(np.complex64): np.float32,
            np.dtype(np.complex128): np.float64}  # fmt: skip


def compute_dtype(p: Tensor):
    """The NumPy scalar type the kernels compute in for parameter ``p`` (float16, bfloat16 -> float32,
    complex -> its real type, viewed as interleaved pairs as torch.view_as_real does)."""
    cd = _COMPUTE.get(p._data.dtype)
    if cd is None:
        raise RuntimeError(f"optimizers support floating point parameters, but got {p.dtype}")
    dev = p._device.type
    if dev not in ("cpu", "cuda"):
        raise NotImplementedError(f"fused optimizer kernels run on CPU and CUDA tensors, got {p.device}")
    _ON_CUDA[0] = dev == "cuda"  # pick() then hands out the CUDA twin (numtorch/cuda/_optim.py)
    return cd


_ON_CUDA = [False]  # the device of the parameter being updated (set by compute_dtype)


def flat_inout(t: Tensor, cd):
    """A contiguous 1-D ``cd`` array to update in place, and whether it must be written back."""
    if t._device.type == "cuda":
        from ..cuda import _optim

        return _optim.flat(t, cd)
    a = t._data
    if a.flags.c_contiguous:
        flat = a.reshape(-1)
        if flat.dtype.kind == "c":
            flat = flat.view(cd)
        if flat.dtype == cd:
            return flat, False
        return flat.astype(cd), True
    flat = np.ascontiguousarray(a).reshape(-1)
    if flat.dtype.kind == "c":
        flat = flat.view(cd)
    return flat.astype(cd, copy=False), True


def write_back(t: Tensor, flat) -> None:
    if t._device.type == "cuda":
        from ..cuda import _optim

        return _optim.write_back(t, flat)
    a = t._data
    if a.dtype.kind == "c":
        flat = flat.view(a.dtype)
    a[...] = flat.reshape(a.shape)


def flat_in(t: Tensor, cd):
    """A contiguous 1-D ``cd`` copy-or-view of ``t`` to read."""
    if t._device.type == "cuda":
        from ..cuda import _optim

        return _optim.flat(t, cd)[0]
    flat = np.ascontiguousarray(t._data).reshape(-1)
    if flat.dtype.kind == "c":
        flat = flat.view(cd)
    return flat if flat.dtype == cd else flat.astype(cd)


def pick(serial, parallel, numel: int):
    """The serial kernel, or its prange twin above PARALLEL_THRESHOLD elements (or, for a CUDA
    parameter, the CUDA kernel of the same name)."""
    if _ON_CUDA[0]:
        from ..cuda import _optim

        return _optim.twin(serial)
    return parallel if numel >= PARALLEL_THRESHOLD else serial


def finish(*updated) -> None:
    """After a kernel: write back converted copies and bump the version counters of the
    ``(tensor, (flat, needs_write_back))`` pairs it updated in place."""
    for t, (flat, wb) in updated:
        if t is None:
            continue
        if wb:
            write_back(t, flat)
        t._vc[0] += 1


def scalar_state(value: float = 0.0, dtype=None) -> Tensor:
    """A 0-d state tensor such as Adam's ``step`` (float32, or float64 under that default)."""
    dt = _get_scalar_dtype() if dtype is None else dtype
    return _make(np.array(value, dtype=dt.np), dt)


def bump_step(step_t: Tensor) -> float:
    """``step_t += 1`` on the 0-d state tensor; returns the new value as a Python float."""
    step_t._data[()] += 1
    step_t._vc[0] += 1
    return float(step_t._data)
