"""Factories: tensor, as_tensor, from_numpy, empty/zeros/ones/full, arange, linspace, logspace,
eye, empty_strided, scalar_tensor, complex, the *_like forms and the Tensor.new_* methods.

# Note [Factories dispatch with their device]
# A factory has no tensor argument, so the dispatcher's backend key reads the schema's
# ``device=`` value (numtorch._dispatch._device_kwarg): every public factory passes a
# ``numtorch.device`` down, and a CUDA backend only has to register ``cuda=`` kernels.
# Factories are not differentiable: ``requires_grad=True`` makes the result a leaf.
"""

from __future__ import annotations

import builtins
import warnings

import numpy as np

from ... import _dtype as D
from ..._device import CPU, to_device
from ..._dispatch import dispatch
from ..._factory_utils import (alloc, arange_array, check_out_dtype, cname, data_to_array, device_arg, dtype_arg,
                              finish, infer_dtype, like_array, number, resolve_dtype, scalar_dtype, scalar_to, size_arg,
                              size_kwarg, space_array, strided_array, write_out)  # fmt: skip
from ..._layout import strided
from ..._sparse_tensor import layout_factory
from ..._tensor import Tensor, _make
from .._pointwise import broadcast_shapes
from .._registry import defop, public
from . import data_fast as DF
from . import fast as FF

_KW = "ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None"
_PUB_KW = "out=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False"
_NEW_KW = "dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False"


# ---- empty / zeros / ones / full -----------------------------------------------------------------
def _filled(fill):
    def impl(size, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None):
        dt = resolve_dtype(dtype)
        return _make(alloc(size, dt.np, fill), dt)

    return impl


def _full_impl(size, fill_value, dtype=None, layout=None, device=None, pin_memory=None):
    dt = resolve_dtype(dtype, scalar_dtype(fill_value))
    return _make(alloc(size, dt.np, scalar_to(fill_value, dt)), dt)


def _out_of(fn):
    """The ``.out`` kernel of a factory: compute in ``out``'s dtype, then resize and copy."""

    def impl(*vals):
        out = vals[-1]
        return write_out(out, fn(*vals[:-1], out._dtype)._data, fill=True)

    return impl


empty = defop(f"empty.memory_format(SymInt[] size, *, {_KW}, MemoryFormat? memory_format=None) -> Tensor",
              cpu=_filled(None))  # fmt: skip
empty_out = defop("empty.out(SymInt[] size, *, MemoryFormat? memory_format=None, Tensor(a!) out) -> Tensor(a!)",
                  cpu=lambda size, memory_format, out: write_out(out, alloc(size, out._dtype.np), fill=True))  # fmt: skip
zeros = defop(f"zeros(SymInt[] size, *, {_KW}) -> Tensor", cpu=_filled(0))
zeros_out = defop(
    "zeros.out(SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)", cpu=_out_of(_filled(0))
)
ones = defop(f"ones(SymInt[] size, *, {_KW}) -> Tensor", cpu=_filled(1))
ones_out = defop(
    "ones.out(SymInt[] size, *, Tensor(a!) out) -> Tensor(a!)", cpu=_out_of(_filled(1))
)
full = defop(f"full(SymInt[] size, Scalar fill_value, *, {_KW}) -> Tensor", cpu=_full_impl)
full_out = defop("full.out(SymInt[] size, Scalar fill_value, *, Tensor(a!) out) -> Tensor(a!)",
                 cpu=_out_of(_full_impl))  # fmt: skip


def create(op, op_out, head: list, out, dtype, device, requires_grad, fname: str, tail=()):
    """Dispatch a factory: the ``.out`` overload when ``out`` is given, else the functional one.

    Like PyTorch's Python binding, a factory passes ``device`` (the default device) and
    ``pin_memory=False`` explicitly, so a dispatch mode sees them (extending.rst's DispatchLog)."""
    dtype = dtype_arg(dtype, fname)
    if out is not None:
        check_out_dtype(out, dtype)
        return finish(dispatch(op_out, [*head, out]), requires_grad)
    return finish(
        dispatch(op, [*head, dtype, None, device_arg(device) or CPU, False, *tail]), requires_grad
    )


