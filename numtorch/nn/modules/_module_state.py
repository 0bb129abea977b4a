"""Module state dicts: ``state_dict``, ``load_state_dict`` and their hooks. The methods are
bound onto ``Module`` in module.py.
"""

from __future__ import annotations

import warnings
from collections import OrderedDict, namedtuple
from collections.abc import Mapping
from typing import Any

from ..._state import STATE
from ..._tensor import Tensor
from ...utils.hooks import RemovableHandle
from ..parameter import Parameter, is_lazy
from ._module_hooks import _WrappedHook

_EXTRA_STATE_KEY_SUFFIX = "_extra_state"


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _overrides(module, name: str) -> bool:
    from .module import Module

    return getattr(type(module), name, None) is not getattr(Module, name)


def _register_state_dict_hook(self, hook):
    if getattr(hook, "_from_public_api", False):
        raise RuntimeError(
            "Cannot register the same function as the state dict post hook that was previously "
            "registered via register_state_dict_post_hook"
        )
    handle = RemovableHandle(self._state_dict_hooks)
    self._state_dict_hooks[handle.id] = hook
    return handle


def register_state_dict_post_hook(self, hook):
    """Register ``hook(module, state_dict, prefix, local_metadata)``, run after ``state_dict()``
    fills this module's entries; it edits the dict in place and must return None."""
    hook._from_public_api = True
    handle = RemovableHandle(self._state_dict_hooks)
    self._state_dict_hooks[handle.id] = hook
    return handle


def register_state_dict_pre_hook(self, hook):
    """Register ``hook(module, prefix, keep_vars)``, run before ``state_dict()`` visits this module."""
    handle = RemovableHandle(self._state_dict_pre_hooks)
    self._state_dict_pre_hooks[handle.id] = hook
    return handle


def _save_to_state_dict(self, destination, prefix, keep_vars) -> None:
    for name, param in self._parameters.items():
        if param is not None:
            destination[prefix + name] = param if keep_vars else param.detach()
    for name, buf in self._buffers.items():
        if buf is not None and name not in self._non_persistent_buffers_set:
            destination[prefix + name] = buf if keep_vars else buf.detach()
    if _overrides(self, "get_extra_state"):
        destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()


def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
    """An OrderedDict of parameters and persistent buffers keyed by dotted name (detached
    unless ``keep_vars``).

    >>> list(numtorch.nn.Sequential(numtorch.nn.Linear(2, 3)).state_dict())
    ['0.weight', '0.bias']
    """
    if args:
        warnings.warn(
            "Positional args are being deprecated, use kwargs instead. Refer to https://pytorch.org"
            "/docs/main/generated/torch.nn.Module.html#torch.nn.Module.state_dict for details.",
            FutureWarning,
            stacklevel=2,
        )
        destination = args[0] if destination is None else destination
        prefix = args[1] if len(args) > 1 and prefix == "" else prefix
        keep_vars = args[2] if len(args) > 2 and keep_vars is False else keep_vars
    if destination is None:
        destination = OrderedDict()
        destination._metadata = OrderedDict()
    local_metadata = dict(version=self._version)
    if hasattr(destination, "_metadata"):
        destination._metadata[prefix[:-1]] = local_metadata
    for hook in self._state_dict_pre_hooks.values():
        hook(self, prefix, keep_vars)
    self._save_to_state_dict(destination, prefix, keep_vars)
    for name, module in self._modules.items():
        if module is not None:
            module.state_dict(
                destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars
            )
    for hook in self._state_dict_hooks.values():
        hook_result = hook(self, destination, prefix, local_metadata)
        if not getattr(hook, "_from_public_api", False):
            if hook_result is not None:
                destination = hook_result
        elif hook_result is not None:
            raise RuntimeError("state_dict post-hook must return None")
    return destination


def _register_load_state_dict_pre_hook(self, hook, with_module=False):
    handle = RemovableHandle(self._load_state_dict_pre_hooks)
    self._load_state_dict_pre_hooks[handle.id] = _WrappedHook(hook, self if with_module else None)
    return handle


def register_load_state_dict_pre_hook(self, hook):
    """Register ``hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
    unexpected_keys, error_msgs)``, run before this module loads its entries."""
    return self._register_load_state_dict_pre_hook(hook, with_module=True)


def register_load_state_dict_post_hook(self, hook):
    """Register ``hook(module, incompatible_keys)``, run after ``load_state_dict``; it may edit
    the key lists in place and must return None."""
    handle = RemovableHandle(self._load_state_dict_post_hooks)
    self._load_state_dict_post_hooks[handle.id] = hook
    return handle


