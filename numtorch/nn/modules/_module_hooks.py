"""Module hooks: the global registries, the per-module registration methods and the hooked
call path of ``Module.__call__``. The methods are bound onto ``Module`` in module.py.
"""

from __future__ import annotations

import warnings
import weakref
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from ..._tensor import Tensor
from ...utils.hooks import BackwardHook, RemovableHandle

# Hooks common to all modules: registration hooks run before a buffer/module/parameter is
# registered; forward/backward hooks run around every module call (debugging, profiling).
_global_buffer_registration_hooks: dict[int, Callable] = OrderedDict()
_global_module_registration_hooks: dict[int, Callable] = OrderedDict()
_global_parameter_registration_hooks: dict[int, Callable] = OrderedDict()
_global_backward_pre_hooks: dict[int, Callable] = OrderedDict()
_global_backward_hooks: dict[int, Callable] = OrderedDict()
_global_is_full_backward_hook: bool | None = None
_global_forward_pre_hooks: dict[int, Callable] = OrderedDict()
_global_forward_hooks: dict[int, Callable] = OrderedDict()
_global_forward_hooks_always_called: dict[int, bool] = OrderedDict()
_global_forward_hooks_with_kwargs: dict[int, bool] = OrderedDict()

_MIXED_BACKWARD_HOOKS = (
    "Cannot use both regular backward hooks and full backward hooks on a single Module. Please "
    "use only one of them."
)


class _WrappedHook:
    def __init__(self, hook: Callable, module=None) -> None:
        self.hook = hook
        self.with_module = module is not None
        if module is not None:
            self.module = weakref.ref(module)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.with_module:
            module = self.module()
            if module is None:
                raise RuntimeError("You are trying to call the hook of a dead Module!")
            return self.hook(module, *args, **kwargs)
        return self.hook(*args, **kwargs)

    def __getstate__(self) -> dict:
        result = {"hook": self.hook, "with_module": self.with_module}
        if self.with_module:
            result["module"] = self.module()
        return result

    def __setstate__(self, state: dict):
        self.hook = state["hook"]
        self.with_module = state["with_module"]
        if self.with_module:
            if state["module"] is None:
                raise RuntimeError("You are trying to revive the hook of a dead Module!")
            self.module = weakref.ref(state["module"])


# ---- global registration ----------------------------------------------------------------------
def _register(hooks: dict, hook: Callable, prepend: bool = False, **kw) -> RemovableHandle:
    handle = RemovableHandle(hooks, **kw)
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


def register_module_buffer_registration_hook(hook: Callable[..., None]) -> RemovableHandle:
    """Register ``hook(module, name, buffer)`` to run before any buffer is registered."""
    return _register(_global_buffer_registration_hooks, hook)


def register_module_module_registration_hook(hook: Callable[..., None]) -> RemovableHandle:
    """Register ``hook(module, name, submodule)`` to run before any submodule is registered."""
    return _register(_global_module_registration_hooks, hook)


def register_module_parameter_registration_hook(hook: Callable[..., None]) -> RemovableHandle:
    """Register ``hook(module, name, param)`` to run before any parameter is registered."""
    return _register(_global_parameter_registration_hooks, hook)


def register_module_forward_pre_hook(hook: Callable[..., None]) -> RemovableHandle:
    """Register ``hook(module, args)`` to run before every module's forward."""
    return _register(_global_forward_pre_hooks, hook)


def register_module_forward_hook(hook, *, with_kwargs: bool = False, always_call: bool = False):
    """Register ``hook(module, args, output)`` to run after every module's forward."""
    handle = _register(_global_forward_hooks, hook, extra_dict=_global_forward_hooks_always_called)
    if with_kwargs:
        _global_forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle


def _set_global_full(full: bool) -> None:
    global _global_is_full_backward_hook
    if _global_is_full_backward_hook is (not full):
        raise RuntimeError(
            "Cannot use both regular backward hooks and full backward hooks as a global Module "
            "hook. Please use only one of them."
        )
    _global_is_full_backward_hook = full