def _sized(op, op_out, name):
    tail = (None,) if op is empty else ()

    def body(sizes, size, out, dtype, layout, device, requires_grad, pin_memory):
        head = [list(size_arg(size_kwarg(sizes, size, name), name, required=True))]
        if layout is not None and layout is not strided:  # a sparse layout: numtorch/_sparse_tensor.py
            return layout_factory(name, head[0], dtype_arg(dtype, name), layout, requires_grad)
        if out is not None and op is empty:
            head.append(None)
        return create(op, op_out, head, out, dtype, device, requires_grad, name, tail)

    body.__doc__ = f"""A tensor of the given shape filled by ``{name}`` (default dtype unless ``dtype=``).

    >>> numtorch.{name}(2, 3).shape
    torch.Size([2, 3])
    """
    public(name, f"*sizes, size=None, {_PUB_KW}", body, relevant=(), ops=(op, op_out),
           fast=(FF.sized(name), ("sizes", "dtype"), FF.SIZED_COND))  # Note [Factory binding fast call]


_sized(empty, empty_out, "empty")
_sized(zeros, zeros_out, "zeros")
_sized(ones, ones_out, "ones")


def _full(size, fill_value, out, dtype, layout, device, requires_grad, pin_memory):
    """A tensor of ``size`` filled with ``fill_value``; the dtype follows the value (bool, int64,
    default float, default complex) unless ``dtype=`` is given.

    >>> numtorch.full((2,), 7)
    tensor([7, 7])
    """
    if not isinstance(size, (tuple, list)):
        raise TypeError(
            f"full(): argument 'size' (position 1) must be tuple of ints, not {type(size).__name__}"
        )
    head = [list(size_arg((size,), "full")), number(fill_value, "full", "fill_value", 2)]
    if layout is not None and layout is not strided:
        return layout_factory("full", head[0], dtype_arg(dtype, "full"), layout, requires_grad)
    return create(full, full_out, head, out, dtype, device, requires_grad, "full")


public("full", f"size, fill_value, *, {_PUB_KW}", _full, relevant=(), ops=(full, full_out),
       fast=(FF.full, ("size", "fill_value", "dtype"), FF.COND))


# ---- *_like --------------------------------------------------------------------------------------
def _like_impl(fill):
    def impl(self, *rest):
        *fv, dtype, layout, device, pin_memory, memory_format = rest
        dt = self._dtype if dtype is None else resolve_dtype(dtype)
        value = scalar_to(fv[0], dt) if fv else fill
        return _make(like_array(self._data, dt.np, value, memory_format), dt)

    return impl


_LIKE_KW = f"{_KW}, MemoryFormat? memory_format=None"
empty_like = defop(f"empty_like(Tensor self, *, {_LIKE_KW}) -> Tensor", cpu=_like_impl(None))
zeros_like = defop(f"zeros_like(Tensor self, *, {_LIKE_KW}) -> Tensor", cpu=_like_impl(0))
ones_like = defop(f"ones_like(Tensor self, *, {_LIKE_KW}) -> Tensor", cpu=_like_impl(1))
full_like = defop(
    f"full_like(Tensor self, Scalar fill_value, *, {_LIKE_KW}) -> Tensor", cpu=_like_impl(None)
)


def _like(op, name, extra=""):
    def body(input, *rest):
        *fill, dtype, layout, device, requires_grad, memory_format = rest
        fill = [number(fill[0], name, "fill_value", 2)] if fill else []
        if layout is not None and layout is not strided:
            return layout_factory(name, input.shape, dtype_arg(dtype, name) or input.dtype, layout, requires_grad)
        args = [input, *fill, dtype_arg(dtype, name), None, device_arg(device), False, memory_format]
        return finish(dispatch(op, args), requires_grad)

    body.__doc__ = f"""``{name[:-5]}`` with the shape, dtype and device of ``input`` unless given.

    >>> numtorch.{name}(numtorch.zeros(2, dtype=numtorch.int32){", 7" if extra else ""}).dtype
    torch.int32
    """
    sig = f"input, {extra}*, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None"
    fast = FF.full_like if extra else FF.like(name[:-5])
    public(name, sig, body, relevant=("input",), ops=(op,), fast=(FF.or_body(fast, body), FF.params(sig)))


_like(empty_like, "empty_like")
_like(zeros_like, "zeros_like")
_like(ones_like, "ones_like")
_like(full_like, "full_like", "fill_value, ")


# ---- Tensor.new_* --------------------------------------------------------------------------------
def _new_impl(fill):
    def impl(self, size, *rest):
        *fv, dtype, layout, device, pin_memory = rest
        dt = self._dtype if dtype is None else resolve_dtype(dtype)
        return _make(alloc(size, dt.np, scalar_to(fv[0], dt) if fv else fill), dt)

    return impl


