"""The Tensor: a NumPy array (the storage, or a view of it) plus autograd metadata.

Ops are not defined here: ``_api.py`` attaches a method for every registered op. This module
holds what a tensor *is* (metadata, conversion, printing, the legacy constructor).
"""

from __future__ import annotations

import numpy as np

from . import _dtype as D
from . import _layout
from ._C import TensorBase, _disabled_torch_function_impl
from ._device import BF16_CPU, CPU, to_device
from ._size import Size
from ._state import STATE
from ._strides import STRIDES as _STRIDES
from ._strides import elem_strides as _elem_strides

_new = object.__new__
_BF = D.bfloat16
PY_DISPATCH_TYPES: set = set()  # Tensor subclasses defining __torch_dispatch__ (the Python key)
# Note [Plain subclasses]
# Below the Python API (op.fast, the kernels' shortcuts) a Tensor subclass that defines no
# __torch_dispatch__ behaves exactly as Tensor (results are plain Tensors): PLAIN_SUBCLASSES.
# At the Python API the generated wrappers' fast call takes those that also opt out of
# __torch_function__ (nn.Parameter: NO_TF_SUBCLASSES) and, while subclass dispatch is disabled
# (DisableTorchFunctionSubclass: the default Tensor.__torch_function__ running the function),
# every plain subclass, so a pass-through subclass pays the plain call plus one conversion.
PLAIN_SUBCLASSES: set = set()
NO_TF_SUBCLASSES: set = set()


def _contiguous_strides(shape) -> tuple:
    """PyTorch's contiguous strides: a size-0 or size-1 dim counts as 1."""
    st, acc = [], 1
    for n in reversed(shape):
        st.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(st))


