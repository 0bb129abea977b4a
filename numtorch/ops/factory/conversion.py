"""dtype and device conversions: ``_to_copy`` (the one copying op), ``to``, ``type``, ``type_as``,
``float()``/``double()``/..., ``cpu()``, ``cuda()``.

# Note [Device copies]
# ``_to_copy`` copies within the CPU itself; a copy to another device type goes through
# DEVICE_COPY[type](tensor, dtype, device), which a device backend (numtorch's CUDA backend)
# registers when it loads. Without one, a CUDA request raises PyTorch's "Torch not compiled
# with CUDA enabled".
"""

from __future__ import annotations

import builtins

import numpy as np

from ... import _dtype as D
from ..._device import CPU, cuda_not_compiled, device
from ..._device import to_device as _as_device
from ..._tensor import Tensor, _make
from .._pointwise import _cname
from .._registry import defop, public
from . import conversion_fast as CF
from .fast import or_body
from ..shape.core import _c
from ..shape.copy import as_format, assign, empty_layout, preserve_format, suggest_format

DEVICE_COPY: dict = {}


def _other_device(t: Tensor, dt: D.dtype, dev: device) -> Tensor:
    fn = DEVICE_COPY.get(dev.type)
    if fn is None and dev.type == "cuda":
        from ...cuda import _lazy_init  # the CUDA backend registers itself on first use

        fn = DEVICE_COPY.get("cuda") if _lazy_init() else None
    if fn is not None:
        return fn(t, dt, dev)
    if dev.type == "cuda":
        raise cuda_not_compiled()
    raise RuntimeError(f"numtorch has no backend for device type '{dev.type}'")


def _to_copy_cpu(
    self,
    dtype=None,
    layout=None,
    device=None,
    pin_memory=None,
    non_blocking=False,
    memory_format=None,
):
    dt = self._dtype if dtype is None else D.to_dtype(dtype)
    a = self._data
    if (device is None and memory_format is None and self._device is CPU and not self._is_conj
            and dt is not D.bfloat16 and a.flags.c_contiguous):  # fmt: skip
        # a plain C-contiguous CPU tensor (x.int(), x.to(float64)): the layout to preserve is
        # C order, so no stride analysis (5.1 -> ~3 us)
        out = np.empty(a.shape, dt.np)
        assign(out, a)
        return _make(out, dt)
    dev = self._device if device is None else _as_device(device)
    if dev.type != "cpu":
        return _other_device(self, dt, dev)
    a = self._host()
    out = empty_layout(a, as_format(memory_format), dt.np)
    assign(out, a)
    return _make(out, dt)


def _to_copy_grad(grad, self_options):
    dtype, device = self_options  # not self: a second backward through .to() must work (Note [Saving sizes only])
    if grad._dtype.category == D._COMPLEX and dtype.category != D._COMPLEX:
        from ..shape.views import real

        grad = _c(real, grad)  # the gradient of a real-to-complex cast is the real part
    if grad._dtype is dtype and grad._device == device:
        return grad
    return _c(_to_copy, grad, dtype, None, device, None, False, None)


_to_copy = defop(
    "_to_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
    "bool? pin_memory=None, bool non_blocking=False, MemoryFormat? memory_format=None) -> Tensor",
    cpu=_to_copy_cpu,
    backward={"self": _to_copy_grad},
)


def _to(self, dtype, dev, non_blocking, copy, memory_format):
    """PyTorch's ``to_impl``: ``self`` itself when nothing would change, else ``_to_copy``."""
    given_dt, given_dev = dtype, dev
    dt = self._dtype if dtype is None else D.to_dtype(dtype)
    dev = self._device if dev is None else _as_device(dev)
    fmt = as_format(memory_format)
    # to_will_alias: a memory_format request counts as met when it is the suggested format,
    # so a permuted 3-D tensor asked for contiguous_format comes back as itself, as in PyTorch
    aliases = fmt is preserve_format or suggest_format(self._data) is fmt
    if not copy and dt is self._dtype and _same_device(dev, self._device) and aliases:
        return self
    # as PyTorch's to_impl: _to_copy receives only what the caller gave (a dispatch mode sees it)
    return _c(_to_copy, self, None if given_dt is None else dt, None,
              None if given_dev is None else dev, None, bool(non_blocking),
              None if memory_format is None else fmt)  # fmt: skip


def _same_device(a: device, b: device) -> bool:
    return a.type == b.type and (a.index is None or b.index is None or a.index == b.index)