new_empty = defop(f"new_empty(Tensor self, SymInt[] size, *, {_KW}) -> Tensor", cpu=_new_impl(None))
new_zeros = defop(f"new_zeros(Tensor self, SymInt[] size, *, {_KW}) -> Tensor", cpu=_new_impl(0))
new_ones = defop(f"new_ones(Tensor self, SymInt[] size, *, {_KW}) -> Tensor", cpu=_new_impl(1))
new_full = defop(f"new_full(Tensor self, SymInt[] size, Scalar fill_value, *, {_KW}) -> Tensor",
                 cpu=_new_impl(None))  # fmt: skip


def _new(op, name):
    def body(self, size, dtype, device, requires_grad, layout, pin_memory):
        sz = list(size_arg(size, name, required=True))
        args = [self, sz, dtype_arg(dtype, name), None, device_arg(device), False]
        return finish(dispatch(op, args), requires_grad)

    body.__doc__ = f"""A ``{name[4:]}`` tensor with this tensor's dtype and device unless given.

    >>> numtorch.zeros(1, dtype=numtorch.float64).{name}(2).dtype
    torch.float64
    """
    public(name, f"self, *size, {_NEW_KW}", body, relevant=("self",), module="Tensor", ops=(op,),
           fast=(FF.or_body(FF.new(name[4:]), body), FF.params(f"self, *size, {_NEW_KW}")))


_new(new_empty, "new_empty")
_new(new_zeros, "new_zeros")
_new(new_ones, "new_ones")


def _new_full(self, size, fill_value, dtype, device, requires_grad, layout, pin_memory):
    """A tensor of ``size`` filled with ``fill_value``, with this tensor's dtype and device.

    >>> numtorch.zeros(1, dtype=numtorch.int32).new_full((2,), 3)
    tensor([3, 3], dtype=torch.int32)
    """
    if not isinstance(size, (tuple, list)):
        raise TypeError(
            f"new_full(): argument 'size' (position 1) must be tuple of ints, not {type(size).__name__}"
        )
    args = [
        self,
        list(size_arg((size,), "new_full")),
        number(fill_value, "new_full", "fill_value", 2),
    ]
    args += [dtype_arg(dtype, "new_full"), None, device_arg(device), False]
    return finish(dispatch(new_full, args), requires_grad)


public("new_full", f"self, size, fill_value, *, {_NEW_KW}", _new_full, relevant=("self",), module="Tensor",
       ops=(new_full,), fast=(FF.or_body(FF.new_full, _new_full), FF.params(f"self, size, fill_value, *, {_NEW_KW}")))  # fmt: skip


def _new_tensor(self, data, dtype, device, requires_grad, layout, pin_memory):
    """A copy of ``data`` with this tensor's dtype and device unless given.

    >>> numtorch.zeros(1, dtype=numtorch.float64).new_tensor([1, 2])
    tensor([1., 2.], dtype=torch.float64)
    """
    if isinstance(data, Tensor):
        warnings.warn(_COPY_WARNING.format("tensor.new_tensor"), UserWarning, stacklevel=3)
    dt = self._dtype if dtype is None else dtype_arg(dtype, "new_tensor")
    dev = self._device if device is None else to_device(device)
    return _tensor(data, dt, dev, requires_grad, False, warn=False)


public("new_tensor", f"self, data, *, {_NEW_KW}", _new_tensor, relevant=("self",), module="Tensor",
       fast=(FF.or_body(DF.new_tensor, _new_tensor), FF.params(f"self, data, *, {_NEW_KW}")))  # Note [Tensor data fast call]


# ---- tensor / as_tensor / from_numpy ---------------------------------------------------------------
_COPY_WARNING = (
    "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
    "sourceTensor.detach().clone().requires_grad_(True), rather than {}(sourceTensor)."
)


def _tensor(data, dtype, device, requires_grad, pin_memory, warn=True):
    """Copy ``data`` (nested lists, scalars, NumPy arrays, tensors) into a new leaf tensor; the
    dtype is inferred as PyTorch does (bool, int64, default float, default complex; arrays and
    tensors keep theirs) unless ``dtype=`` is given.

    >>> numtorch.tensor([[1, 2], [3, 4]])
    tensor([[1, 2],
            [3, 4]])
    >>> numtorch.tensor([1, 2.5]).dtype
    torch.float32
    """
    if warn and isinstance(data, Tensor):
        warnings.warn(_COPY_WARNING.format("torch.tensor"), UserWarning, stacklevel=3)
    dt = dtype_arg(dtype, "tensor")
    t = _make(data_to_array(data, dt), dt if dt is not None else infer_dtype(data))
    t = dispatch(lift_fresh, [t])  # as PyTorch's torch.tensor: a mode sees aten.lift_fresh
    dev = data._device if device is None and isinstance(data, Tensor) else to_device(device)
    if dev.type != "cpu":
        t = t.to(dev)
    return finish(t, requires_grad)