class Tensor(TensorBase):
    """A multi-dimensional array with autograd, mirroring ``torch.Tensor``.

    The legacy constructor builds a default-dtype tensor from data or a shape:

    >>> numtorch.Tensor([1, 2])
    tensor([1., 2.])
    >>> numtorch.Tensor(2, 3).shape
    torch.Size([2, 3])
    """

    # Note [Tensor slots]
    # The hot path creates tensors through _make(), which fills exactly these slots. Rare
    # state (hooks, retains_grad, output number, forward tangents) lives in __dict__ with
    # class-level defaults, so a plain op's output pays nothing for it.
    __slots__ = ("_data", "_dtype", "_device", "_rg", "_grad_fn", "_grad", "_vc", "_base",
                 "__dict__", "__weakref__")  # fmt: skip

    _out_nr = 0
    _is_conj = False  # Note [Conjugate views]
    _backward_hooks = None
    _post_acc_hooks = None
    _retains_grad = False
    _fw_grads = None
    _is_param = False
    __array_priority__ = 1000  # NumPy scalars defer binary operators to us

    def __new__(cls, *args, **kwargs):
        device = kwargs.pop("device", None)
        if kwargs:
            raise TypeError(f"new() got an unexpected keyword argument '{next(iter(kwargs))}'")
        if device is not None and str(device) != "cpu":
            raise RuntimeError(f"legacy constructor expects device type: cpu but device type: {device} was passed")
        dt = D.get_default_dtype()
        if len(args) == 1 and isinstance(args[0], Tensor):
            src = args[0]
            return _make(src._data, src._dtype, cls, src._device)
        if args and all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in args):
            shape = [int(a) for a in args]
            if any(n < 0 for n in shape):
                neg = next(n for n in shape if n < 0)
                raise RuntimeError(f"Trying to create tensor with negative dimension {neg}: {shape}")
            return _make(np.empty(tuple(shape), dt.np), dt, cls)
        if len(args) == 1 and isinstance(args[0], Size):
            return _make(np.empty(tuple(args[0]), dt.np), dt, cls)
        if len(args) == 1:
            from ._factory_utils import data_to_array

            if isinstance(args[0], (bool, float, complex, np.generic)):
                raise TypeError(f"new(): data must be a sequence (got {type(args[0]).__name__})")
            if isinstance(args[0], str):
                raise TypeError("new(): invalid data type 'str'")

            return _make(data_to_array(args[0], dt), dt, cls)
        if not args:
            return _make(np.empty((0,), dt.np), dt, cls)
        raise TypeError(f"new() received an invalid combination of arguments - got {args!r}")

    def __init__(self, *args, **kwargs):
        pass

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if getattr(cls.__torch_dispatch__, "__func__", None) is not _default_torch_dispatch:
            PY_DISPATCH_TYPES.add(cls)
        else:
            PLAIN_SUBCLASSES.add(cls)
            if _tf_disabled(cls):
                NO_TF_SUBCLASSES.add(cls)

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        return NotImplemented

    # ---- metadata ---------------------------------------------------------------------
    @property
    def shape(self) -> Size:
        if self.__class__ is not Tensor or STATE.tf_modes:  # Note [Self-gated accessors]
            r = _ROUTE[0](self, "shape")
            if r is not _NO_HANDLER:
                return r
        return Size(self._data.shape)

    def size(self, dim: int | None = None):
        """The shape, or the size of one dimension.

        >>> numtorch.zeros(2, 3).size(-1)
        3
        """
        if dim is None:
            return Size(self._data.shape)
        shape = self._data.shape
        if dim.__class__ is int and -len(shape) <= dim < len(shape):  # _wrap_dim's common case
            return shape[dim]
        if dim.__class__ is bool:  # PyTorch's parser takes no bool for an int
            raise TypeError("size(): argument 'dim' (position 1) must be int, not bool")
        return self._data.shape[_wrap_dim(dim, self._data.ndim, "size")]

    def stride(self, dim: int | None = None):
        """Strides in elements, as PyTorch reports them.

        >>> numtorch.zeros(2, 3).stride()
        (3, 1)
        """
        a = self._data
        key = (a.strides, a.itemsize)
        st = _STRIDES.get(key)
        if st is None:
            st = _elem_strides(key)
        if not a.size and a.ndim and not any(st):  # NumPy 2 zeroes an empty array's strides
            st = _contiguous_strides(a.shape)
        if dim is None:
            return st
        return st[_wrap_dim(dim, self._data.ndim, "stride")]

    @property
    def dtype(self) -> D.dtype:
        if self.__class__ is not Tensor or STATE.tf_modes:  # Note [Self-gated accessors]
            r = _ROUTE[0](self, "dtype")
            if r is not _NO_HANDLER:
                return r
        return self._dtype

    @property
    def device(self):
        if self.__class__ is not Tensor or STATE.tf_modes:  # Note [Self-gated accessors]
            r = _ROUTE[0](self, "device")
            if r is not _NO_HANDLER:
                return r
        return self._device

    @property
    def is_cuda(self) -> bool:
        return self._device.type == "cuda"

    @property
    def is_cpu(self) -> bool:
        return self._device.type == "cpu"

    @property
    def is_meta(self) -> bool:
        return self._device.type == "meta"

    layout = property(lambda self: _layout.strided, doc="Always ``numtorch.strided``: tensors are dense.")
    is_sparse = property(lambda self: False, doc="False: numtorch tensors are dense.")

    @property
    def ndim(self) -> int:
        if self.__class__ is not Tensor or STATE.tf_modes:  # Note [Self-gated accessors]
            r = _ROUTE[0](self, "ndim")
            if r is not _NO_HANDLER:
                return r
        return self._data.ndim

    def dim(self) -> int:
        if self.__class__ is not Tensor or STATE.tf_modes:  # Note [Self-gated accessors]
            r = _ROUTE[0](self, "dim")
            if r is not _NO_HANDLER:
                return r
        return self._data.ndim

    def ndimension(self) -> int:  # its own function: a handler sees Tensor.ndimension, as in torch
        return self._data.ndim

    def numel(self) -> int:
        if self.__class__ is not Tensor or STATE.tf_modes:  # Note [Self-gated accessors]
            r = _ROUTE[0](self, "numel")
            if r is not _NO_HANDLER:
                return r
        return self._data.size

    def nelement(self) -> int:
        return self._data.size

    def element_size(self) -> int:
        return self._dtype.itemsize

    @property
    def itemsize(self) -> int:
        return self._dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self._data.nbytes

    def is_contiguous(self, memory_format=None) -> bool:
        if memory_format is None:
            return bool(self._data.flags.c_contiguous)
        from .ops.shape._format import memory_format as _fmt
        from .ops.shape.copy import is_contiguous_as

        if not isinstance(memory_format, _fmt):
            raise TypeError(
                "is_contiguous(): argument 'memory_format' must be torch.memory_format, "
                f"not {type(memory_format).__name__}"
            )
        return is_contiguous_as(self._data, memory_format)

    def is_floating_point(self) -> bool:
        return self._dtype.category == D._FLOAT

    def is_complex(self) -> bool:
        return self._dtype.category == D._COMPLEX

    def is_signed(self) -> bool:
        return self._dtype.is_signed

    def storage_offset(self) -> int:
        if self._device.type == "meta":  # Note [Meta storage]
            return self._data.offset // self._dtype.itemsize
        if self._device.type == "cuda":  # Note [CUDA storage]: an element offset already
            return self._data.offset
        if self._data.base is None:  # the array is the storage (two __array_interface__ dicts: ~2 us)
            return 0
        base = _root_array(self._data)
        delta = self._data.__array_interface__["data"][0] - base.__array_interface__["data"][0]
        return delta // self._dtype.itemsize

    def data_ptr(self) -> int:
        if self._device.type == "meta":
            return 0
        if self._device.type == "cuda":
            return self._data.__cuda_array_interface__["data"][0]
        return self._data.__array_interface__["data"][0]

    @property
    def _version(self) -> int:
        if self._vc.__class__ is InferenceVersion and not STATE.inference:
            raise RuntimeError("Inference tensors do not track version counter.")
        return self._vc[0]

    def is_inference(self) -> bool:
        """Whether this tensor was made inside ``inference_mode`` (Note [Inference tensors]).

        >>> with numtorch.inference_mode():
        ...     x = numtorch.ones(2)
        >>> x.is_inference(), numtorch.ones(2).is_inference()
        (True, False)
        """
        return self._vc.__class__ is InferenceVersion

    @property
    def _is_view_flag(self) -> bool:
        return self._base is not None

    def _is_view(self) -> bool:
        return self._base is not None

    # ---- autograd metadata (the engine lives in numtorch.autograd) ----------------------
    @property
    def requires_grad(self) -> bool:
        return self._rg

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        if self._grad_fn is not None:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use "
                "a computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach()."
            )
        if value and not (self._dtype.category >= D._FLOAT):
            raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
        if value and self._vc.__class__ is InferenceVersion and not STATE.inference:
            raise RuntimeError("Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.")
        self._rg = bool(value)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Set requires_grad in place and return self.

        >>> numtorch.zeros(2).requires_grad_().requires_grad
        True
        """
        if requires_grad and self._grad_fn is None and self._dtype.category < D._FLOAT:
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        self.requires_grad = requires_grad
        return self

    @property
    def grad_fn(self):
        return self._grad_fn

    @property
    def is_leaf(self) -> bool:
        return self._grad_fn is None

    @property
    def grad(self):
        return self._grad

    @grad.setter
    def grad(self, value) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type {type(value).__name__}")
            if value._dtype is not self._dtype:
                raise RuntimeError("assigned grad has data of a different type")
            if value._data.shape != self._data.shape:
                raise RuntimeError("assigned grad has data of a different size")
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        self._grad = None

    @property
    def data(self) -> Tensor:
        t = _make(self._data, self._dtype, Tensor, self._device, vc=self._vc)
        if self._is_conj:  # Note [Conjugate views]
            from ._conj import mark

            mark(t, True)
        return t

    @data.setter
    def data(self, value: Tensor) -> None:
        self._data = value._data
        self._dtype = value._dtype
        self._device = value._device

    # ---- conversion --------------------------------------------------------------------
    def numpy(self, *, force: bool = False) -> np.ndarray:
        """The tensor's data as a NumPy array sharing memory (CPU tensors).

        >>> numtorch.ones(2).numpy()
        array([1., 1.], dtype=float32)
        """
        # Gated here rather than wrapped by _tensor_tf (one frame: a custom op's kernel calls
        # this on every call); nn.Parameter (NO_TF_SUBCLASSES) passes as a plain Tensor. Only an
        # explicit force=False reaches a handler as no keyword.
        cls = self.__class__
        if cls is not Tensor and cls not in NO_TF_SUBCLASSES or STATE.tf_modes:
            from .overrides import handle_torch_function, has_torch_function_unary

            if has_torch_function_unary(self):
                kw = {} if force is False else {"force": force}
                return handle_torch_function(Tensor.numpy, (self,), self, **kw)
        if self._rg and not force:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
            )
        if self._is_conj and not force:
            raise RuntimeError("Can't call numpy() on Tensor that has conjugate bit set. Use "
                               "tensor.resolve_conj().numpy() instead.")  # fmt: skip
        if self._dtype is _BF:  # Note [bfloat16]: NumPy has no bfloat16 of its own
            raise TypeError("Got unsupported ScalarType BFloat16")
        if self._device is not CPU and self._device.type != "cpu":
            if not force:
                dev = "meta" if self._device.type == "meta" else f"{self._device.type}:0"
                raise TypeError(
                    f"can't convert {dev} device type tensor to numpy. Use "
                    "Tensor.cpu() to copy the tensor to host memory first."
                )
            return self.cpu()._data
        return self._data

    @property
    def __cuda_array_interface__(self) -> dict:
        """CUDA Array Interface (v3) of a CUDA tensor, so CuPy and Numba kernels share its memory."""
        if self._device.type != "cuda":
            raise AttributeError(
                f"Can't get __cuda_array_interface__ on non-CUDA tensor type: {self.type()} "
                "If CUDA data is required use tensor.cuda() to copy tensor to device memory."
            )
        if self._rg:
            raise RuntimeError(
                "Can't get __cuda_array_interface__ on Variable that requires grad. If gradients "
                "aren't required, use var.detach() to get Variable that doesn't require grad."
            )
        return self._data.__cuda_array_interface__

    def __array__(self, dtype=None, copy=None):
        if self._dtype is _BF:
            raise TypeError("Got unsupported ScalarType BFloat16")
        arr = self.numpy() if self._is_conj else self._host()
        return arr if dtype is None else arr.astype(dtype, copy=False)

    def _host(self) -> np.ndarray:
        if self._device.type == "cpu":
            return np.conj(self._data, out=np.empty_like(self._data)) if self._is_conj else self._data
        if self._device.type == "meta":
            raise NotImplementedError("Cannot copy out of meta tensor; no data!")
        host = self._data.copy_to_host()
        return np.conj(host, out=host) if self._is_conj else host

    def item(self):
        """The value of a one-element tensor as a Python number.

        >>> numtorch.tensor([2.5]).item()
        2.5
        """
        if self.__class__ is not Tensor or STATE.tf_modes:  # Note [Self-gated accessors]
            r = _ROUTE[0](self, "item")
            if r is not _NO_HANDLER:
                return r
        n = self._data.size
        if n != 1:
            raise RuntimeError(f"a Tensor with {n} elements cannot be converted to Scalar")
        op = _LOCAL_SCALAR[0]
        if op is None:  # below the op registry: looked up on first use, then held
            from .ops._registry import OPS

            op = _LOCAL_SCALAR[0] = OPS["aten::_local_scalar_dense"]
        return op.fast(self)

    def tolist(self):
        """The data as (nested) Python lists.

        >>> numtorch.tensor([[1, 2]]).tolist()
        [[1, 2]]
        """
        return self._host().tolist()

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self.dim() == 0:  # through dim() and unbind(), as PyTorch's (a mode sees both)
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __contains__(self, element) -> bool:
        if isinstance(element, (Tensor, int, float, bool, complex)):
            return bool((element == self).any().item())
        raise RuntimeError(
            "Tensor.__contains__ only supports Tensor or scalar, but you passed in a "
            f"{type(element)}."
        )

    def __reversed__(self):
        return self if self._data.ndim == 0 else self.flip(0)

    def __bool__(self) -> bool:
        n = self._data.size
        if n == 1:
            return bool(self.item())
        what = "no values" if n == 0 else "more than one value"
        raise RuntimeError(f"Boolean value of Tensor with {what} is ambiguous")

    def __int__(self) -> int:
        return int(self._real_scalar("int64_t"))

    def __float__(self) -> float:
        return float(self._real_scalar("double"))

    def _real_scalar(self, ctype: str):
        v = self._scalar()
        if type(v) is complex:  # c10::checked_convert: a complex with no imaginary part converts
            if v.imag:
                raise RuntimeError(f"value cannot be converted to type {ctype} without overflow")
            v = v.real
        return v

    def __complex__(self) -> complex:
        return complex(self._scalar())

    def _scalar(self):
        if self._data.size != 1:  # int(t) / float(t): Python's protocols, not item()'s error
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self.item()

    def __index__(self) -> int:
        if self._dtype.category > D._INT or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __hash__(self) -> int:
        return id(self)

    def __format__(self, spec: str) -> str:
        if self._data.ndim == 0 and not self._rg:
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    def __repr__(self, *, tensor_contents=None) -> str:
        if type(self) is not Tensor or STATE.tf_modes:
            from .overrides import handle_torch_function, has_torch_function_unary

            if has_torch_function_unary(self):
                return handle_torch_function(Tensor.__repr__, (self,), self, tensor_contents=tensor_contents)
        from ._tensor_repr import tensor_repr

        # PyTorch prints a subclass's name (``LoggingTensor([1.])``), except for Parameter
        plain = type(self) is Tensor or self._is_param
        return tensor_repr(self) if plain else tensor_repr(self, type(self).__name__)

    def __reduce_ex__(self, proto):
        # as torch: a plain Tensor without Python state pickles directly; a subclass (or one
        # carrying attributes) goes through __torch_function__ first
        if type(self) is not Tensor or self.__dict__:
            from .overrides import handle_torch_function, has_torch_function

            if has_torch_function((self,)):
                return handle_torch_function(Tensor.__reduce_ex__, (self,), self, proto)
        from ._serialization import reduce_tensor

        return reduce_tensor(self)

    def __dir__(self):
        keys = dir(type(self)) + list(self.__dict__)
        if self._device.type != "cuda":  # PyTorch offers it on dense CUDA tensors only
            keys = [k for k in keys if k != "__cuda_array_interface__"]
        return sorted(set(keys))

    def __array_wrap__(self, array, context=None, return_scalar=False):
        """Wrap a NumPy ufunc's result as a Tensor (bool arrays become uint8, as in PyTorch)."""
        from .ops.factory.core import from_numpy

        if array.dtype == bool:
            array = array.astype("uint8")
        return from_numpy(array)

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        new = _make(self._data.copy(), self._dtype, type(self), self._device)
        new._rg = self._rg
        memo[id(self)] = new
        if self._grad is not None:
            new._grad = self._grad.__deepcopy__(memo)
        new.__dict__.update({k: v for k, v in self.__dict__.items() if not k.startswith("_")})
        return new

    # ---- subclass construction ----------------------------------------------------------
    @staticmethod
    def _make_subclass(cls, data: Tensor, require_grad: bool = False) -> Tensor:
        t = _make(data._data, data._dtype, cls, data._device, vc=data._vc)
        t._rg = bool(require_grad)
        return t

    @staticmethod
    def _make_wrapper_subclass(cls, size, strides=None, storage_offset=None, memory_format=None,
                               dtype=None, layout=None, device=None, pin_memory=False,
                               requires_grad=False, dispatch_sizes_strides_policy=None,
                               dispatch_device=False, dispatch_layout=False, _extra_dispatch_keys=None,
                               storage_size=None):  # fmt: skip
        """A ``cls`` instance with metadata only (no storage), for ``__torch_dispatch__`` wrappers."""
        dt = D.get_default_dtype() if dtype is None else D.to_dtype(dtype)
        shape = tuple([int(s) for s in size])
        dev = to_device(device)
        meta = _wrapper_array(shape, strides, storage_offset, dt.np, dev.type == "meta")
        t = _make(meta, dt, cls, dev)
        t._rg = bool(requires_grad)
        return t

    def as_subclass(self, cls) -> Tensor:
        """A view of this tensor's data typed as ``cls`` (no copy, shares autograd history).

        >>> class Sub(numtorch.Tensor): pass
        >>> type(numtorch.zeros(1).as_subclass(Sub)).__name__
        'Sub'
        """
        t = _make(self._data, self._dtype, cls, self._device, vc=self._vc)
        t._rg = self._rg
        t._grad_fn = self._grad_fn
        t._base = self._base
        if self._out_nr:
            t._out_nr = self._out_nr
        return t