to_dtype = defop(
    "to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, bool copy=False, "
    "MemoryFormat? memory_format=None) -> Tensor(a)",
    composite=lambda self, dtype, non_blocking=False, copy=False, memory_format=None: _to(
        self, dtype, None, non_blocking, copy, memory_format),
)  # fmt: skip
to_device = defop(
    "to.device(Tensor(a) self, Device device, ScalarType dtype, bool non_blocking=False, bool copy=False, "
    "MemoryFormat? memory_format=None) -> Tensor(a)",
    composite=lambda self, device, dtype, non_blocking=False, copy=False, memory_format=None: _to(
        self, dtype, device, non_blocking, copy, memory_format),
)  # fmt: skip
to_other = defop(
    "to.other(Tensor(a) self, Tensor other, bool non_blocking=False, bool copy=False, "
    "MemoryFormat? memory_format=None) -> Tensor(a)",
    composite=lambda self, other, non_blocking=False, copy=False, memory_format=None: _to(
        self, other._dtype, other._device, non_blocking, copy, memory_format),
)  # fmt: skip
to_dtype_layout = defop(
    "to.dtype_layout(Tensor(a) self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
    "bool? pin_memory=None, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)",
    composite=lambda self, dtype=None, layout=None, device=None, pin_memory=None, non_blocking=False, copy=False,
    memory_format=None: _to(self, dtype, device, non_blocking, copy, memory_format),
)  # fmt: skip
type_as = defop("type_as(Tensor self, Tensor other) -> Tensor",
                composite=lambda self, other: _to(self, other._dtype, other._device, False, False, None))  # fmt: skip


# ---- public methods --------------------------------------------------------------------------------
def _is_dtype(x) -> bool:
    return isinstance(x, D.dtype) or x in (
        builtins.float,
        builtins.int,
        builtins.bool,
        builtins.complex,
    )


def _is_device(x) -> bool:
    return isinstance(x, (str, device)) or (isinstance(x, int) and not isinstance(x, bool))


def _bad_to(args) -> TypeError:
    got = ", ".join(type(a).__name__ for a in args)
    return TypeError(
        f"to() received an invalid combination of arguments - got ({got}), but expected one of:\n"
        " * (torch.device device = None, torch.dtype dtype = None, bool non_blocking = False, bool copy = False, *, torch.memory_format memory_format = None)\n"
        " * (torch.dtype dtype, bool non_blocking = False, bool copy = False, *, torch.memory_format memory_format = None)\n"
        " * (Tensor tensor, bool non_blocking = False, bool copy = False, *, torch.memory_format memory_format = None)"
    )


def _to_method(self, args, non_blocking, copy, memory_format, dtype, device):
    """Convert dtype and/or device; returns ``self`` when nothing changes (unless ``copy``).

    >>> numtorch.zeros(2).to(numtorch.float64).dtype
    torch.float64
    """
    if len(args) == 1 and dtype is None and device is None and memory_format is None and not copy and not non_blocking:
        first = args[0]  # x.to(dtype), x.to("cpu") on a CPU tensor: the argument parsing below is 2 of 2.2 us
        if first.__class__ is D.dtype:
            return self if first is self._dtype else _to(self, first, None, False, False, None)
        if first.__class__ is str and first == "cpu" and self._device is CPU:
            return self
    orig, args = args, list(args)
    if args:
        first = args.pop(0)
        if isinstance(first, Tensor):
            if dtype is not None or device is not None or len(args) > 2:
                raise _bad_to([first, *args])
            dtype, device = first._dtype, first._device
            rest = ["non_blocking", "copy"]
        elif _is_dtype(first):
            if dtype is not None or len(args) > 3:
                raise _bad_to([first, *args])
            dtype, rest = first, ["non_blocking", "copy", "memory_format"]
        elif _is_device(first):
            if device is not None or len(args) > 4:
                raise _bad_to([first, *args])
            device, rest = (device_from(first)), ["dtype", "non_blocking", "copy", "memory_format"]
        else:
            raise _bad_to([first, *args])
        given = dict(zip(rest, args, strict=False))
        dtype = given.get("dtype", dtype)
        non_blocking = given.get("non_blocking", non_blocking)
        copy = given.get("copy", copy)
        memory_format = given.get("memory_format", memory_format)
    if dtype is not None and not _is_dtype(dtype) or device is not None and not _is_device(device):
        raise _bad_to(orig)
    if device is not None:
        device = device_from(device)
    return _to(self, dtype, device, non_blocking, copy, memory_format)


def device_from(d) -> device:
    if isinstance(d, int) and not isinstance(d, bool):
        return device("cuda", d)
    return _as_device(d)


