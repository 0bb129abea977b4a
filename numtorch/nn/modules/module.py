"""``Module``: the base class of every layer, mirroring ``torch.nn.Module``.

Registration (parameters, buffers, submodules through ``__setattr__``), traversal, state dicts,
device/dtype conversion, hooks (forward, backward, state-dict) and the nested ``repr``.
"""

from __future__ import annotations

import inspect
import warnings
from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Any

from ... import _dtype as D
from ..._device import device as _device_cls
from ..._state import STATE
from ..._tensor import Tensor
from ..parameter import Buffer, Parameter
from . import _module_hooks as _mh
from . import _module_state as _ms
from ._module_hooks import (  # noqa: F401 - torch exposes these on nn.modules.module
    _global_backward_hooks,
    _global_backward_pre_hooks,
    _global_buffer_registration_hooks,
    _global_forward_hooks,
    _global_forward_hooks_always_called,
    _global_forward_hooks_with_kwargs,
    _global_forward_pre_hooks,
    _global_module_registration_hooks,
    _global_parameter_registration_hooks,
    _WrappedHook,
    register_module_backward_hook,
    register_module_buffer_registration_hook,
    register_module_forward_hook,
    register_module_forward_pre_hook,
    register_module_full_backward_hook,
    register_module_full_backward_pre_hook,
    register_module_module_registration_hook,
    register_module_parameter_registration_hook,
)  # fmt: skip
from ._module_state import _EXTRA_STATE_KEY_SUFFIX, _IncompatibleKeys  # noqa: F401

__all__ = [
    "register_module_forward_pre_hook", "register_module_forward_hook",
    "register_module_full_backward_pre_hook", "register_module_backward_hook",
    "register_module_full_backward_hook", "register_module_buffer_registration_hook",
    "register_module_module_registration_hook", "register_module_parameter_registration_hook",
    "Module",
]  # fmt: skip

_TENSOR_TYPE_NAMES = {
    "float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor", "bfloat16": "BFloat16Tensor",
    "int64": "LongTensor", "int32": "IntTensor", "int16": "ShortTensor", "int8": "CharTensor",
    "uint8": "ByteTensor", "bool": "BoolTensor", "complex64": "ComplexFloatTensor",
    "complex128": "ComplexDoubleTensor",
}  # fmt: skip

# bumped by every registration and attribute write on any module (numtorch.compile's module
# guard, Note [Guards]: an unchanged count means no module's attributes can have changed)
MUTATIONS = [0]


def _typename(obj) -> str:
    """``torch.typename``: 'torch.FloatTensor' for tensors, the qualified class name otherwise."""
    if isinstance(obj, Tensor):
        prefix = "torch.cuda." if obj._device.type == "cuda" else "torch."
        return prefix + _TENSOR_TYPE_NAMES.get(obj._dtype.name, "Tensor")
    if hasattr(obj, "__qualname__"):
        module, qualname = getattr(obj, "__module__", "") or "", obj.__qualname__
    elif hasattr(obj, "__name__"):
        module, qualname = getattr(obj, "__module__", "") or "", obj.__name__
    else:
        module, qualname = obj.__class__.__module__ or "", obj.__class__.__qualname__
    if module in ("", "builtins"):
        return qualname
    if module == "numtorch" or module.startswith("numtorch."):
        module = "torch" + module[len("numtorch") :]
    return f"{module}.{qualname}"


def _addindent(s_: str, num_spaces: int) -> str:
    s = s_.split("\n")
    if len(s) == 1:
        return s_
    first = s.pop(0)
    rest = "\n".join(num_spaces * " " + line if line.strip() else "" for line in s)
    return first + "\n" + rest


def _forward_unimplemented(self, *input: Any) -> None:
    raise NotImplementedError(
        f'Module [{type(self).__name__}] is missing the required "forward" function'
    )


