"""``numtorch.save`` / ``numtorch.load``: PyTorch's zip checkpoint format.

# Note [Checkpoints are PyTorch's format]
# ``save`` writes what ``torch.save`` writes: a zip with ``archive/data.pkl`` (protocol-2 pickle
# whose tensors are ``torch._utils._rebuild_tensor_v2(storage, offset, size, stride, ...)`` calls
# and whose storages are persistent ids ``('storage', torch.FloatStorage, key, location, numel)``)
# plus one raw record ``archive/data/<key>`` per storage. Our rebuild functions, dtypes, Size and
# device are written under torch's global names (``_TORCH_NAMES``) and mapped back on load, so
# files move both ways between numtorch and PyTorch. Tensors viewing the same NumPy buffer share
# one storage record, so views and tied weights come back sharing memory.
"""

from __future__ import annotations

import _compat_pickle
import contextvars
import io
import os
import pickle
import types
import weakref
import zipfile
from collections import Counter, OrderedDict

import numpy as np

from . import _dtype as D
from ._device import device as _device
from . import _layout
from ._size import Size
from ._sparse_tensor import _rebuild_sparse_tensor
from ._tensor import Tensor, _make, _root_array

__all__ = [
    "save",
    "load",
    "add_safe_globals",
    "get_safe_globals",
    "clear_safe_globals",
    "safe_globals",
]

_STORAGE_NAMES = {
    "float32": "FloatStorage", "float64": "DoubleStorage", "float16": "HalfStorage", "bfloat16": "BFloat16Storage",
    "int64": "LongStorage", "int32": "IntStorage", "int16": "ShortStorage", "int8": "CharStorage",
    "uint8": "ByteStorage", "bool": "BoolStorage", "complex64": "ComplexFloatStorage",
    "complex128": "ComplexDoubleStorage",
}  # fmt: skip
_STORAGE_DTYPES = {v: getattr(D, k) for k, v in _STORAGE_NAMES.items()}
_LOAD_DEVICE: contextvars.ContextVar = contextvars.ContextVar("numtorch_load_map", default=None)


class _Storage:
    """A tensor's storage while pickling: a 1-D array over the whole buffer the tensor views."""

    __slots__ = ("array", "location", "__weakref__")

    def __init__(self, array: np.ndarray, location: str):
        self.array = array
        self.location = location

    def __reduce__(self):  # plain pickle.dumps(tensor): the bytes travel inline
        dt = self.array.dtype
        return (_rebuild_storage, (self.array.tobytes(), "bfloat16" if dt == D.bfloat16.np else dt.str))


# (id(root), dtype) -> _Storage, alive while some pickler holds it, so a buffer is saved once
_LIVE: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


def _storage_of(t: Tensor):
    """(storage, offset, stride) in elements for ``t``; shares the storage of its root buffer."""
    a = t._host()
    location = (
        "cpu"
        if t._device.type == "cpu"
        else str(t._device if t._device.index is not None else "cuda:0")
    )
    item = a.itemsize
    root = _root_array(a) if t._device.type == "cpu" else None
    if (
        root is not None
        and (root.flags.c_contiguous or root.flags.f_contiguous)
        and root.nbytes % item == 0
    ):
        off = a.__array_interface__["data"][0] - root.__array_interface__["data"][0]
        hi = (
            off + item + sum((n - 1) * s for n, s in zip(a.shape, a.strides, strict=True))
            if a.size
            else off
        )
        if (
            off % item == 0
            and all(s >= 0 and s % item == 0 for s in a.strides)
            and 0 <= off
            and hi <= root.nbytes
        ):
            key = (id(root), a.dtype.str)
            st = _LIVE.get(key)
            if st is None:
                st = _Storage(root.ravel(order="K").view(np.uint8).view(a.dtype), location)
                _LIVE[key] = st
            return st, off // item, tuple(s // item for s in a.strides)
    flat = np.ascontiguousarray(a).reshape(-1)
    stride, acc = [], 1
    for n in reversed(a.shape):
        stride.append(acc)
        acc *= n
    return _Storage(flat, location), 0, tuple(reversed(stride))


