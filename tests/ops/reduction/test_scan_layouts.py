"""Note [Scan layouts]: a repeated float cumsum/cumprod of one shape and dim runs the kernel on
the kept layout; bit for bit the general route's result, which every other call still takes."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops.reduction import scan

from .._fastcall import binding


def _run(fn, x, dim, dtype=None):
    # the op's body: a plain public call takes the binding's fast call instead (Note [Scan
    # binding fast calls]), which keeps its own layouts
    return binding(fn).body(x, dim, dtype, None)


@pytest.mark.parametrize("fn", ["cumsum", "cumprod"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,dim", [((2, 3, 4), 1), ((2, 3, 4), -1), ((2, 3, 4), 0), ((7,), 0), ((5, 1), 1)])
def test_kept_layout_matches_the_general_route(fn, dtype, shape, dim):
    rng = np.random.default_rng(4)
    a = (rng.standard_normal(shape) + 0.5).astype(dtype)
    scan._SCAN_SHAPES.clear()
    first = _run(fn, torch.from_numpy(a), dim)  # the general route, which keeps the layout
    assert (shape, dim) in scan._SCAN_SHAPES
    again = _run(fn, torch.from_numpy(a.copy()), dim)
    assert again.dtype == first.dtype and again.shape == first.shape
    assert again.numpy().tobytes() == first.numpy().tobytes()
    ref = getattr(np, fn)(a.astype(np.float64), axis=dim).astype(dtype)
    np.testing.assert_allclose(again.numpy(), ref, rtol=1e-6)


def test_other_calls_take_the_general_route():
    a = np.arange(1.0, 13.0, dtype=np.float32).reshape(3, 4)
    scan._SCAN_SHAPES.clear()
    t = torch.from_numpy(a)
    _run("cumsum", t, 1)
    r = _run("cumsum", t.t().contiguous().t(), 1)  # not C-contiguous
    np.testing.assert_array_equal(r.numpy(), np.cumsum(a, 1))
    assert _run("cumsum", t, 1, torch.float64).dtype == torch.float64
    assert _run("cumsum", t.to(torch.int32), 1).dtype == torch.int64
    with pytest.raises(IndexError, match="Dimension out of range"):
        _run("cumsum", t, 2)
    assert len(scan._SCAN_SHAPES) == 1
    g = t.clone().requires_grad_(True)
    torch.cumsum(g, 1).sum().backward()
    np.testing.assert_array_equal(g.grad.numpy(), np.array([[4, 3, 2, 1]] * 3, np.float32))
