"""Helpers of the fast-call tests (tests/ops/test_fft_fast.py, tests/ops/linalg/test_*_fast.py):
a public binding with its fast call, an outcome that is a result or (exception type, text), and
the comparison of a fast call's outcome with its body's."""

from __future__ import annotations

import warnings

import numtorch as torch
from numtorch.ops._registry import BINDINGS
from numtorch.utils._python_dispatch import TorchDispatchMode


def binding(name, module="torch"):
    (b,) = [b for b in BINDINGS if b.module == module and b.name == name]
    assert b.fast is not None, "no fast call installed"
    return b


def outcome(fn, *args):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*args)
    except Exception as e:  # noqa: BLE001  (both routes must raise alike)
        return (type(e), str(e))


def same(r, want):
    """The same exception, or tensors of one shape, dtype and strides, bit for bit."""
    if isinstance(want, tuple):
        assert r == want
        return
    assert r.shape == want.shape and r.dtype == want.dtype and r.stride() == want.stride()
    assert r._data.tobytes() == want._data.tobytes()  # storage bits (bfloat16 has no numpy())


def same_view(r, want, x):
    """The same exception, or the body's view of ``x``: shape, strides, offset, storage, base,
    version counter and values."""
    if isinstance(want, tuple):
        assert r == want
        return
    assert r.shape == want.shape and r.stride() == want.stride() and r.dtype == want.dtype
    assert r.storage_offset() == want.storage_offset()
    assert r.untyped_storage().data_ptr() == want.untyped_storage().data_ptr()
    assert r._base is (x if x._base is None else x._base) and r._base is want._base
    assert r._version == x._version and r._is_view()
    assert torch.equal(r, want)


class BodyMode(TorchDispatchMode):
    """A pass-through dispatch mode: under any mode a fast call declines, so a call made in one
    runs its body (the reference the fast route is compared with)."""

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))