_default_torch_dispatch = Tensor.__dict__["__torch_dispatch__"].__func__


def _tf_disabled(cls) -> bool:
    tf = getattr(cls, "__torch_function__", None)
    return getattr(tf, "__func__", tf) is _disabled_torch_function_impl


# Note [Wrapper subclass metadata]
# A wrapper subclass has no data of its own, but its stride(), is_contiguous() and
# storage_offset() are the ones given (contiguous when none), as in PyTorch. The array carrying
# them views zeros spanning exactly the elements those strides reach: np.zeros takes fresh
# zeroed pages from the OS for a large extent, so nothing is touched, and a stray read of the
# wrapper's own data sees zeros, never memory outside the buffer. On the meta device it is a
# MetaArray (Note [Meta storage]); an extent too large to map keeps zero strides.
def _wrapper_array(shape, strides, storage_offset, npdt, meta=False):
    if strides is None:
        st, acc = [], 1
        for n in reversed(shape):
            st.append(acc)
            acc *= max(n, 1)
        strides = st[::-1]
    strides = tuple([int(s) for s in strides])
    off = int(storage_offset or 0)
    isz = npdt.itemsize
    if meta:
        from ._meta import MetaArray

        return MetaArray(shape, npdt, strides, off * isz)
    extent = off + (1 + sum((n - 1) * s for n, s in zip(shape, strides)) if 0 not in shape else 0)
    try:
        buf = np.zeros(max(extent, 1), npdt)
    except MemoryError:
        return np.ndarray(shape, npdt, buffer=np.zeros(1, npdt), strides=(0,) * len(shape))
    return np.ndarray(shape, npdt, buffer=buf, offset=off * isz, strides=tuple(s * isz for s in strides))