# lift_fresh: the identity that marks a tensor made from Python data (torch.tensor)
lift_fresh = defop("lift_fresh(Tensor(a) self) -> Tensor(a)", any_device=lambda self: self)
# _local_scalar_dense: Tensor.item()'s op; a meta tensor has no value to give
_local_scalar_dense = defop("_local_scalar_dense(Tensor self) -> Scalar", cpu=lambda self: self._data.reshape(()).item())
_local_scalar_dense.impls["meta"] = lambda self: _no_item()


def _no_item():
    raise RuntimeError("Tensor.item() cannot be called on meta tensors")


public("tensor", "data, *, dtype=None, device=None, requires_grad=False, pin_memory=False",
       _tensor, relevant=(), fast=(DF.tensor, ("data", "dtype"), DF.COND))  # fmt: skip


def _as_tensor(data, dtype, device):
    """``data`` as a tensor, sharing memory when it already is a tensor or a NumPy array of the
    requested dtype and device.

    >>> numtorch.as_tensor([1.5, 2.5])
    tensor([1.5000, 2.5000])
    """
    dt = dtype_arg(dtype, "as_tensor")
    dev = None if device is None else to_device(device)
    if isinstance(data, Tensor):
        r = data if dt is None or dt is data._dtype else data.to(dt)
        return r if dev is None or dev == r._device else r.to(dev)
    if (
        isinstance(data, np.ndarray)
        and (dt is None or dt.np == data.dtype)
        and (dev is None or dev.type == "cpu")
    ):
        return from_numpy(data)
    return _tensor(data, dt, dev, False, False)


public("as_tensor", "data, dtype=None, device=None", _as_tensor, relevant=(), fast=(DF.tensor, ("data", "dtype"), "device is None"))


def from_numpy(ndarray: np.ndarray) -> Tensor:
    """A tensor sharing ``ndarray``'s memory (writes through either are seen by both).

    >>> numtorch.from_numpy(np.zeros(2, dtype=np.int32))
    tensor([0, 0], dtype=torch.int32)
    """
    # Note [from_numpy fast path]: a kernel's freshly allocated output (an ndarray that owns its
    # memory, writeable, of a native supported dtype) needs none of the checks below: an owning
    # array never has negative strides. Custom-op kernels return through here on every call.
    if ndarray.__class__ is np.ndarray:
        dt = D._FROM_NP.get(ndarray.dtype)
        if dt is not None:
            f = ndarray.flags
            if f.owndata and f.writeable:
                return _make(ndarray, dt)
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    if ndarray.dtype.isnative and ndarray.dtype not in D._FROM_NP:
        raise TypeError(
            f"can't convert np.ndarray of type {ndarray.dtype.type.__module__}.{ndarray.dtype.type.__name__}. The only supported "
            "types are: float64, float32, float16, complex64, complex128, int64, int32, int16, int8, "
            "uint64, uint32, uint16, uint8, and bool."
        )
    if not ndarray.dtype.isnative:
        raise ValueError(
            "given numpy array has byte order different from the native byte order. Conversion "
            "between byte orders is currently not supported."
        )
    if any(s < 0 for s in ndarray.strides):
        raise ValueError(
            "At least one stride in the given numpy array is negative, and tensors with negative "
            "strides are not currently supported. (You can probably work around this by making a "
            "copy of your array  with array.copy().) "
        )
    if not ndarray.flags.writeable:
        warnings.warn(
            "The given NumPy array is not writable, and PyTorch does not support non-writable "
            "tensors. This means writing to this tensor will result in undefined behavior. You may "
            "want to copy the array to protect its data or make it writable before converting it to "
            "a tensor. This type of warning will be suppressed for the rest of this program.",
            UserWarning,
            stacklevel=2,
        )
    return _make(ndarray, D.from_numpy_dtype(ndarray.dtype))