def _load_from_state_dict(
    self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
) -> None:
    for hook in self._load_state_dict_pre_hooks.values():
        hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
    persistent_buffers = {
        k: v for k, v in self._buffers.items() if k not in self._non_persistent_buffers_set
    }
    local_state = {
        k: v for k, v in (*self._parameters.items(), *persistent_buffers.items()) if v is not None
    }
    assign = local_metadata.get("assign_to_params_buffers", False)
    for name, param in local_state.items():
        key = prefix + name
        if key in state_dict:
            _load_one(self, name, key, param, state_dict[key], assign, error_msgs)
        elif strict:
            missing_keys.append(key)
    extra_state_key = prefix + _EXTRA_STATE_KEY_SUFFIX
    if _overrides(self, "set_extra_state"):
        if extra_state_key in state_dict:
            self.set_extra_state(state_dict[extra_state_key])
        elif strict:
            missing_keys.append(extra_state_key)
    elif strict and extra_state_key in state_dict:
        unexpected_keys.append(extra_state_key)
    if strict:
        for key in state_dict:
            if key.startswith(prefix) and key != extra_state_key:
                input_name = key[len(prefix) :].split(".", 1)
                if len(input_name) > 1:
                    if input_name[0] not in self._modules:
                        unexpected_keys.append(key)
                elif input_name[0] not in local_state:
                    unexpected_keys.append(key)


def _load_one(self, name, key, param, input_param, assign, error_msgs) -> None:
    if not isinstance(input_param, Tensor) and not hasattr(type(input_param), "__torch_function__"):
        error_msgs.append(
            f'While copying the parameter named "{key}", expected torch.Tensor or Tensor-like '
            f"object from checkpoint but received {type(input_param)}"
        )
        return
    lazy = is_lazy(param)
    # a 0-d parameter accepts a one-element 1-d value (older checkpoints)
    if not lazy and param.ndim == 0 and input_param.ndim == 1 and input_param.shape[0] == 1:
        input_param = input_param[0]
    if not lazy and input_param.shape != param.shape:
        error_msgs.append(
            f"size mismatch for {key}: copying a param with shape {input_param.shape} from "
            f"checkpoint, the shape in current model is {param.shape}."
        )
        return
    prev = STATE.grad_enabled
    STATE.grad_enabled = False
    try:
        if assign:
            if isinstance(param, Parameter):
                if not isinstance(input_param, Parameter):
                    input_param = Parameter(input_param, requires_grad=param.requires_grad)
                else:
                    input_param.requires_grad_(param.requires_grad)
            setattr(self, name, input_param)
        else:
            param.copy_(input_param)
    except Exception as ex:
        error_msgs.append(
            f'While copying the parameter named "{key}", whose dimensions in the model are '
            f"{param.size()} and whose dimensions in the checkpoint are {input_param.size()}, an "
            f"exception occurred : {ex.args}."
        )
    finally:
        STATE.grad_enabled = prev


def load_state_dict(self, state_dict: Mapping[str, Any], strict: bool = True, assign: bool = False):
    """Copy parameters and buffers from ``state_dict`` into this module (in place under no_grad,
    or by assignment with ``assign=True``); returns the missing and unexpected keys.

    >>> a, b = numtorch.nn.Linear(2, 2), numtorch.nn.Linear(2, 2)
    >>> b.load_state_dict(a.state_dict())
    <All keys matched successfully>
    """
    if not isinstance(state_dict, Mapping):
        raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
    missing_keys: list[str] = []
    unexpected_keys: list[str] = []
    error_msgs: list[str] = []
    metadata = getattr(state_dict, "_metadata", None)
    state_dict = OrderedDict(state_dict)
    if metadata is not None:
        state_dict._metadata = metadata

    def load(module, local_state_dict, prefix="") -> None:
        local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
        if assign:
            local_metadata["assign_to_params_buffers"] = assign
        module._load_from_state_dict(
            local_state_dict,
            prefix,
            local_metadata,
            True,
            missing_keys,
            unexpected_keys,
            error_msgs,
        )
        for name, child in module._modules.items():
            if child is not None:
                child_prefix = prefix + name + "."
                child_state_dict = {
                    k: v for k, v in local_state_dict.items() if k.startswith(child_prefix)
                }
                load(child, child_state_dict, child_prefix)
        incompatible_keys = _IncompatibleKeys(missing_keys, unexpected_keys)
        for hook in module._load_state_dict_post_hooks.values():
            if hook(module, incompatible_keys) is not None:
                raise AssertionError(
                    "Hooks registered with ``register_load_state_dict_post_hook`` are not expected "
                    "to return new values, if incompatible_keys need to be modified, it should be "
                    "done inplace."
                )

    load(self, state_dict)
    if strict:
        if unexpected_keys:
            error_msgs.insert(
                0,
                "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected_keys)
                ),
            )
        if missing_keys:
            error_msgs.insert(
                0,
                "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing_keys)
                ),
            )
    if error_msgs:
        raise RuntimeError(
            "Error(s) in loading state_dict for {}:\n\t{}".format(
                self.__class__.__name__, "\n\t".join(error_msgs)
            )
        )
    return _IncompatibleKeys(missing_keys, unexpected_keys)