_LOCAL_SCALAR = [None]  # Tensor.item()'s op (aten._local_scalar_dense), held after first use
_ROUTE = [None]  # Note [Self-gated accessors]: _tensor_tf._route, set by its install()
_NO_HANDLER = object()


def _make(data, dt, cls=Tensor, device=CPU, vc=None) -> Tensor:
    """Wrap an array without copying. The one place that fills the slots (Note [Tensor slots])."""
    t = _new(cls)
    t._data = data
    t._dtype = dt
    t._device = device if dt is not _BF and device is not BF16_CPU else bf16_device(dt, device)
    t._rg = False
    t._grad_fn = None
    t._grad = None
    t._vc = [0] if vc is None else vc
    t._base = None
    return t


def bf16_device(dt, device):
    """The device slot of a tensor of dtype ``dt`` (Note [bfloat16]): BF16_CPU for bfloat16 on
    the CPU, and plain CPU for a view of bfloat16 storage as another dtype."""
    if device.type != "cpu":
        return device
    return BF16_CPU if dt is _BF else CPU


def inline_make_src(data: str, dt: str, indent: str) -> str:
    """Source of ``return _make(<data>, <dt>)`` written out for generated fast paths, which
    cannot afford the call: their namespace binds _new, _T, _CPU, _IV (InferenceVersion) and
    _S (STATE). Kept beside _make so that the slots are filled the same way in both."""
    lines = ("_t = _new(_T)", f"_t._data = {data}", f"_t._dtype = {dt}", "_t._device = _CPU", "_t._rg = False",
             "_t._grad_fn = None", "_t._grad = None",
             "_t._vc = _IV((0,)) if _S.inference else [0]  # Note [Inference tensors]", "_t._base = None",
             "return _t")  # fmt: skip
    return "\n".join(indent + ln for ln in lines)