_TYPE_NAMES = {
    "Bool": D.bool, "Byte": D.uint8, "Char": D.int8, "Short": D.int16, "Int": D.int32,
    "Long": D.int64, "Half": D.float16, "BFloat16": D.bfloat16, "Float": D.float32, "Double": D.float64,
    "ComplexFloat": D.complex64, "ComplexDouble": D.complex128,
}  # fmt: skip


def _type_method(self, dtype, non_blocking):
    """With no argument, the type string ('torch.FloatTensor'); else convert to that dtype or type.

    >>> numtorch.zeros(2).type()
    'torch.FloatTensor'
    """
    cuda = self._device.type == "cuda"
    if dtype is None:
        return f"torch.{'cuda.' if cuda else ''}{_cname(self._dtype)}Tensor"
    if isinstance(dtype, str):
        name = dtype
        prefix = "torch.cuda." if name.startswith("torch.cuda.") else "torch."
        key = name[len(prefix) :].removesuffix("Tensor")
        if not name.endswith("Tensor") or key not in _TYPE_NAMES:
            raise ValueError(f"invalid type: '{name}'")
        dev = device("cuda") if prefix == "torch.cuda." else CPU
        return _to(self, _TYPE_NAMES[key], dev, non_blocking, False, None)
    if not _is_dtype(dtype):
        raise TypeError(f"type(): argument 'dtype' must be torch.dtype, not {type(dtype).__name__}")
    return _to(self, dtype, None, non_blocking, False, None)


def _type_as_body(self, other):
    """Convert to ``other``'s dtype (and device).

    >>> numtorch.zeros(2).type_as(numtorch.zeros(1, dtype=numtorch.int32)).dtype
    torch.int32
    """
    return _c(type_as, self, other)


def _cpu_body(self, memory_format):
    """This tensor on the CPU (``self`` when it already is).

    >>> numtorch.zeros(2).cpu().device
    device(type='cpu')
    """
    return _to(self, None, CPU, False, False, memory_format)


def _cuda_body(self, device, non_blocking, memory_format):
    """This tensor on a CUDA device (raises when numtorch has no CUDA backend).

    >>> numtorch.zeros(2).cuda()  # doctest: +SKIP
    """
    dev = numtorch_cuda_device(device)
    return _to(self, None, dev, non_blocking, False, memory_format)


def numtorch_cuda_device(d) -> device:
    if d is None:
        return device("cuda", 0)
    dev = device_from(d)
    if dev.type != "cuda":
        raise RuntimeError("Invalid device, must be cuda device")
    return dev


def _cast_method(name: str, dt: D.dtype) -> None:
    def body(self, memory_format):
        return _to(self, dt, None, False, False, memory_format)

    body.__doc__ = f"""``self.to(torch.{dt.name})``: ``self`` when it already has that dtype.

    >>> numtorch.zeros(2, dtype=numtorch.int32).{name}().dtype
    torch.{dt.name}
    """
    public(name, "self, memory_format=None", body, relevant=("self",), module="Tensor", ops=(to_dtype,),
           fast=(CF.to(dt, body), ("self", "memory_format")))  # Note [Conversion fast calls]


public("to", "self, *args, non_blocking=False, copy=False, memory_format=None, dtype=None, device=None",
       _to_method, relevant=("self",), module="Tensor",
       ops=(to_dtype, to_device, to_other, to_dtype_layout, _to_copy))  # fmt: skip
public("type", "self, dtype=None, non_blocking=False", _type_method, relevant=("self",), module="Tensor",
       ops=(to_dtype,), fast=(or_body(CF.type_, _type_method), ("self", "dtype", "non_blocking")))
public("type_as", "self, other", _type_as_body, relevant=("self",), module="Tensor", ops=(type_as,),
       fast=(or_body(CF.type_as, _type_as_body), ("self", "other")))
public(
    "cpu",
    "self, memory_format=None",
    _cpu_body,
    relevant=("self",),
    module="Tensor",
    ops=(_to_copy,),
)
public("cuda", "self, device=None, non_blocking=False, memory_format=None", _cuda_body, relevant=("self",),
       module="Tensor", ops=(_to_copy,))  # fmt: skip
for _name, _dt in (("float", D.float32), ("double", D.float64), ("half", D.float16), ("bfloat16", D.bfloat16),
                   ("int", D.int32),
                   ("long", D.int64), ("short", D.int16), ("bool", D.bool), ("byte", D.uint8),
                   ("char", D.int8), ("cfloat", D.complex64), ("cdouble", D.complex128)):  # fmt: skip
    _cast_method(_name, _dt)
