"""Parameter, Buffer and the uninitialized (lazy) variants, mirroring ``torch.nn.parameter``."""

from __future__ import annotations

from .. import _dtype as D
from .._tensor import Tensor, _make
from .._C import _disabled_torch_function_impl

__all__ = [
    "Parameter", "UninitializedParameter", "is_lazy", "Buffer", "UninitializedBuffer",
    "UninitializedTensorMixin",
]  # fmt: skip


def _empty(dtype=None) -> Tensor:
    import numpy as np

    dt = D.get_default_dtype() if dtype is None else D.to_dtype(dtype)
    return _make(np.empty((0,), dt.np), dt)


class _ParameterMeta(type):
    # Tensors made Parameters through detach() (subclasses) carry _is_param instead of the type.
    def __instancecheck__(self, instance) -> bool:
        if (
            self is Parameter
            and isinstance(instance, Tensor)
            and getattr(instance, "_is_param", False)
        ):
            return True
        return super().__instancecheck__(instance)


class Parameter(Tensor, metaclass=_ParameterMeta):
    """A Tensor that a Module registers as a parameter when assigned as an attribute.

    >>> p = numtorch.nn.Parameter(numtorch.ones(2))
    >>> p.requires_grad, type(p * 2).__name__
    (True, 'Tensor')
    """

    _is_param = True

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _empty()
        if type(data) is Tensor or type(data) is Parameter:
            return Tensor._make_subclass(cls, data, requires_grad)
        t = data.detach().requires_grad_(requires_grad)
        if type(t) is not type(data):
            raise RuntimeError(
                f"Creating a Parameter from an instance of type {type(data).__name__} requires that "
                f"detach() returns an instance of the same type, but return type {type(t).__name__} "
                "was found instead. To use the type as a Parameter, please correct the detach() "
                "semantics defined by its __torch_dispatch__() implementation."
            )
        t._is_param = True
        return t

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(_clone_data(self), self.requires_grad)
        memo[id(self)] = result
        return result

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    __torch_function__ = _disabled_torch_function_impl


def _clone_data(t: Tensor) -> Tensor:
    if t._device.type == "cpu":
        return _make(t._data.copy(), t._dtype, Tensor, t._device)
    return t.detach().clone()


class UninitializedTensorMixin:
    """Shared behaviour of parameters and buffers whose shape is not known yet (lazy modules)."""

    _allowed_methods = (
        "__hash__", "size", "copy_", "is_complex", "is_floating_point", "half", "float", "double",
        "char", "short", "int", "long", "cuda", "cpu", "to", "get_device",
    )  # fmt: skip

    def materialize(self, shape, device=None, dtype=None) -> None:
        """Give the tensor a shape (and optionally device/dtype), turning it into ``cls_to_become``."""
        import numpy as np

        dt = self._dtype if dtype is None else D.to_dtype(dtype)
        if isinstance(shape, int):
            shape = (shape,)
        self._data = np.empty(tuple(shape), dt.np)
        self._dtype = dt
        if device is not None and str(device) != str(self._device):
            self.data = self.data.to(device)
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error usually "
            "happens in `load_state_dict` when trying to load an uninitialized parameter into an "
            "initialized one. Call `forward` to initialize the parameters before accessing their "
            "attributes."
        )

    def share_memory_(self):
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. Call `forward` to "
            "initialize the parameters before calling `module.share_memory()`."
        )

    def __repr__(self) -> str:
        return f"<{self.__class__.__name__}>"

    def __reduce_ex__(self, proto):
        return (self.__class__, (self.requires_grad,))

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        # a "method-wrapper" is a property getter (grad_fn, requires_grad ...): allowed, as in PyTorch
        if getattr(func, "__name__", None) in cls._allowed_methods or type(func).__name__ == "method-wrapper":
            return Tensor.__torch_function__.__func__(cls, func, types, args, kwargs or {})
        raise ValueError(
            f"Attempted to use an uninitialized parameter in {func}. This error happens when you "
            "are using a `LazyModule` or explicitly manipulating `torch.nn.parameter."
            f"{cls.__name__}` objects. When using LazyModules Call `forward` with a dummy batch to "
            "initialize the parameters before calling torch functions"
        )


def is_lazy(param) -> bool:
    """Whether ``param`` is an uninitialized parameter or buffer."""
    return isinstance(param, UninitializedTensorMixin)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A Parameter without data yet; ``materialize(shape)`` turns it into a Parameter.

    >>> p = numtorch.nn.UninitializedParameter(); p.materialize((2, 3)); type(p).__name__
    'Parameter'
    """

    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        return Tensor._make_subclass(cls, _empty(dtype), requires_grad)

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.requires_grad, self._device, self._dtype)
        memo[id(self)] = result
        return result


class _BufferMeta(type):
    # Buffer(...) returns a plain Tensor tagged _is_buffer; isinstance recognises the tag.
    def __instancecheck__(self, instance) -> bool:
        if (
            self is Buffer
            and isinstance(instance, Tensor)
            and getattr(instance, "_is_buffer", False)
        ):
            return True
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """Marks a tensor to be registered as a buffer when assigned to a Module attribute.

    >>> m = numtorch.nn.Module(); m.stats = numtorch.nn.Buffer(numtorch.zeros(2), persistent=False)
    >>> list(m.state_dict()), [n for n, _ in m.named_buffers()]
    ([], ['stats'])
    """

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = _empty()
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t

    __torch_function__ = _disabled_torch_function_impl


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer without data yet; ``materialize(shape)`` turns it into a Tensor."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        ret = Tensor._make_subclass(cls, _empty(dtype), requires_grad)
        ret.persistent = persistent
        ret._is_buffer = True
        return ret