# Note [Inference tensors]
# A tensor made inside inference_mode is an inference tensor: its version counter is an
# InferenceVersion, which views share, so a view of an inference tensor is one too and a view
# of a normal tensor is not, as in PyTorch. Outside inference mode nothing may read that
# counter: the autograd engine reads it to save a tensor for backward (PyTorch's "cannot be
# saved" error comes from there) and in-place ops bump it (the pointwise engine, copy_, fill_
# and setitem check first, so they raise PyTorch's in-place error before writing). inference_mode
# swaps _make's code for _make_inference's while it is on, so ops outside it pay nothing; the
# two inlined constructions (the pointwise and reduction fast paths) test STATE.inference.
class InferenceVersion(list):
    __slots__ = ()

    def __getitem__(self, i):
        if not STATE.inference:
            raise RuntimeError(INFERENCE_SAVE)
        return list.__getitem__(self, i)


INFERENCE_SAVE = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode in "
    "computation tracked by autograd. To work around this, you can make a clone to get a normal tensor and use "
    "it in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`."
)
INFERENCE_INPLACE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get a "
    "normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more details."
)


def check_inference_write(t: Tensor) -> None:
    """PyTorch's error for writing into an inference tensor outside inference mode."""
    if t._vc.__class__ is InferenceVersion and not STATE.inference:
        raise RuntimeError(INFERENCE_INPLACE)