def reduce_tensor(t: Tensor):
    """``Tensor.__reduce_ex__``: rebuild from (storage, offset, size, stride), as PyTorch pickles."""
    from .nn.parameter import Parameter

    if isinstance(t, Parameter):
        data = _make(t._data, t._dtype, Tensor, t._device)
        state = {k: v for k, v in t.__dict__.items() if not k.startswith("_")}
        if state:
            return (_rebuild_parameter_with_state, (data, t._rg, OrderedDict(), state))
        return (_rebuild_parameter, (data, t._rg, OrderedDict()))
    storage, offset, stride = _storage_of(t)
    args = (storage, offset, tuple(t._data.shape), stride, t._rg, OrderedDict())
    if type(t) is not Tensor:
        state = {k: v for k, v in t.__dict__.items() if not k.startswith("_")}
        return (_rebuild_from_type_v2, (_rebuild_tensor_v2, type(t), args, state))
    return (_rebuild_tensor_v2, args)


def _rebuild_storage(data: bytes, dtype_str: str) -> np.ndarray:
    dt = D.bfloat16.np if dtype_str == "bfloat16" else np.dtype(dtype_str)  # ml_dtypes' str is '<V2'
    return np.frombuffer(bytearray(data), dtype=dt)


def _dtype_of(npd) -> D.dtype:
    # storages hold bfloat16 too, which from_numpy refuses (Note [bfloat16])
    return D.bfloat16 if npd == D.bfloat16.np else D.from_numpy_dtype(npd)


def _rebuild_tensor_v2(
    storage, storage_offset, size, stride, requires_grad, backward_hooks, metadata=None
):
    if type(storage) is _Storage:  # copy.copy(tensor): reduced but never pickled, shares memory
        storage = storage.array
    arr = np.ndarray(
        tuple(size), dtype=storage.dtype, buffer=storage, offset=storage_offset * storage.itemsize,
        strides=tuple(s * storage.itemsize for s in stride),
    )  # fmt: skip
    t = _make(arr, _dtype_of(storage.dtype))
    loader = _LOAD_DEVICE.get()
    if loader is not None:
        t = loader.place(t, storage)
    if requires_grad:
        t._rg = True
    return t


def _rebuild_parameter(data, requires_grad, backward_hooks):
    from .nn.parameter import Parameter

    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    param = _rebuild_parameter(data, requires_grad, backward_hooks)
    param.__dict__.update(state)
    return param


def _rebuild_from_type_v2(func, new_type, args, state):
    ret = func(*args)
    if type(ret) is not new_type:
        ret = ret.as_subclass(new_type)
    if state:
        if getattr(new_type, "__setstate__", None) not in (
            None,
            object.__dict__.get("__setstate__"),
        ):
            ret.__setstate__(state)
        else:
            ret.__dict__.update(state if isinstance(state, dict) else state[0])
    return ret


_TORCH_NAMES = {
    _rebuild_tensor_v2: ("torch._utils", "_rebuild_tensor_v2"),
    _rebuild_parameter: ("torch._utils", "_rebuild_parameter"),
    _rebuild_parameter_with_state: ("torch._utils", "_rebuild_parameter_with_state"),
    _rebuild_from_type_v2: ("torch._tensor", "_rebuild_from_type_v2"),
    _rebuild_sparse_tensor: ("torch._utils", "_rebuild_sparse_tensor"),
    _layout._get_layout: ("torch.serialization", "_get_layout"),
    Size: ("torch", "Size"),
    _device: ("torch", "device"),
}


class _StorageType:
    def __init__(self, name: str):
        self.name = name
        self.dtype = _STORAGE_DTYPES[name]


# ---- saving ----------------------------------------------------------------------------------
class _Pickler(pickle._Pickler):
    """The pure-Python pickler, so globals can be written under torch's names."""

    def __init__(self, file, protocol):
        super().__init__(file, protocol)
        self.storages: dict[int, tuple[str, _Storage]] = {}

    def persistent_id(self, obj):
        if type(obj) is _Storage:
            entry = self.storages.get(id(obj))
            if entry is None:
                entry = self.storages[id(obj)] = (str(len(self.storages)), obj)
            dt = _dtype_of(obj.array.dtype)
            stype = _StorageType(_STORAGE_NAMES[dt.name])
            return ("storage", stype, entry[0], obj.location, obj.array.size)
        return None

    def save_global(self, obj, name=None):
        mapped = _torch_name(obj)
        if mapped is None:
            return super().save_global(obj, name)
        module, qual = mapped
        self.write(pickle.GLOBAL + f"{module}\n{qual}\n".encode())
        self.memoize(obj)

    dispatch = dict(pickle._Pickler.dispatch)


def _torch_name(obj):
    if isinstance(obj, D.dtype):
        return ("torch", obj.name)
    if isinstance(obj, _StorageType):
        return ("torch", obj.name)
    try:
        return _TORCH_NAMES.get(obj)
    except TypeError:  # unhashable
        return None