def register_module_backward_hook(hook) -> RemovableHandle:
    """Deprecated global (non-full) backward hook; prefer ``register_module_full_backward_hook``."""
    _set_global_full(False)
    return _register(_global_backward_hooks, hook)


def register_module_full_backward_pre_hook(hook) -> RemovableHandle:
    """Register ``hook(module, grad_output)`` to run before every module's backward."""
    return _register(_global_backward_pre_hooks, hook)


def register_module_full_backward_hook(hook) -> RemovableHandle:
    """Register ``hook(module, grad_input, grad_output)`` to run after every module's backward."""
    _set_global_full(True)
    return _register(_global_backward_hooks, hook)


# ---- Module methods (bound in module.py) ----------------------------------------------------
def register_full_backward_pre_hook(self, hook, prepend: bool = False) -> RemovableHandle:
    """Register ``hook(module, grad_output)``, run before the module's input gradients are
    computed; a non-None result replaces grad_output."""
    return _register(self._backward_pre_hooks, hook, prepend)


def register_backward_hook(self, hook) -> RemovableHandle:
    """Deprecated (non-full) backward hook on the module's last autograd node."""
    if self._is_full_backward_hook is True:
        raise RuntimeError(_MIXED_BACKWARD_HOOKS)
    self._is_full_backward_hook = False
    return _register(self._backward_hooks, hook)


def register_full_backward_hook(self, hook, prepend: bool = False) -> RemovableHandle:
    """Register ``hook(module, grad_input, grad_output)``, run once the gradients with respect to
    the module's inputs are computed; a non-None result replaces grad_input."""
    if self._is_full_backward_hook is False:
        raise RuntimeError(_MIXED_BACKWARD_HOOKS)
    self._is_full_backward_hook = True
    return _register(self._backward_hooks, hook, prepend)


def _get_backward_hooks(self):
    full, non_full = [], []
    if _global_is_full_backward_hook is True:
        full += _global_backward_hooks.values()
    if self._is_full_backward_hook is True:
        full += self._backward_hooks.values()
    if _global_is_full_backward_hook is False:
        non_full += _global_backward_hooks.values()
    if self._is_full_backward_hook is False:
        non_full += self._backward_hooks.values()
    return full, non_full


def _get_backward_pre_hooks(self):
    return [*_global_backward_pre_hooks.values(), *self._backward_pre_hooks.values()]


def register_forward_pre_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False):
    """Register ``hook(module, args)`` (``hook(module, args, kwargs)`` with ``with_kwargs``), run
    before forward; a non-None result replaces the arguments."""
    handle = _register(
        self._forward_pre_hooks, hook, prepend, extra_dict=self._forward_pre_hooks_with_kwargs
    )
    if with_kwargs:
        self._forward_pre_hooks_with_kwargs[handle.id] = True
    return handle


def register_forward_hook(
    self, hook, *, prepend: bool = False, with_kwargs: bool = False, always_call: bool = False
) -> RemovableHandle:
    """Register ``hook(module, args, output)`` (or ``hook(module, args, kwargs, output)``), run
    after forward; a non-None result replaces the output. ``always_call`` runs it even when
    forward raises."""
    extra = [self._forward_hooks_with_kwargs, self._forward_hooks_always_called]
    handle = _register(self._forward_hooks, hook, prepend, extra_dict=extra)
    if with_kwargs:
        self._forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        self._forward_hooks_always_called[handle.id] = True
    return handle