def is_tensor(obj) -> bool:
    """Whether ``obj`` is a numtorch tensor (including subclasses).

    >>> numtorch.is_tensor(numtorch.zeros(1)), numtorch.is_tensor([1])
    (True, False)
    """
    return isinstance(obj, Tensor)


def typename(obj) -> str:
    """The type name PyTorch prints for ``obj``: ``x.type()`` for a tensor, else the dotted
    name of ``obj`` (or of its class), as ``torch.typename``.

    >>> numtorch.typename(numtorch.zeros(1)), numtorch.typename(3)
    ('torch.FloatTensor', 'int')
    """
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = obj.__class__.__module__ or ""
        qualname = obj.__class__.__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


# ---- arange / linspace / logspace ------------------------------------------------------------------
def _arange_dtype(*vals) -> D.dtype:
    integral = all(isinstance(v, (builtins.int, np.integer, np.bool_)) for v in vals)
    return D.int64 if integral else D.get_default_dtype()


def _arange_impl(start, end, step=1, dtype=None, layout=None, device=None, pin_memory=None):
    s, e, st = (
        number(start, "arange", "start", 1),
        number(end, "arange", "end", 2),
        number(step, "arange", "step", 3),
    )
    dt = resolve_dtype(dtype, _arange_dtype(s, e, st))
    if builtins.complex in (type(s), type(e), type(st)):
        raise RuntimeError("value cannot be converted to type double without overflow")
    if dt is D.bool or dt.category == D._COMPLEX:
        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{cname(dt)}'")
    return _make(arange_array(s, e, st, dt), dt)


arange = defop(
    f"arange(Scalar end, *, {_KW}) -> Tensor", cpu=lambda end, *kw: _arange_impl(0, end, 1, *kw)
)
arange_start = defop(f"arange.start(Scalar start, Scalar end, *, {_KW}) -> Tensor",
                     cpu=lambda s, e, *kw: _arange_impl(s, e, 1, *kw))  # fmt: skip
arange_start_step = defop(f"arange.start_step(Scalar start, Scalar end, Scalar step=1, *, {_KW}) -> Tensor",
                          cpu=_arange_impl)  # fmt: skip
arange_out = defop("arange.out(Scalar end, *, Tensor(a!) out) -> Tensor(a!)",
                   cpu=lambda end, out: _arange_into(0, end, 1, out))  # fmt: skip
arange_start_out = defop("arange.start_out(Scalar start, Scalar end, Scalar step=1, *, Tensor(a!) out) -> Tensor(a!)",
                         cpu=lambda s, e, st, out: _arange_into(s, e, st, out))  # fmt: skip


def _arange_into(start, end, step, out):
    arr = _arange_impl(start, end, step, out._dtype)._data
    if out._data.size and out._data.size != arr.size:
        warnings.warn(
            f"The number of elements in the out tensor of shape {list(out._data.shape)} is "
            f"{out._data.size} which does not match the computed number of elements {arr.size}. Note "
            "that this may occur as a result of rounding error. The out tensor will be resized to a "
            f"tensor of shape ({arr.size},).",
            UserWarning,
            stacklevel=5,
        )
    return write_out(out, arr)


def _arange(start, end, step, out, dtype, layout, device, requires_grad, pin_memory):
    """Values from ``start`` (default 0) up to, not including, ``end`` by ``step``; there are
    ``ceil((end - start) / step)`` of them. All-integer arguments give int64, else the default dtype.

    >>> numtorch.arange(5)
    tensor([0, 1, 2, 3, 4])
    >>> numtorch.arange(1, 2.5, 0.5)
    tensor([1.0000, 1.5000, 2.0000])
    """
    if end is None:
        start, end = 0, number(start, "arange", "end", 1)
        if out is not None:
            check_out_dtype(out, dtype_arg(dtype, "arange"))
            return finish(dispatch(arange_out, [end, out]), requires_grad)
        return create(arange, None, [end], None, dtype, device, requires_grad, "arange")
    if out is None and type(step) is builtins.int and step == 1:
        return create(
            arange_start, None, [start, end], None, dtype, device, requires_grad, "arange"
        )
    head = [start, end, step]
    return create(
        arange_start_step, arange_start_out, head, out, dtype, device, requires_grad, "arange"
    )


public("arange", f"start=0, end=None, step=1, *, {_PUB_KW}", _arange, relevant=(),
       ops=(arange, arange_start, arange_start_step, arange_out, arange_start_out),
       fast=(FF.arange, ("start", "end", "step", "dtype"), FF.COND))  # fmt: skip