def _make_inference(data, dt, cls=Tensor, device=CPU, vc=None) -> Tensor:
    t = _new(cls)
    t._data = data
    t._dtype = dt
    t._device = device if dt is not _BF and device is not BF16_CPU else bf16_device(dt, device)
    t._rg = False
    t._grad_fn = None
    t._grad = None
    t._vc = InferenceVersion((0,)) if vc is None else vc
    t._base = None
    return t


_MAKE_CODE = (_make.__code__, _make_inference.__code__)


def set_inference_make(on: bool) -> None:
    """Point _make at the inference-tensor variant or back (Note [Inference tensors])."""
    _make.__code__ = _MAKE_CODE[1 if on else 0]


def _view(src: Tensor, arr, dt=None) -> Tensor:
    """A tensor viewing ``src``'s storage through ``arr`` (a NumPy view of ``src._data``):
    shares the version counter and records the base, as PyTorch views do."""
    # _make's slot fills written out (a view op's result is mostly this: 260 -> 195 ns); the
    # device is src's, which _make would keep too (a bfloat16 view as another dtype: _make)
    if dt is not None and (dt is _BF or src._dtype is _BF):
        t = _make(arr, dt, Tensor, src._device, vc=src._vc)
        t._base = src if src._base is None else src._base
        return t
    t = _new(Tensor)
    t._data = arr
    t._dtype = src._dtype if dt is None else dt
    t._device = src._device
    t._rg = False
    t._grad_fn = None
    t._grad = None
    t._vc = src._vc
    b = src._base
    t._base = src if b is None else b
    return t


def _wrap_dim(dim: int, ndim: int, op: str = "") -> int:
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})"
        )
    return dim + n if dim < 0 else dim


def _root_array(a: np.ndarray) -> np.ndarray:
    # as_strided views hang off a DummyArray whose .base is the real array.
    while True:
        b = a.base
        if isinstance(b, np.ndarray):
            a = b
        elif b is not None and isinstance(getattr(b, "base", None), np.ndarray):
            a = b.base
        else:
            return a