def _save_storage_type(self, obj):
    self.save_global(obj)


_Pickler.dispatch[_StorageType] = _save_storage_type
_Pickler.dispatch[types.FunctionType] = _Pickler.save_global  # the base table binds its own


def save(obj, f, pickle_module=pickle, pickle_protocol: int = 2, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False) -> None:  # fmt: skip
    """Save ``obj`` (tensors, state dicts, optimizer states, any picklable object) to a path or
    binary file, in PyTorch's checkpoint format.

    >>> buf = io.BytesIO(); numtorch.save({"w": numtorch.ones(2)}, buf); _ = buf.seek(0)
    >>> numtorch.load(buf)["w"]
    tensor([1., 1.])
    """
    data = io.BytesIO()
    pickler = _Pickler(data, pickle_protocol)
    pickler.dump(obj)
    opened = isinstance(f, (str, os.PathLike))
    fh = open(f, "wb") if opened else f  # noqa: SIM115
    try:
        with zipfile.ZipFile(fh, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as z:
            z.writestr("archive/data.pkl", data.getvalue())
            z.writestr("archive/byteorder", "little")
            for key, st in pickler.storages.values():
                z.writestr(f"archive/data/{key}", st.array.tobytes())
            z.writestr("archive/version", "3\n")
            z.writestr("archive/.format_version", "1")
            z.writestr("archive/.storage_alignment", "64")
    finally:
        if opened:
            fh.close()


# ---- loading ---------------------------------------------------------------------------------
_safe_globals: dict[str, object] = {}


def add_safe_globals(safe_globals: list) -> None:
    """Allow these classes/functions (or ``(obj, "module.name")`` pairs) in ``weights_only`` loads."""
    for g in safe_globals:
        obj, name = g if isinstance(g, tuple) else (g, f"{g.__module__}.{g.__qualname__}")
        _safe_globals[name] = obj


def get_safe_globals() -> list:
    """The globals added by ``add_safe_globals``."""
    return list(_safe_globals.values())


def clear_safe_globals() -> None:
    """Forget every global added by ``add_safe_globals``."""
    _safe_globals.clear()


class safe_globals:
    """Context manager: ``add_safe_globals`` for the duration of the block."""

    def __init__(self, globals_list: list):
        self.globals_list = globals_list

    def __enter__(self):
        self.before = dict(_safe_globals)
        add_safe_globals(self.globals_list)

    def __exit__(self, *exc):
        _safe_globals.clear()
        _safe_globals.update(self.before)


def _allowed_globals() -> dict:
    from .nn.parameter import Parameter

    rc = {
        "collections.OrderedDict": OrderedDict, "collections.Counter": Counter,
        "torch.nn.parameter.Parameter": Parameter, "torch.Size": Size, "torch.Tensor": Tensor,
        "torch.device": _device, "_codecs.encode": _codecs_encode, "builtins.bytearray": bytearray,
        "builtins.set": set, "builtins.complex": complex,
    }  # fmt: skip
    for fn, (module, name) in _TORCH_NAMES.items():
        rc[f"{module}.{name}"] = fn
    for dt in D.ALL_DTYPES + (D.bfloat16,):
        rc[f"torch.{dt.name}"] = dt
    for name in _STORAGE_DTYPES:
        rc[f"torch.{name}"] = _StorageType(name)
    ours = (_rebuild_storage, _rebuild_tensor_v2, _rebuild_parameter, _rebuild_parameter_with_state)
    rc.update({f"numtorch._serialization.{f.__name__}": f for f in ours})
    rc.update({f"numtorch._dtype.{dt.name}": dt for dt in D.ALL_DTYPES + (D.bfloat16,)})
    rc["numtorch._size.Size"] = Size
    rc["numtorch._device.device"] = _device
    return rc


def _codecs_encode(obj, encoding="utf-8"):
    import codecs

    return codecs.encode(obj, encoding)


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, zf, weights_only: bool, **kw):
        super().__init__(file, **kw)
        self.zf = zf
        self.weights_only = weights_only
        self.allowed = _allowed_globals()
        self.loaded: dict[str, np.ndarray] = {}

    def find_class(self, module, name):
        # protocol 2 writes Python 2 names (__builtin__.set); map them as Unpickler's default does
        if (module, name) in _compat_pickle.NAME_MAPPING:
            module, name = _compat_pickle.NAME_MAPPING[(module, name)]
        elif module in _compat_pickle.IMPORT_MAPPING:
            module = _compat_pickle.IMPORT_MAPPING[module]
        full = f"{module}.{name}"
        obj = self.allowed.get(full)
        if obj is None:
            obj = _safe_globals.get(full)
        if obj is not None:
            return obj
        if self.weights_only:
            raise pickle.UnpicklingError(
                f"Unsupported global: GLOBAL {full} was not an allowed global by default. Please "
                f"use `torch.serialization.add_safe_globals([{full}])` or the `torch.serialization."
                f"safe_globals([{full}])` context manager to allowlist this global if you trust "
                "this class/function."
            )
        if module == "torch" or module.startswith("torch."):
            module = "numtorch" + module[len("torch") :]
        return super().find_class(module, name)

    def persistent_load(self, pid):
        if not isinstance(pid, tuple) or not pid or pid[0] != "storage":
            raise pickle.UnpicklingError("Only persistent_load of storage is allowed")
        _, stype, key, location, numel = pid
        arr = self.loaded.get(key)
        if arr is None:
            if self.zf is None:
                raise pickle.UnpicklingError("unsupported persistent id encountered")
            raw = self.zf.read(f"{self.prefix}data/{key}")
            dt = stype.dtype if isinstance(stype, _StorageType) else D.uint8
            arr = self.loaded[key] = np.frombuffer(bytearray(raw), dtype=dt.np)
            placer = _LOAD_DEVICE.get()
            if placer is not None:
                placer.locations[id(arr)] = str(location)
        return arr


