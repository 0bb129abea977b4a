"""Note [Dense empty_strided]: strides that are NumPy's C or F layout of the sizes (all > 0)
give one ``np.empty(size, order=...)``: the body's shape, strides, dtype, contiguity and storage
size; every other stride set takes the buffer and view as the body does, with its errors."""

from __future__ import annotations

import pytest

import numtorch as torch
from numtorch._tensor import _root_array
from numtorch.ops._registry import BINDINGS
from numtorch.ops.factory.fast import _c_layout

DTYPES = [
    torch.float32,
    torch.float64,
    torch.float16,
    torch.bool,
    torch.int8,
    torch.uint8,
    torch.int16,
    torch.int32,
    torch.int64,
    torch.complex64,
    torch.complex128,
]
DENSE = [
    ((2, 3), (1, 2)),
    ((2, 3), (3, 1)),
    ((4,), (1,)),
    ((), ()),
    ((1,), (1,)),
    ((2, 1, 3), (3, 3, 1)),
    ((2, 1, 3), (1, 2, 2)),
    ((2, 3, 4), (12, 4, 1)),
    ((2, 3, 4), (1, 2, 6)),
    ((1, 1), (1, 1)),
    ([5, 2], [1, 5]),
    ((3, 2, 2, 2), (8, 4, 2, 1)),
]
OTHER = [
    ((2, 3), (1, 3)),
    ((2, 3), (4, 1)),
    ((2, 3), (0, 1)),
    ((2, 3), (1, 1)),
    ((2, 1, 3), (3, 5, 1)),
    ((2, 1, 3), (1, 7, 2)),
    ((2, 3, 4), (4, 1, 12)),
    ((2, 3, 4), (3, 1, 6)),
    ((2, 0), (0, 1)),
    ((0, 3), (3, 1)),
    ((2, 2, 2), (1, 1, 5)),
    ((3,), (2,)),
]
ERRORS = [
    ((2, 3), (1, -2)),
    ((2, 3), (1,)),
    ((-1, 3), (3, 1)),
    ((2.0, 3), (3, 1)),
    ((2, 3), (True, 1)),
]


def _body(module, name):
    (b,) = [b for b in BINDINGS if b.module == module and b.name == name]
    return b.body


def _outcome(fn, *args, **kw):
    try:
        return fn(*args, **kw)
    except Exception as e:  # noqa: BLE001  (both routes must raise alike)
        return (type(e), str(e))


def _same(r, want):
    if isinstance(want, tuple):
        assert r == want
        return
    assert r.shape == want.shape and r.stride() == want.stride() and r.dtype == want.dtype
    assert r.storage_offset() == want.storage_offset() == 0
    assert r.untyped_storage().nbytes() == want.untyped_storage().nbytes()
    assert r.is_contiguous() == want.is_contiguous()
    assert r._data.flags.c_contiguous == want._data.flags.c_contiguous
    assert r._data.flags.f_contiguous == want._data.flags.f_contiguous
    assert r._base is None and r._version == 0 and r.device == want.device
    # the storage is the tensor's memory (Note [Storage is the root NumPy buffer]), not a copy
    assert r.untyped_storage().data_ptr() == r.data_ptr()
    assert _root_array(r._data).flags.c_contiguous
    if r.numel():
        s = r.untyped_storage()
        r.fill_(1)
        s.fill_(0)
        assert not (r != 0).any()  # a write through the storage reaches the tensor


def _calls(size, stride, dt):
    src = torch.zeros(2, dtype=torch.float64)
    body, nbody = _body("torch", "empty_strided"), _body("Tensor", "new_empty_strided")
    yield (_outcome(torch.empty_strided, size, stride, dtype=dt),
           _outcome(body, size, stride, dt, None, None, False, False))  # fmt: skip
    yield (_outcome(src.new_empty_strided, size, stride, dtype=dt),
           _outcome(nbody, src, size, stride, dt, None, False, None, False))  # fmt: skip


@pytest.mark.parametrize("dt", DTYPES, ids=str)
def test_dense_layouts_are_one_allocation(dt):
    for size, stride in DENSE:
        for r, want in _calls(size, stride, dt):
            _same(r, want)
            assert want._data.base is not None and want._data.base.ndim == 1  # the body's buffer
            if len(size) > 1 and _c_layout(size[::-1], stride[::-1]):  # F: np.empty(reversed).T
                root = r._data.base
                assert root.base is None and root.shape == tuple(size)[::-1]
            else:  # C: np.empty's own array, no view over a buffer
                assert _c_layout(size, stride) and r._data.base is None


@pytest.mark.parametrize("dt", DTYPES, ids=str)
def test_other_layouts_take_the_buffer_and_view(dt):
    for size, stride in OTHER:
        for r, want in _calls(size, stride, dt):
            _same(r, want)
            assert r._data.base is not None


def test_errors_and_declines_are_the_body():
    for size, stride in ERRORS:
        for r, want in _calls(size, stride, None):
            assert isinstance(want, tuple) and r == want
    r = torch.empty_strided((2, 3), (1, 2), dtype=torch.bfloat16)  # bfloat16: the body's route
    assert r.stride() == (1, 2) and r.dtype == torch.bfloat16
    g = torch.empty_strided((2, 3), (1, 2), requires_grad=True)
    assert g.requires_grad and g.stride() == (1, 2)


def test_writes_and_views_of_a_dense_result():
    t = torch.empty_strided((2, 3), (1, 2))
    t.copy_(torch.arange(6.0).reshape(2, 3))
    assert t.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] and t._version == 1
    assert t.t().is_contiguous() and t.t().stride() == (2, 1)
    assert t.contiguous().stride() == (3, 1)