def _check_0d(start, end, fname):
    sd = start._data.ndim if isinstance(start, Tensor) else 0
    ed = end._data.ndim if isinstance(end, Tensor) else 0
    if sd or ed:
        raise RuntimeError(
            f"{fname} only supports 0-dimensional start and end tensors, but got start with {sd} "
            f"dimension(s) and end with {ed} dimension(s)."
        )


def _space_dtype(dtype, start, end) -> D.dtype:
    cplx = any(type(v) is builtins.complex or isinstance(v, Tensor) and v._dtype.category == D._COMPLEX
               for v in (start, end))  # fmt: skip
    return resolve_dtype(dtype, D.default_complex() if cplx else None)


def _linspace_impl(start, end, steps, dtype=None, layout=None, device=None, pin_memory=None):
    _check_0d(start, end, "linspace")
    dt = _space_dtype(dtype, start, end)
    return _make(space_array(start, end, steps, dt, "linspace"), dt)


def _logspace_impl(
    start, end, steps, base=10.0, dtype=None, layout=None, device=None, pin_memory=None
):
    _check_0d(start, end, "logspace")
    dt = _space_dtype(dtype, start, end)
    return _make(space_array(start, end, steps, dt, "logspace", base), dt)


def _space_ops(name, impl, base):
    b = "float base=10., " if base else ""
    ops = {}
    for ov, (ts, te) in {"": ("Scalar", "Scalar"), "Tensor_Tensor": ("Tensor", "Tensor"),
                         "Tensor_Scalar": ("Tensor", "Scalar"), "Scalar_Tensor": ("Scalar", "Tensor")}.items():  # fmt: skip
        head = f"{ts} start, {te} end, int steps, {b}"
        dot = f".{ov}" if ov else ""
        ops[ov] = defop(f"{name}{dot}({head}*, {_KW}) -> Tensor", cpu=impl)
        out_ov = f".{ov}_out" if ov else ".out"
        ops[ov + "_out"] = defop(
            f"{name}{out_ov}({head}*, Tensor(a!) out) -> Tensor(a!)", cpu=_out_of(impl)
        )
    return ops


_LINSPACE = _space_ops("linspace", _linspace_impl, False)
_LOGSPACE = _space_ops("logspace", _logspace_impl, True)


def _space_body(ops, fname, start, end, steps, base, out, dtype, device, requires_grad):
    if not isinstance(steps, (builtins.int, np.integer)) or isinstance(steps, builtins.bool):
        got = ", ".join(type(v).__name__ for v in (start, end, steps))
        b = ", float base = 10.0" if base is not None else ""
        raise TypeError(
            f"{fname}() received an invalid combination of arguments - got ({got}), but expected one of:\n"
            f" * (Number start, Number end, int steps{b}, *, Tensor out = None, torch.dtype dtype = None, "
            "torch.layout layout = None, torch.device device = None, bool pin_memory = False, "
            "bool requires_grad = False)\n"
        )
    key = ""
    if isinstance(start, Tensor) or isinstance(end, Tensor):
        key = ("Tensor" if isinstance(start, Tensor) else "Scalar") + (
            "_Tensor" if isinstance(end, Tensor) else "_Scalar"
        )
    head = [start, end, builtins.int(steps)] + ([] if base is None else [builtins.float(base)])
    return create(ops[key], ops[key + "_out"], head, out, dtype, device, requires_grad, fname)


