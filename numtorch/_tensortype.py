"""The legacy typed tensor classes: ``numtorch.FloatTensor``, ``LongTensor``, ...

Each is a constructor (``LongTensor(2, 3)`` uninitialised, ``LongTensor([1, 2])`` from data,
``FloatTensor(t)`` an alias of a float32 tensor) and an ``isinstance`` test for a CPU tensor of
that dtype, as in PyTorch. They are not subclasses of Tensor (neither are PyTorch's).
"""

from __future__ import annotations

import builtins

from . import _dtype as D
from ._device import cuda_not_compiled, to_device
from ._size import Size

_CXX = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int",
        "int32": "int", "int64": "long int", "float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float",
        "float64": "double", "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}  # fmt: skip

_SIGNATURES = (
    " * (*, torch.device device = None)\n * (torch.Storage storage)\n * (Tensor other)\n"
    " * (tuple of ints size, *, torch.device device = None)\n * (object data, *, torch.device device = None)\n"
)


def _options(dt) -> str:
    return (f"TensorOptions(dtype={_CXX[dt.name]}, device=cpu, layout=Strided, requires_grad=false (default), "
            f"pinned_memory=false (default), memory_format=(nullopt))")  # fmt: skip


class tensortype(type):  # noqa: N801 - torch's metaclass name
    """Metaclass of the typed tensor classes: ``isinstance`` checks dtype and device."""

    def __instancecheck__(cls, obj) -> bool:
        from ._tensor import Tensor

        return isinstance(obj, Tensor) and obj.dtype is cls.dtype and obj.device.type == "cpu"

    def __call__(cls, *args, device=None, **kwargs):
        import numtorch

        if kwargs:
            got = ", ".join([type(a).__name__ for a in args] + [f"{k}={type(v).__module__.replace('numtorch', 'torch')}.{type(v).__name__}" for k, v in kwargs.items()])  # fmt: skip
            raise TypeError(
                f"new() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                + _SIGNATURES
            )
        if device is not None and to_device(device).type != "cpu":
            raise cuda_not_compiled()
        dt = cls.dtype
        if not args:
            return numtorch.empty(0, dtype=dt)
        if len(args) == 1 and isinstance(args[0], numtorch.Tensor):
            other = args[0]
            if other.dtype is not dt:
                raise TypeError(f"expected {_options(dt)} (got {_options(other.dtype)})")
            return other.view(other.shape)
        if len(args) == 1 and isinstance(args[0], Size):
            return numtorch.empty(args[0], dtype=dt)
        if all(isinstance(a, builtins.int) and not isinstance(a, builtins.bool) for a in args):
            return numtorch.empty(args, dtype=dt)
        if len(args) == 1:
            return numtorch.tensor(args[0], dtype=dt)
        for i, a in enumerate(args):
            if not isinstance(a, builtins.int):
                raise TypeError(
                    f"new(): argument 'size' failed to unpack the object at pos {i + 1} with error "
                    f'"type must be tuple of ints,but got {type(a).__name__}"'
                )
        raise AssertionError("unreachable")

    def __repr__(cls) -> str:
        return f"<class 'torch.{cls.__name__}'>"


def _make(name: str, dt) -> type:
    doc = f"Constructor and ``isinstance`` test for CPU tensors of dtype {dt}."
    return tensortype(name, (), {"dtype": dt, "is_cuda": False, "is_sparse": False, "__doc__": doc,
                                 "__module__": "numtorch"})  # fmt: skip


BoolTensor = _make("BoolTensor", D.bool)
ByteTensor = _make("ByteTensor", D.uint8)
CharTensor = _make("CharTensor", D.int8)
ShortTensor = _make("ShortTensor", D.int16)
IntTensor = _make("IntTensor", D.int32)
LongTensor = _make("LongTensor", D.int64)
HalfTensor = _make("HalfTensor", D.float16)
BFloat16Tensor = _make("BFloat16Tensor", D.bfloat16)
FloatTensor = _make("FloatTensor", D.float32)
DoubleTensor = _make("DoubleTensor", D.float64)

__all__ = ["BoolTensor", "ByteTensor", "CharTensor", "ShortTensor", "IntTensor", "LongTensor",
           "HalfTensor", "BFloat16Tensor", "FloatTensor", "DoubleTensor"]  # fmt: skip