def _parse_to(*args, **kwargs):
    """``torch._C._nn._parse_to``: (device, dtype, non_blocking, memory_format) from to()'s forms."""
    device = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    non_blocking = kwargs.pop("non_blocking", False)
    memory_format = kwargs.pop("memory_format", None)
    kwargs.pop("copy", None)
    if kwargs:
        raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
    rest = list(args)
    if rest and isinstance(rest[0], Tensor):
        t = rest.pop(0)
        device, dtype = t.device, t.dtype
    elif rest and isinstance(rest[0], D.dtype):
        dtype = rest.pop(0)
    elif rest and (rest[0] is None or isinstance(rest[0], (str, int, _device_cls))):
        d = rest.pop(0)
        device = None if d is None else _device_cls(d)
        if rest and (rest[0] is None or isinstance(rest[0], D.dtype)):
            dtype = rest.pop(0)
    if rest and isinstance(rest[0], bool):
        non_blocking = rest.pop(0)
    if rest:
        got = ", ".join(type(a).__name__ for a in args)
        raise TypeError(f"to() received an invalid combination of arguments - got ({got})")
    if device is not None and not isinstance(device, _device_cls):
        device = _device_cls(device)
    return device, dtype, non_blocking, memory_format


class Module:
    """Base class for all neural network modules.

    >>> class Net(numtorch.nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.w = numtorch.nn.Parameter(numtorch.ones(2))
    ...     def forward(self, x):
    ...         return x * self.w
    >>> [name for name, _ in Net().named_parameters()]
    ['w']
    """

    dump_patches: bool = False
    _version: int = 1
    training: bool
    call_super_init: bool = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if self.call_super_init is False and bool(kwargs):
            raise TypeError(
                f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                f"'{next(iter(kwargs))}'"
            )
        if self.call_super_init is False and bool(args):
            raise TypeError(
                f"{type(self).__name__}.__init__() takes 1 positional argument but "
                f"{len(args) + 1} were given"
            )
        # object.__setattr__ skips Module.__setattr__'s registration logic for our own slots
        setattr_ = super().__setattr__
        setattr_("training", True)
        setattr_("_parameters", {})
        setattr_("_buffers", {})
        setattr_("_non_persistent_buffers_set", set())
        for name in _HOOK_DICTS:
            setattr_(name, OrderedDict())
        setattr_("_is_full_backward_hook", None)
        setattr_("_modules", {})
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    forward: Callable[..., Any] = _forward_unimplemented

    # ---- registration ------------------------------------------------------------------
    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Add a buffer (state that is not a parameter, e.g. running statistics)."""
        MUTATIONS[0] += 1
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not (
            isinstance(tensor, Tensor) or hasattr(tensor, "__torch_function__")
        ):
            raise TypeError(
                f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                "(torch Tensor or None required)"
            )
        for hook in _global_buffer_registration_hooks.values():
            output = hook(self, name, tensor)
            if output is not None:
                tensor = output
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Add a parameter (or None, for optional parameters such as a disabled bias)."""
        MUTATIONS[0] += 1
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"parameter name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError('parameter name can\'t contain "."')
        if name == "":
            raise KeyError('parameter name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                "(torch.nn.Parameter or None required)"
            )
        if param.grad_fn:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be "
                f"created explicitly. To express '{name}' as a function of another Tensor, "
                "compute the value in the forward() method."
            )
        for hook in _global_parameter_registration_hooks.values():
            output = hook(self, name, param)
            if output is not None:
                param = output
        self._parameters[name] = param

    def add_module(self, name: str, module: Module | None) -> None:
        """Add a child module, reachable as the attribute ``name``."""
        MUTATIONS[0] += 1
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        for hook in _global_module_registration_hooks.values():
            output = hook(self, name, module)
            if output is not None:
                module = output
        self._modules[name] = module

    def register_module(self, name: str, module: Module | None) -> None:
        """Alias for :meth:`add_module`."""
        self.add_module(name, module)

    def get_submodule(self, target: str) -> Module:
        """The submodule at the dotted path ``target`` (``""`` is this module)."""
        if target == "":
            return self
        mod: Module = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def set_submodule(self, target: str, module: Module, strict: bool = False) -> None:
        """Replace (or, unless ``strict``, add) the submodule at the dotted path ``target``."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        atoms = target.split(".")
        if not isinstance(module, Module):
            raise ValueError("`" + "module" + f"` is not an nn.Module, found {type(module)}")
        parent = self if len(atoms) == 1 else self.get_submodule(".".join(atoms[:-1]))
        if strict and not hasattr(parent, atoms[-1]):
            raise AttributeError(parent._get_name() + " has no attribute `" + atoms[-1] + "`")
        if hasattr(parent, atoms[-1]) and not isinstance(getattr(parent, atoms[-1]), Module):
            raise AttributeError("`" + atoms[-1] + "` is not an nn.Module")
        setattr(parent, atoms[-1], module)

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at the dotted path ``target``."""
        module_path, _, param_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, param_name):
            raise AttributeError(mod._get_name() + " has no attribute `" + param_name + "`")
        param = getattr(mod, param_name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + param_name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at the dotted path ``target``."""
        module_path, _, buffer_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, buffer_name):
            raise AttributeError(mod._get_name() + " has no attribute `" + buffer_name + "`")
        buffer = getattr(mod, buffer_name)
        if buffer_name not in mod._buffers:
            raise AttributeError("`" + buffer_name + "` is not a buffer")
        return buffer

    def get_extra_state(self) -> Any:
        """Override (with set_extra_state) to store non-tensor state in the state_dict."""
        raise RuntimeError(_NEVER_CALLED.format("get_extra_state"))

    def set_extra_state(self, state: Any) -> None:
        """Override (with get_extra_state) to restore non-tensor state from the state_dict."""
        raise RuntimeError(_NEVER_CALLED.format("set_extra_state"))

    # ---- conversion ----------------------------------------------------------------------
    def _apply(self, fn, recurse=True):
        if recurse:
            for module in self.children():
                module._apply(fn)
        for param in self._parameters.values():
            if param is None:
                continue
            prev = STATE.grad_enabled
            STATE.grad_enabled = False
            try:
                param_applied = fn(param)
            finally:
                STATE.grad_enabled = prev
            param_grad = param.grad
            # Note: like PyTorch (overwrite_module_params_on_conversion False), the Parameter
            # object is kept and its data swapped, so optimizers holding it stay valid.
            param.data = param_applied
            if param_grad is not None:
                STATE.grad_enabled = False
                try:
                    grad_applied = fn(param_grad)
                finally:
                    STATE.grad_enabled = prev
                param.grad.data = grad_applied
        MUTATIONS[0] += 1
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def apply(self, fn: Callable[[Module], None]) -> Module:
        """Call ``fn`` on every submodule (children first) and then on self.

        >>> net = numtorch.nn.Sequential(numtorch.nn.Module())
        >>> _ = net.apply(lambda m: print(type(m).__name__))
        Module
        Sequential
        """
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def cuda(self, device=None) -> Module:
        """Move all parameters and buffers to the GPU."""
        return self._apply(lambda t: t.cuda(device))

    def cpu(self) -> Module:
        """Move all parameters and buffers to the CPU."""
        return self._apply(lambda t: t.cpu())

    def type(self, dst_type) -> Module:
        """Cast all parameters and buffers to ``dst_type``."""
        return self._apply(lambda t: t.type(dst_type))

    def float(self) -> Module:
        """Cast floating-point parameters and buffers to float32."""
        return self._apply(lambda t: t.to(D.float32) if t.is_floating_point() else t)

    def double(self) -> Module:
        """Cast floating-point parameters and buffers to float64."""
        return self._apply(lambda t: t.to(D.float64) if t.is_floating_point() else t)

    def half(self) -> Module:
        """Cast floating-point parameters and buffers to float16."""
        return self._apply(lambda t: t.to(D.float16) if t.is_floating_point() else t)

    def bfloat16(self) -> Module:
        """Cast floating-point parameters and buffers to bfloat16."""
        return self._apply(lambda t: t.to(D.bfloat16) if t.is_floating_point() else t)

    def to_empty(self, *, device, recurse: bool = True) -> Module:
        """Move parameters and buffers to ``device`` without copying their values."""
        from ... import empty_like

        return self._apply(lambda t: empty_like(t, device=device), recurse=recurse)

    def to(self, *args, **kwargs):
        """Move and/or cast parameters and buffers: ``to(device)``, ``to(dtype)``, ``to(tensor)``.

        >>> numtorch.nn.Linear(2, 2).to(numtorch.float64).weight.dtype
        torch.float64
        """
        device, dtype, non_blocking, _ = _parse_to(*args, **kwargs)
        if dtype is not None:
            if not (dtype.is_floating_point or dtype.is_complex):
                raise TypeError(
                    "nn.Module.to only accepts floating point or complex dtypes, but got desired "
                    f"dtype={dtype}"
                )
            if dtype.is_complex:
                warnings.warn(_COMPLEX_WARNING, stacklevel=2)

        def convert(t):
            dt = dtype if t.is_floating_point() or t.is_complex() else None
            if device is None or device == t.device:
                return t if dt is None or dt is t.dtype else t.to(dt)
            return t.to(device) if dt is None else t.to(device, dt)

        return self._apply(convert)

    # ---- hooks (implemented in _module_hooks.py) ---------------------------------------------
    register_full_backward_pre_hook = _mh.register_full_backward_pre_hook
    register_backward_hook = _mh.register_backward_hook
    register_full_backward_hook = _mh.register_full_backward_hook
    _get_backward_hooks = _mh._get_backward_hooks
    _get_backward_pre_hooks = _mh._get_backward_pre_hooks
    register_forward_pre_hook = _mh.register_forward_pre_hook
    register_forward_hook = _mh.register_forward_hook

    # ---- calling ---------------------------------------------------------------------------
    def _call_impl(self, *args, **kwargs):
        forward_call = self.forward
        if not (
            self._backward_hooks or self._backward_pre_hooks or self._forward_hooks
            or self._forward_pre_hooks or _global_backward_pre_hooks or _global_backward_hooks
            or _global_forward_hooks or _global_forward_pre_hooks
        ):  # fmt: skip
            return forward_call(*args, **kwargs)
        return _mh.call_with_hooks(self, forward_call, args, kwargs)

    __call__: Callable[..., Any] = _call_impl

    def compile(self, *args, **kwargs) -> None:
        """Compile this module's forward in place with ``numtorch.compile`` (same arguments).

        >>> m = numtorch.nn.Linear(2, 2)
        >>> m.compile()
        """
        from ..._compile.api import compile_method

        compiled = compile_method(self, args, kwargs)
        if compiled is not None:
            self.__dict__["_compiled_call_impl"] = compiled
            self.__dict__["forward"] = compiled  # _call_impl reads self.forward

    def __getstate__(self):
        state = self.__dict__.copy()
        if state.pop("_compiled_call_impl", None) is not None:
            state.pop("forward", None)
        return state

    def __setstate__(self, state):
        MUTATIONS[0] += 1
        self.__dict__.update(state)
        for name in _HOOK_DICTS:
            if name not in self.__dict__:
                self.__dict__[name] = OrderedDict()
        self.__dict__.setdefault("_non_persistent_buffers_set", set())
        self.__dict__.setdefault("_is_full_backward_hook", None)

    def __getattr__(self, name: str) -> Any:
        d = self.__dict__
        if "_parameters" in d:
            _parameters = d["_parameters"]
            if name in _parameters:
                return _parameters[name]
        if "_buffers" in d:
            _buffers = d["_buffers"]
            if name in _buffers:
                return _buffers[name]
        if "_modules" in d:
            modules = d["_modules"]
            if name in modules:
                return modules[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value: Any) -> None:
        MUTATIONS[0] += 1
        d = self.__dict__

        def remove_from(*dicts_or_sets) -> None:
            for c in dicts_or_sets:
                if name in c:
                    if isinstance(c, dict):
                        del c[name]
                    else:
                        c.discard(name)

        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(d, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as parameter '{name}' "
                    "(torch.nn.Parameter or None expected)"
                )
            self.register_parameter(name, value)
            return
        modules = d.get("_modules")
        if isinstance(value, Module) or (modules is not None and name in modules):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            if value is not None and not isinstance(value, Module):
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as child module '{name}' "
                    "(torch.nn.Module or None expected)"
                )
            if value is not None:
                remove_from(d, self._parameters, self._buffers, self._non_persistent_buffers_set)
            for hook in _global_module_registration_hooks.values():
                output = hook(self, name, value)
                if output is not None:
                    value = output
            modules[name] = value
            return
        buffers = d.get("_buffers")
        if isinstance(value, Buffer) or (buffers is not None and name in buffers):
            self._set_buffer_attr(name, value)
            return
        object.__setattr__(self, name, value)

    def _set_buffer_attr(self, name: str, value) -> None:
        if value is not None and not (
            isinstance(value, Tensor) or hasattr(value, "__torch_function__")
        ):
            raise TypeError(
                f"cannot assign '{_typename(value)}' as buffer '{name}' "
                "(torch.nn.Buffer, torch.Tensor or None expected)"
            )
        if isinstance(value, Buffer):
            persistent = value.persistent
        else:
            persistent = name not in self._non_persistent_buffers_set
        if getattr(self.register_buffer, "__func__", None) is Module.register_buffer:
            self.register_buffer(name, value, persistent)
        elif "persistent" in inspect.signature(self.register_buffer).parameters:
            self.register_buffer(name, value, persistent)
        else:
            if not persistent:
                raise RuntimeError(
                    "Registering a non-persistent buffer on a Module subclass that implements "
                    "register_buffer() without the persistent argument is not allowed."
                )
            self.register_buffer(name, value)

    def __delattr__(self, name) -> None:
        MUTATIONS[0] += 1
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            super().__delattr__(name)

    # ---- state dict (implemented in _module_state.py) -----------------------------------------
    _register_state_dict_hook = _ms._register_state_dict_hook
    register_state_dict_post_hook = _ms.register_state_dict_post_hook
    register_state_dict_pre_hook = _ms.register_state_dict_pre_hook
    _save_to_state_dict = _ms._save_to_state_dict
    state_dict = _ms.state_dict
    _register_load_state_dict_pre_hook = _ms._register_load_state_dict_pre_hook
    register_load_state_dict_pre_hook = _ms.register_load_state_dict_pre_hook
    register_load_state_dict_post_hook = _ms.register_load_state_dict_post_hook
    _load_from_state_dict = _ms._load_from_state_dict
    load_state_dict = _ms.load_state_dict

    # ---- traversal -------------------------------------------------------------------------
    def _named_members(
        self, get_members_fn, prefix="", recurse=True, remove_duplicate: bool = True
    ):
        memo = set()
        modules = (
            self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
            if recurse
            else [(prefix, self)]
        )
        for module_prefix, module in modules:
            for k, v in get_members_fn(module):
                if v is None or v in memo:
                    continue
                if remove_duplicate:
                    memo.add(v)
                yield module_prefix + ("." if module_prefix else "") + k, v

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """Iterate over the parameters (of submodules too, when ``recurse``)."""
        for _name, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ):
        """Iterate over ``(dotted_name, parameter)``; shared parameters appear once unless
        ``remove_duplicate=False``."""
        yield from self._named_members(
            lambda module: module._parameters.items(),
            prefix=prefix, recurse=recurse, remove_duplicate=remove_duplicate,
        )  # fmt: skip

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        """Iterate over the buffers (of submodules too, when ``recurse``)."""
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
        """Iterate over ``(dotted_name, buffer)``."""
        yield from self._named_members(
            lambda module: module._buffers.items(),
            prefix=prefix, recurse=recurse, remove_duplicate=remove_duplicate,
        )  # fmt: skip

    def children(self) -> Iterator[Module]:
        """Iterate over the immediate child modules."""
        for _name, module in self.named_children():
            yield module

    def named_children(self) -> Iterator[tuple[str, Module]]:
        """Iterate over ``(name, child)`` for the immediate children."""
        memo = set()
        for name, module in self._modules.items():
            if module is not None and module not in memo:
                memo.add(module)
                yield name, module

    def modules(self, remove_duplicate: bool = True) -> Iterator[Module]:
        """Iterate over all modules of the tree, self first."""
        for _, module in self.named_modules(remove_duplicate=remove_duplicate):
            yield module

    def named_modules(
        self, memo: set | None = None, prefix: str = "", remove_duplicate: bool = True
    ):
        """Iterate over ``(dotted_name, module)`` for the whole tree, self first (name ``""``)."""
        if memo is None:
            memo = set()
        if self not in memo:
            if remove_duplicate:
                memo.add(self)
            yield prefix, self
            for name, module in self._modules.items():
                if module is None:
                    continue
                submodule_prefix = prefix + ("." if prefix else "") + name
                yield from module.named_modules(memo, submodule_prefix, remove_duplicate)

    # ---- modes ------------------------------------------------------------------------------
    def train(self, mode: bool = True) -> Module:
        """Set training mode (affects e.g. Dropout and BatchNorm) on self and all submodules."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self) -> Module:
        """Set evaluation mode: ``train(False)``."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        """Set ``requires_grad`` on every parameter."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of all parameters (to None by default, else to zeros)."""
        for p in self.parameters():
            if p.grad is not None:
                if set_to_none:
                    p.grad = None
                else:
                    if p.grad.grad_fn is not None:
                        p.grad.detach_()
                    else:
                        p.grad.requires_grad_(False)
                    p.grad.zero_()

    def share_memory(self) -> Module:
        """A no-op: CPU storage is ordinary process memory here (no multiprocessing workers)."""
        return self

    # ---- printing -----------------------------------------------------------------------------
    def _get_name(self):
        return self.__class__.__name__

    def extra_repr(self) -> str:
        """Override to add a one-line (or multi-line) description inside the module's repr."""
        return ""

    def __repr__(self) -> str:
        extra_lines = []
        extra_repr = self.extra_repr()
        if extra_repr:
            extra_lines = extra_repr.split("\n")
        child_lines = []
        for key, module in self._modules.items():
            mod_str = _addindent(repr(module), 2)
            child_lines.append("(" + key + "): " + mod_str)
        lines = extra_lines + child_lines
        main_str = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main_str += extra_lines[0]
            else:
                main_str += "\n  " + "\n  ".join(lines) + "\n"
        return main_str + ")"

    def __dir__(self):
        module_attrs = dir(self.__class__)
        attrs = list(self.__dict__.keys())
        keys = (
            module_attrs
            + attrs
            + list(self._parameters)
            + list(self._modules)
            + list(self._buffers)
        )
        return sorted(key for key in keys if not key[0].isdigit())


_HOOK_DICTS = (
    "_backward_pre_hooks", "_backward_hooks", "_forward_hooks", "_forward_hooks_with_kwargs",
    "_forward_hooks_always_called", "_forward_pre_hooks", "_forward_pre_hooks_with_kwargs",
    "_state_dict_hooks", "_state_dict_pre_hooks", "_load_state_dict_pre_hooks",
    "_load_state_dict_post_hooks",
)  # fmt: skip
_NEVER_CALLED = (
    "Reached a code path in Module.{}() that should never be called. Please file an issue at "
    "https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml to report this bug."
)
_COMPLEX_WARNING = (
    "Complex modules are a new feature under active development whose design may change, and "
    "some modules might not work as expected when using complex tensors as parameters or "
    "buffers. Please file an issue at https://github.com/pytorch/pytorch/issues/new?template="
    "bug-report.yml if a complex module does not work as expected."
)