def _linspace(start, end, steps, out, dtype, layout, device, requires_grad, pin_memory):
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive (default dtype).

    >>> numtorch.linspace(0, 1, 5)
    tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000])
    """
    return _space_body(
        _LINSPACE, "linspace", start, end, steps, None, out, dtype, device, requires_grad
    )


def _logspace(start, end, steps, base, out, dtype, layout, device, requires_grad, pin_memory):
    """``steps`` values ``base ** x`` for ``x`` evenly spaced from ``start`` to ``end``.

    >>> numtorch.logspace(0, 2, 3)
    tensor([  1.,  10., 100.])
    """
    return _space_body(
        _LOGSPACE, "logspace", start, end, steps, base, out, dtype, device, requires_grad
    )


public("linspace", f"start, end, steps, *, {_PUB_KW}", _linspace, relevant=(), ops=tuple(_LINSPACE.values()),
       fast=(FF.linspace, ("start", "end", "steps", "dtype"), FF.COND))  # fmt: skip
public("logspace", f"start, end, steps, base=10.0, *, {_PUB_KW}", _logspace, relevant=(),
       ops=tuple(_LOGSPACE.values()), fast=(FF.logspace, ("start", "end", "steps", "base", "dtype"), FF.COND))  # fmt: skip


# ---- eye / empty_strided / scalar_tensor / complex ---------------------------------------------------
def _eye_impl(n, m=None, dtype=None, layout=None, device=None, pin_memory=None):
    m = n if m is None else m
    for name, v in (("n", n), ("m", m)):
        if v < 0:
            raise RuntimeError(f"{name} must be greater or equal to 0, got {v}")
    dt = resolve_dtype(dtype)
    arr = alloc((n, m), dt.np, 0)
    np.fill_diagonal(arr, 1)
    return _make(arr, dt)


eye = defop(f"eye(SymInt n, *, {_KW}) -> Tensor", cpu=lambda n, *kw: _eye_impl(n, None, *kw))
eye_m = defop(f"eye.m(SymInt n, SymInt m, *, {_KW}) -> Tensor", cpu=_eye_impl)
eye_out = defop("eye.out(SymInt n, *, Tensor(a!) out) -> Tensor(a!)",
                cpu=lambda n, out: write_out(out, _eye_impl(n, None, out._dtype)._data))  # fmt: skip
eye_m_out = defop(
    "eye.m_out(SymInt n, SymInt m, *, Tensor(a!) out) -> Tensor(a!)", cpu=_out_of(_eye_impl)
)


def _int_arg(v, fname, arg, pos):
    if isinstance(v, (builtins.int, np.integer)) and not isinstance(v, builtins.bool):
        return builtins.int(v)
    raise TypeError(
        f"{fname}(): argument '{arg}' (position {pos}) must be int, not {type(v).__name__}"
    )


def _eye(n, m, out, dtype, layout, device, requires_grad, pin_memory):
    """A 2-D tensor with ones on the diagonal: ``n`` rows and ``m`` (default ``n``) columns.

    >>> numtorch.eye(2)
    tensor([[1., 0.],
            [0., 1.]])
    """
    n = _int_arg(n, "eye", "n", 1)
    if m is None:
        return create(eye, eye_out, [n], out, dtype, device, requires_grad, "eye")
    return create(
        eye_m, eye_m_out, [n, _int_arg(m, "eye", "m", 2)], out, dtype, device, requires_grad, "eye"
    )


public("eye", f"n, m=None, *, {_PUB_KW}", _eye, relevant=(), ops=(eye, eye_m, eye_out, eye_m_out),
       fast=(FF.eye, ("n", "m", "dtype"), FF.COND))


def _empty_strided_impl(size, stride, dtype=None, layout=None, device=None, pin_memory=None):
    dt = resolve_dtype(dtype)
    return _make(strided_array(size, stride, dt.np), dt)


empty_strided = defop(
    f"empty_strided(SymInt[] size, SymInt[] stride, *, {_KW}) -> Tensor", cpu=_empty_strided_impl
)
new_empty_strided = defop(f"new_empty_strided(Tensor self, SymInt[] size, SymInt[] stride, *, {_KW}) -> Tensor",
                          cpu=lambda self, size, stride, dtype, *kw: _empty_strided_impl(
                              size, stride, self._dtype if dtype is None else dtype))  # fmt: skip


def _empty_strided(size, stride, dtype, layout, device, requires_grad, pin_memory):
    """An uninitialised tensor with the given shape and strides (in elements).

    >>> numtorch.empty_strided((2, 3), (1, 2)).stride()
    (1, 2)
    """
    args = [
        list(size_arg((size,), "empty_strided", False)),
        list(size_arg((stride,), "empty_strided", False)),
    ]
    return create(empty_strided, None, args, None, dtype, device, requires_grad, "empty_strided")


def _new_empty_strided(self, size, stride, dtype, device, requires_grad, layout, pin_memory):
    """``empty_strided`` with this tensor's dtype and device unless given.

    >>> numtorch.zeros(1).new_empty_strided((2, 2), (1, 2)).stride()
    (1, 2)
    """
    sz = list(size_arg((size,), "new_empty_strided", False))
    st = list(size_arg((stride,), "new_empty_strided", False))
    args = [self, sz, st, dtype_arg(dtype, "new_empty_strided"), None, device_arg(device), None]
    return finish(dispatch(new_empty_strided, args), requires_grad)


public("empty_strided", "size, stride, *, dtype=None, layout=None, device=None, requires_grad=False, "
       "pin_memory=False", _empty_strided, relevant=(), ops=(empty_strided,),
       fast=(FF.empty_strided, ("size", "stride", "dtype"), FF.STRIDED_COND))  # fmt: skip
public("new_empty_strided", f"self, size, stride, *, {_NEW_KW}", _new_empty_strided, relevant=("self",),
       module="Tensor", ops=(new_empty_strided,), fast=(FF.or_body(FF.new_empty_strided, _new_empty_strided),
                                                        FF.params(f"self, size, stride, *, {_NEW_KW}")))  # fmt: skip


def _scalar_tensor_impl(s, dtype=None, layout=None, device=None, pin_memory=None):
    dt = resolve_dtype(dtype)
    return _make(np.array(scalar_to(s, dt), dt.np), dt)


scalar_tensor = defop(f"scalar_tensor(Scalar s, *, {_KW}) -> Tensor", cpu=_scalar_tensor_impl)
scalar_tensor_out = defop("scalar_tensor.out(Scalar s, *, Tensor(a!) out) -> Tensor(a!)",
                          cpu=_out_of(_scalar_tensor_impl))  # fmt: skip


def _scalar_tensor(s, out, dtype, layout, device, requires_grad, pin_memory):
    """A 0-d tensor holding ``s`` in the default dtype unless ``dtype=`` is given.

    >>> numtorch.scalar_tensor(3)
    tensor(3.)
    """
    head = [number(s, "scalar_tensor", "s", 1)]
    return create(
        scalar_tensor, scalar_tensor_out, head, out, dtype, device, requires_grad, "scalar_tensor"
    )


public("scalar_tensor", f"s, *, {_PUB_KW}", _scalar_tensor, relevant=(), ops=(scalar_tensor, scalar_tensor_out),
       fast=(FF.scalar_tensor, ("s", "dtype"), FF.COND))  # fmt: skip


def _complex_impl(real, imag):
    r, i = real._dtype, imag._dtype
    if r.category != D._FLOAT or i.category != D._FLOAT:
        raise RuntimeError(
            f"Expected both inputs to be Half, Float or Double tensors but got {cname(r)} and {cname(i)}"
        )
    if r is not i:
        raise RuntimeError(
            f"Expected object of scalar type {cname(r)} but got scalar type {cname(i)} for second argument"
        )
    if r is D.float16:
        raise NotImplementedError(
            "complex(): ComplexHalf (complex32) tensors are not supported by numtorch"
        )
    dt = r.to_complex()
    shape = real._data.shape
    if shape != imag._data.shape:
        shape = broadcast_shapes(shape, imag._data.shape)  # PyTorch's mismatch text
    arr = np.empty(shape, dt.np)
    arr.real, arr.imag = real._data, imag._data
    return _make(arr, dt)


complex_op = defop("complex(Tensor real, Tensor imag) -> Tensor", cpu=_complex_impl,
                   backward={"real": lambda grad: grad.real, "imag": lambda grad: grad.imag})  # fmt: skip
def _complex_out_cpu(real, imag, out):
    r = _complex_impl(real, imag)
    if out._dtype is not r._dtype:  # ATen's complex_check_dtype: no cast into out, even empty
        raise RuntimeError(f"Expected object of scalar type {cname(r._dtype)} but got scalar type "
                           f"{cname(out._dtype)} for argument 'out'")  # fmt: skip
    return write_out(out, r._data)


complex_out = defop("complex.out(Tensor real, Tensor imag, *, Tensor(a!) out) -> Tensor(a!)", cpu=_complex_out_cpu)


def _complex(real, imag, out):
    """A complex tensor from real and imaginary parts of the same float dtype (broadcast).

    >>> numtorch.complex(numtorch.tensor([1.0]), numtorch.tensor([2.0]))
    tensor([1.+2.j])
    """
    for pos, (arg, x) in enumerate((("real", real), ("imag", imag)), 1):
        if not isinstance(x, Tensor):
            raise TypeError(f"complex(): argument '{arg}' (position {pos}) must be Tensor, not {type(x).__name__}")
    if out is not None:
        return dispatch(complex_out, [real, imag, out])
    return dispatch(complex_op, [real, imag])


public("complex", "real, imag, *, out=None", _complex, relevant=("real", "imag"), ops=(complex_op, complex_out),
       fast=(complex_op, ("real", "imag"), "out is None"))  # Note [Binding fast call]
