"""Note [Narrow rows by columns] in diag_embed's and block_diag's fast calls: many narrow rows
written into a strided region of the zero result are copied one column at a time; values,
dtype, shape and strides as the body's, and the route taken only where it pays."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops._registry import BINDINGS
from numtorch.ops.linalg import _fast_small as fs
from numtorch.ops.linalg.decomp import _block_diag_composite
from numtorch.ops.shape import fast_copies as fc

DTYPES = [np.float32, np.float64, np.int8, np.int64, np.bool_, np.complex64]


def _same(r, want):
    assert r.shape == want.shape and r.dtype == want.dtype and r.stride() == want.stride()
    assert r._data.tobytes() == want._data.tobytes()


def _x(shape, dtype, seed=1):
    a = np.random.default_rng(seed).standard_normal(shape) * 100
    if np.dtype(dtype).kind == "c":
        a = a + 1j * a
    return torch.from_numpy(np.asarray(a.astype(dtype)))


def _diag_embed_body():
    (b,) = [b for b in BINDINGS if b.module == "torch" and b.name == "diag_embed"]
    return b.body


@pytest.mark.parametrize("dtype", DTYPES)
def test_diag_embed_narrow_rows_by_columns(dtype, monkeypatch):
    calls = []
    real = fc._copyto
    monkeypatch.setattr(fc, "_copyto", lambda *a, **k: calls.append(1) or real(*a, **k))
    body = _diag_embed_body()
    for shape, offset in [((5000, 3), 0), ((4096, 2), 1), ((5000, 4), -2), ((3, 1500, 3), 0), ((4100, 3), 3)]:
        x = _x(shape, dtype)
        r = torch.diag_embed(x, offset)
        calls_before = len(calls)
        _same(r, body(x, offset, -2, -1))
        assert len(calls) == calls_before  # (the body writes its own way)
    assert len(calls) == 3 + 2 + 4 + 3 + 3  # one copy a column
    calls.clear()
    for shape in [(4095, 3), (5000, 5), (5000, 1), (2, 3)]:
        x = _x(shape, dtype)
        _same(torch.diag_embed(x), body(x, 0, -2, -1))
    assert not calls  # too few rows, too wide, one column, small: one NumPy assignment


@pytest.mark.parametrize("dtype", DTYPES)
def test_block_diag_narrow_rows_by_columns(dtype, monkeypatch):
    calls = []
    real = fs.by_columns
    monkeypatch.setattr(fs, "by_columns", lambda *a: calls.append(a[1].shape) or real(*a))
    cases = [
        [(5000, 3), (1, 2)],
        [(4096, 2), (5000, 4), (3,)],
        [(4095, 3), (5000, 5), (5000, 1), ()],
    ]
    for shapes in cases:
        ts = [_x(s, dtype, i) for i, s in enumerate(shapes)]
        _same(torch.block_diag(*ts), _block_diag_composite(ts))
    assert calls == [(5000, 3), (4096, 2), (5000, 4)]


def test_block_diag_records_through_the_body():
    a = torch.randn(5000, 3, dtype=torch.float64, requires_grad=True)
    b = torch.randn(2, 2, dtype=torch.float64, requires_grad=True)
    r = torch.block_diag(a, b)
    assert r.grad_fn is not None
    torch.autograd.gradcheck(lambda u, v: torch.block_diag(u, v), (a[:5].detach().requires_grad_(), b))