# ---- the hooked call path ------------------------------------------------------------------
def _run_forward_pre_hooks(self, args, kwargs):
    for hook_id, hook in (*_global_forward_pre_hooks.items(), *self._forward_pre_hooks.items()):
        if hook_id in self._forward_pre_hooks_with_kwargs:
            result = hook(self, args, kwargs)
            if result is not None:
                if isinstance(result, tuple) and len(result) == 2:
                    args, kwargs = result
                else:
                    raise RuntimeError(
                        "forward pre-hook must return None or a tuple of (new_args, new_kwargs), "
                        f"but got {result}."
                    )
        else:
            result = hook(self, args)
            if result is not None:
                args = result if isinstance(result, tuple) else (result,)
    return args, kwargs


def _run_forward_hooks(self, args, kwargs, result, called):
    for hook_id, hook in (*_global_forward_hooks.items(), *self._forward_hooks.items()):
        if (
            hook_id in self._forward_hooks_always_called
            or hook_id in _global_forward_hooks_always_called
        ):
            called.add(hook_id)
        if (
            hook_id in self._forward_hooks_with_kwargs
            or hook_id in _global_forward_hooks_with_kwargs
        ):
            hook_result = hook(self, args, kwargs, result)
        else:
            hook_result = hook(self, args, result)
        if hook_result is not None:
            result = hook_result
    return result


def call_with_hooks(self, forward_call, args, kwargs):
    """``Module._call_impl`` when any hook is registered (the no-hook path stays in module.py)."""
    result = None
    called: set = set()
    try:
        full_hooks, non_full_hooks = [], []
        pre_hooks = []
        if self._backward_pre_hooks or _global_backward_pre_hooks:
            pre_hooks = _get_backward_pre_hooks(self)
        if self._backward_hooks or _global_backward_hooks:
            full_hooks, non_full_hooks = _get_backward_hooks(self)
        if _global_forward_pre_hooks or self._forward_pre_hooks:
            args, kwargs = _run_forward_pre_hooks(self, args, kwargs)
        bw_hook = None
        if full_hooks or pre_hooks:
            bw_hook = BackwardHook(self, full_hooks, pre_hooks)
            args = bw_hook.setup_input_hook(args)
        result = forward_call(*args, **kwargs)
        if _global_forward_hooks or self._forward_hooks:
            result = _run_forward_hooks(self, args, kwargs, result, called)
        if bw_hook:
            if not isinstance(result, (Tensor, tuple)):
                warnings.warn(
                    "For backward hooks to be called, module output should be a Tensor or a tuple "
                    f"of Tensors but received {type(result)}",
                    stacklevel=2,
                )
            result = bw_hook.setup_output_hook(result)
        if non_full_hooks:
            var = result
            while not isinstance(var, Tensor):
                var = (
                    next(v for v in var.values() if isinstance(v, Tensor))
                    if isinstance(var, dict)
                    else var[0]
                )
            grad_fn = var.grad_fn
            if grad_fn is not None:
                for hook in non_full_hooks:
                    grad_fn.register_hook(_WrappedHook(hook, self))
        return result
    except Exception:
        _run_always_called(self, args, kwargs, result, called)
        raise


def _run_always_called(self, args, kwargs, result, called) -> None:
    for hook_id, hook in _global_forward_hooks.items():
        if hook_id in _global_forward_hooks_always_called and hook_id not in called:
            try:
                hook_result = hook(self, args, result)
                if hook_result is not None:
                    result = hook_result
            except Exception as e:
                warnings.warn(
                    "global module forward hook with ``always_call=True`` raised an exception that "
                    f"was silenced as another error was raised in forward: {e}",
                    stacklevel=2,
                )
    for hook_id, hook in self._forward_hooks.items():
        if hook_id in self._forward_hooks_always_called and hook_id not in called:
            try:
                if hook_id in self._forward_hooks_with_kwargs:
                    hook_result = hook(self, args, kwargs, result)
                else:
                    hook_result = hook(self, args, result)
                if hook_result is not None:
                    result = hook_result
            except Exception as e:
                warnings.warn(
                    "module forward hook with ``always_call=True`` raised an exception that was "
                    f"silenced as another error was raised in forward: {e}",
                    stacklevel=2,
                )
