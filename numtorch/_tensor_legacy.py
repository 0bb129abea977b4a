"""Tensor methods and properties PyTorch keeps from its older API or its C++ core: storages
(``untyped_storage``, ``storage``, ``storage_type``, ``set_``), the legacy constructor ``new``,
``resize``/``resize_as`` (deprecated out-of-place forms), ``retains_grad``, ``output_nr``,
``dim_order``, ``is_set_to``, ``narrow_copy``, ``map2_``, ``module_load`` and the removed
Variable API (``volatile``, ``reinforce``). Installed before ``_tensor_tf.install`` routes them
through ``__torch_function__``."""

from __future__ import annotations

import builtins
import warnings

import numpy as np

from . import storage as S
from ._size import Size

_REINFORCE = """reinforce() was removed.
Use torch.distributions instead.
See https://pytorch.org/docs/main/distributions.html

Instead of:

probs = policy_network(state)
action = probs.multinomial()
next_state, reward = env.step(action)
action.reinforce(reward)
action.backward()

Use:

probs = policy_network(state)
# NOTE: categorical is equivalent to what used to be called multinomial
m = torch.distributions.Categorical(probs)
action = m.sample()
next_state, reward = env.step(action)
loss = -m.log_prob(action) * reward
loss.backward()
"""


def untyped_storage(self):
    """The bytes of this tensor's memory, shared with it (Note [Storage is the root NumPy buffer]).

    >>> numtorch.ones(3).untyped_storage().nbytes()
    12
    """
    return S.untyped_storage_of(self)


def storage(self):
    """Deprecated: the memory as a TypedStorage of this tensor's dtype."""
    S._warn_typed()
    return S.typed_storage_of(self)


def storage_type(self):
    """The legacy storage class of this dtype (``numtorch.FloatStorage`` for float32).

    >>> numtorch.ones(1).storage_type().__name__
    'FloatStorage'
    """
    return S._LEGACY_BY_DTYPE[self._dtype]


def set_(self, source=None, storage_offset=0, size=None, stride=None):
    """Make this tensor a view of ``source`` (a tensor or storage), in place.

    >>> t = numtorch.empty(0); t.set_(numtorch.arange(3.0)).tolist()
    [0.0, 1.0, 2.0]
    """
    from ._tensor import Tensor, _contiguous_strides

    if source is None:
        self._data = np.empty(0, self._dtype.np)
    elif isinstance(source, Tensor) and size is None:
        if source._dtype is not self._dtype:
            raise RuntimeError(
                f"Could not set tensor of type {source._dtype.name} to a tensor of type {self._dtype.name}"
            )
        self._data = source._data
    else:
        buf = source.untyped_storage()._buf if isinstance(source, Tensor) else source.untyped()._buf
        flat = buf[: buf.size - buf.size % self._dtype.itemsize].view(self._dtype.np)
        size = (flat.size - storage_offset,) if size is None else tuple(size)
        stride = _contiguous_strides(size) if stride is None else tuple(stride)
        need = storage_offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1 if all(size) else 0
        if need > flat.size:
            raise RuntimeError(
                f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {storage_offset}, and "
                f"itemsize {self._dtype.itemsize} requiring a storage size of {need * self._dtype.itemsize} are "
                f"out of bounds for storage of size {flat.size * self._dtype.itemsize}"
            )
        it = self._dtype.itemsize
        self._data = np.lib.stride_tricks.as_strided(flat[storage_offset:], size, [s * it for s in stride])
    self._vc[0] += 1
    return self


def is_set_to(self, tensor) -> bool:
    """True when both tensors view the same memory with the same offset, sizes and strides.

    >>> t = numtorch.ones(2); t.is_set_to(t), t.is_set_to(t.clone())
    (True, False)
    """
    a, b = self._data, tensor._data
    return (self._dtype is tensor._dtype and a.shape == b.shape and a.strides == b.strides
            and a.__array_interface__["data"][0] == b.__array_interface__["data"][0])  # fmt: skip


def new(self, *args, **kwargs):
    """A tensor of this tensor's dtype and device from sizes, data or (aliased) a tensor.

    >>> numtorch.ones(1, dtype=numtorch.int64).new([1, 2])
    tensor([1, 2])
    """
    import numtorch

    if kwargs:
        size = kwargs.pop("size", None)
        if kwargs or size is None:
            raise TypeError(f"new() received an invalid combination of arguments - got {tuple(kwargs)}")
        args = tuple(size)
    if not args:
        return numtorch.empty(0, dtype=self._dtype)
    if len(args) == 1 and isinstance(args[0], numtorch.Tensor):
        if args[0]._dtype is not self._dtype:
            raise TypeError(f"expected {self._dtype} (got {args[0]._dtype})")
        return args[0].view(args[0].shape)
    if len(args) == 1 and isinstance(args[0], Size):
        return numtorch.empty(args[0], dtype=self._dtype)
    if all(isinstance(a, builtins.int) and not isinstance(a, builtins.bool) for a in args):
        return numtorch.empty(args, dtype=self._dtype)
    if len(args) == 1:
        return numtorch.tensor(args[0], dtype=self._dtype)
    raise TypeError(f"new() received an invalid combination of arguments - got {tuple(type(a).__name__ for a in args)}")


