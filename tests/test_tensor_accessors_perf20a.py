"""Tensor's accessors (session 20, perf20a): Note [Self-gated accessors] (shape, dtype, device,
ndim, dim, numel, item test _tensor_tf's gate themselves), size(dim)'s inline dim wrap and
stride()'s cache (numtorch/_strides.py). Each is checked taken (a spy on the route) and against
the values NumPy gives, and handlers (a subclass, a mode) still see each call as before."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
from numtorch import _strides, _tensor
from numtorch.overrides import TorchFunctionMode, resolve_name

PROPS = ["shape", "dtype", "device", "ndim"]
METHODS = ["dim", "numel", "item"]


def _cases():
    base = torch.arange(24, dtype=torch.float32).reshape(2, 3, 4)
    yield base
    yield base.transpose(0, 2)  # non-contiguous
    yield base[:, ::2]
    yield torch.tensor(2.5)  # 0-d
    yield torch.empty(0, 3)
    yield torch.ones(3, dtype=torch.bfloat16)
    yield torch.ones(2, 2, dtype=torch.complex64)
    yield torch.tensor([True, False])
    yield torch.arange(5)


@pytest.fixture
def routes():
    calls = []
    real = _tensor._ROUTE[0]

    def counted(self, name):
        calls.append(name)
        return real(self, name)

    _tensor._ROUTE[0] = counted
    try:
        yield calls
    finally:
        _tensor._ROUTE[0] = real


@pytest.mark.parametrize("x", list(_cases()), ids=lambda x: f"{tuple(x.shape)}-{x.dtype}")
def test_accessors_match_numpy_without_routing(x, routes):
    a = x._data
    assert x.shape == a.shape and type(x.shape) is torch.Size
    assert x.dtype is x._dtype and x.device == torch.device("cpu")
    assert x.ndim == a.ndim == x.dim()
    assert x.numel() == a.size
    if a.size == 1:
        assert x.item() == a.reshape(()).item()
    assert routes == []  # plain tensors never ask the route
    isz = a.itemsize
    want = tuple(s // isz for s in a.strides)
    if not a.size and a.ndim and not any(want):
        want = _tensor._contiguous_strides(a.shape)
    assert x.stride() == want
    assert x.stride() == want  # the cached answer is the same
    for d in range(-a.ndim, a.ndim):
        assert x.size(d) == a.shape[d]
        assert x.stride(d) == want[d]


def test_size_and_item_errors_unchanged():
    x = torch.zeros(2, 3)
    with pytest.raises(
        IndexError,
        match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)",
    ):
        x.size(2)
    with pytest.raises(IndexError, match=r"but got -3\)"):
        x.size(-3)
    with pytest.raises(TypeError, match="must be int, not bool"):
        x.size(True)
    with pytest.raises(
        RuntimeError, match="a Tensor with 6 elements cannot be converted to Scalar"
    ):
        x.item()
    assert x.size(np.int64(1)) == 3  # not an int: the general path


def test_stride_cache_is_bounded(monkeypatch):
    monkeypatch.setattr(_strides, "STRIDES", {})
    monkeypatch.setattr(_tensor, "_STRIDES", _strides.STRIDES)
    monkeypatch.setattr(_strides, "_MAX", 4)
    for n in range(1, 12):
        t = torch.zeros(n, n + 1)
        assert t.stride() == (n + 1, 1)
        assert len(_strides.STRIDES) <= 4


class Logged(torch.Tensor):
    seen: list = []

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        cls.seen.append(func)
        if func is torch.Tensor.dim:
            return 99  # a handler's answer is returned as is
        return super().__torch_function__(func, types, args, kwargs or {})


def test_subclass_handler_sees_each_accessor(routes):
    x = torch.ones(2, 3).as_subclass(Logged)
    Logged.seen.clear()
    assert x.dim() == 99
    assert x.shape == (2, 3) and x.dtype is torch.float32 and x.ndim == 2 and x.numel() == 6
    assert x.device == torch.device("cpu")
    assert x.ndimension() == 2 and x.nelement() == 6
    want = [
        torch.Tensor.dim,
        torch.Tensor.shape.__get__,
        torch.Tensor.dtype.__get__,
        torch.Tensor.ndim.__get__,
        torch.Tensor.numel,
        torch.Tensor.device.__get__,
        torch.Tensor.ndimension,
        torch.Tensor.nelement,
    ]
    assert Logged.seen[: len(want)] == want
    # each routed once, then again by the handler's own call (subclass dispatch off: the body)
    assert list(dict.fromkeys(routes)) == ["dim", "shape", "dtype", "ndim", "numel", "device"]
    y = torch.tensor([1.5]).as_subclass(Logged)
    Logged.seen.clear()
    assert y.item() == 1.5 and Logged.seen[0] is torch.Tensor.item


def test_mode_sees_accessors_of_a_plain_tensor():
    seen = []

    class M(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(resolve_name(func))
            return func(*args, **(kwargs or {}))

    x = torch.tensor([2.0])
    with M():
        assert (x.shape, x.dtype, x.device, x.ndim, x.dim(), x.numel(), x.item()) == (
            (1,), torch.float32, torch.device("cpu"), 1, 1, 1, 2.0)  # fmt: skip
        x.size(0)
        x.stride()
    assert seen == [
        "torch.Tensor.shape.__get__",
        "torch.Tensor.dtype.__get__",
        "torch.Tensor.device.__get__",
        "torch.Tensor.ndim.__get__",
        "torch.Tensor.dim",
        "torch.Tensor.numel",
        "torch.Tensor.item",
        "torch.Tensor.size",
        "torch.Tensor.stride",
    ]


def test_parameter_takes_the_body():
    p = torch.nn.Parameter(torch.ones(2, 3))
    assert (p.shape, p.dtype, p.ndim, p.dim(), p.numel()) == ((2, 3), torch.float32, 2, 2, 6)
    assert torch.nn.Parameter(torch.tensor(3.0)).item() == 3.0


def test_item_under_dispatch_mode_and_library_kernel():
    from numtorch.utils._python_dispatch import TorchDispatchMode

    seen = []

    class D(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))

    with D():
        assert torch.tensor(4.0).item() == 4.0
    assert any("_local_scalar_dense" in s for s in seen)
    lib = torch.library.Library("aten", "IMPL")
    called = []

    def kernel(self):
        called.append(1)
        return 7.0

    try:
        lib.impl("_local_scalar_dense", kernel, "CPU")
        assert torch.tensor(4.0).item() == 7.0
    finally:
        lib._destroy()
    assert called == [1]
    assert torch.tensor(4.0).item() == 4.0