class _Placer:
    """Applies ``map_location`` to each loaded tensor, given the location its storage was saved at."""

    def __init__(self, map_location):
        self.map_location = map_location
        self.locations: dict[int, str] = {}

    def place(self, t: Tensor, storage) -> Tensor:
        location = self.locations.get(id(storage), "cpu")
        ml = self.map_location
        if ml is None:
            target = location
        elif isinstance(ml, dict):
            target = ml.get(location, location)
        elif callable(ml) and not isinstance(ml, (str, _device)):
            r = ml(t, location)
            return r if isinstance(r, Tensor) else t
        else:
            target = ml
        dev = target if isinstance(target, _device) else _device(target)
        return t if dev.type == t._device.type else t.to(dev)


def _get_wo_message(message: str) -> str:
    return (
        "Weights only load failed. This file can still be loaded, to do so you have two options, "
        "\x1b[1mdo those steps only if you trust the source of the checkpoint\x1b[0m. \n\t(1) In "
        "PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` "
        "from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will "
        "likely succeed, but it can result in arbitrary code execution. Do it only if you got the "
        "file from a trusted source.\n\t(2) Alternatively, to load with `weights_only=True` please "
        "check the recommended steps in the following error message.\n\tWeightsUnpickler error: "
        f"{message}\n\nCheck the documentation of torch.load to learn more about types accepted by "
        "default with weights_only https://pytorch.org/docs/stable/generated/torch.load.html."
    )


def load(f, map_location=None, pickle_module=None, *, weights_only: bool | None = None, mmap=None,
         **pickle_load_args):  # fmt: skip
    """Load an object saved by ``save`` (or by ``torch.save``). With ``weights_only=True`` (the
    default) only tensors, dtypes, devices, Size, containers and primitive values are
    accepted; anything else raises ``pickle.UnpicklingError``.

    >>> buf = io.BytesIO(); numtorch.save([numtorch.arange(3)], buf); _ = buf.seek(0)
    >>> numtorch.load(buf)
    [tensor([0, 1, 2])]
    """
    weights_only = True if weights_only is None else bool(weights_only)
    opened = isinstance(f, (str, os.PathLike))
    fh = open(f, "rb") if opened else f  # noqa: SIM115
    token = _LOAD_DEVICE.set(_Placer(map_location))
    try:
        return _load(fh, weights_only, pickle_load_args)
    except pickle.UnpicklingError as e:
        if weights_only:
            raise pickle.UnpicklingError(_get_wo_message(str(e))) from None
        raise
    finally:
        _LOAD_DEVICE.reset(token)
        if opened:
            fh.close()


def _load(fh, weights_only: bool, kw):
    start = fh.tell() if fh.seekable() else 0
    if zipfile.is_zipfile(fh):
        fh.seek(start)
        with zipfile.ZipFile(fh) as zf:
            pkl = next(n for n in zf.namelist() if n.endswith("data.pkl"))
            up = _Unpickler(io.BytesIO(zf.read(pkl)), zf, weights_only, **kw)
            up.prefix = pkl[: -len("data.pkl")]
            return up.load()
    fh.seek(start)
    up = _Unpickler(fh, None, weights_only, **kw)
    up.prefix = ""
    return up.load()