def resize(self, *sizes):
    """Deprecated: a resized copy (``resize_`` on a clone; the gradient flows where sizes match).

    >>> numtorch.arange(4.0).resize(2, 2).shape
    torch.Size([2, 2])
    """
    warnings.warn("non-inplace resize is deprecated", UserWarning, stacklevel=3)
    sizes = tuple(sizes[0]) if len(sizes) == 1 and isinstance(sizes[0], (tuple, list, Size)) else sizes
    n = int(np.prod(sizes, dtype=np.int64))
    if n == self.numel():
        return self.reshape(sizes)
    return self.detach().clone().resize_(sizes)


def resize_as(self, tensor):
    """Deprecated: a copy resized to ``tensor``'s shape."""
    warnings.warn("non-inplace resize_as is deprecated", UserWarning, stacklevel=3)
    if tensor.numel() == self.numel():
        return self.reshape(tensor.shape)
    return self.detach().clone().resize_(tensor.shape)


def dim_order(self, *, ambiguity_check=False):
    """The dims from outermost to innermost in memory (by decreasing stride).

    >>> numtorch.ones(2, 3).mT.dim_order()
    (1, 0)
    """
    st = self.stride()
    if ambiguity_check and (len(set(st)) != len(st) or 1 in self.shape):
        raise RuntimeError("The tensor does not have unique dim order, or cannot map to exact one of the given memory formats.")
    return tuple(sorted(range(self.ndim), key=lambda d: -st[d]))


def narrow_copy(self, dim, start, length):
    """A contiguous copy of ``narrow(dim, start, length)``.

    >>> numtorch.arange(4).narrow_copy(0, 1, 2)
    tensor([1, 2])
    """
    return self.narrow(dim, start, length).clone()


def map2_(self, x, y, callable):  # noqa: A002 - torch's parameter name
    """``self[i] = callable(self[i], x[i], y[i])`` element by element, in place (CPU; x and y
    broadcast to self).

    >>> numtorch.ones(2).map2_(numtorch.ones(2), numtorch.ones(2), lambda a, b, c: a + b + c)
    tensor([3., 3.])
    """
    a = self._data
    xs = np.broadcast_to(x._data, a.shape).ravel().tolist()
    ys = np.broadcast_to(y._data, a.shape).ravel().tolist()
    out = np.array([callable(*v) for v in zip(a.ravel().tolist(), xs, ys)], dtype=a.dtype).reshape(a.shape)
    return self.copy_(self.new(out.tolist()) if out.ndim else self.new([out.item()]).reshape(()))


def module_load(self, other, assign=False):
    """What ``Module.load_state_dict`` stores for this parameter: ``other`` (assign) or this
    tensor after copying ``other`` into it, detached."""
    return other.detach() if assign else self.copy_(other).detach()


def record_stream(self, stream):
    """Streams order work on an accelerator; a CPU tensor has none (PyTorch raises the same)."""
    raise RuntimeError("unknown parameter type")


def reinforce(self, reward):
    """Removed with the Variable API: use numtorch.distributions."""
    raise RuntimeError(_REINFORCE)


def _volatile(self) -> bool:
    warnings.warn("volatile was removed (Variable.volatile is always False)", UserWarning, stacklevel=3)
    return False


def _retains_grad(self) -> bool:
    return bool(self.__dict__.get("_retains_grad", False))


def _output_nr(self) -> int:
    return self._out_nr


def install(tensor_cls) -> None:
    for fn in (untyped_storage, storage, storage_type, set_, is_set_to, new, resize, resize_as,
               dim_order, narrow_copy, map2_, module_load, record_stream, reinforce):  # fmt: skip
        setattr(tensor_cls, fn.__name__, fn)
    tensor_cls.const_data_ptr = tensor_cls.data_ptr
    tensor_cls.volatile = property(_volatile)
    tensor_cls.retains_grad = property(_retains_grad)
    tensor_cls.output_nr = property(_output_nr)
    tensor_cls.name = None  # named tensors are not supported: every tensor's name is None
