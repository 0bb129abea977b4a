"""as_strided's backward geometry (ops/shape/_geometry.py): the index array as a strided view of
an arange, the storage extent without a reduction; both against the element-by-element
definition, and gradients of overlapping, sparse and offset geometries."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops.shape import _geometry as G


def _reference(size, stride, offset):
    idx = np.empty(tuple(size), np.int64)
    for pos in itertools.product(*(range(n) for n in size)):
        idx[pos] = offset + sum(i * s for i, s in zip(pos, stride, strict=True))
    return idx


GEOMETRIES = [
    ((2, 2), (1, 2), 0), ((3, 4), (4, 1), 0), ((2, 3), (0, 1), 5), ((4,), (3,), 2), ((), (), 7),
    ((2, 0, 3), (1, 1, 1), 0), ((3, 3), (1, 1), 1), ((2, 2, 2), (0, 0, 0), 3), ((5, 1), (2, 100), 0),
    ((2, 2), (1, 1 << 17), 0), ((1,), (0,), 0),
]  # fmt: skip


@pytest.mark.parametrize("size, stride, offset", GEOMETRIES)
def test_geometry_index_is_the_definition(size, stride, offset):
    idx = G._geometry_index(list(size), list(stride), offset)
    want = _reference(size, stride, offset)
    assert idx.dtype == np.int64 and idx.shape == want.shape
    np.testing.assert_array_equal(idx, want)
    assert G._last(idx, size, stride, offset) == int(want.max(initial=0))


def test_small_geometries_are_views_of_an_arange():
    idx = G._geometry_index([2, 2], [1, 2], 0)
    assert isinstance(idx.base, np.ndarray) and idx.base.ndim == 1  # no per-dim adds
    far = G._geometry_index([2, 2], [1, 1 << 17], 0)  # spans far more than it holds: computed
    assert far.base is None or far.base.size <= 4


@pytest.mark.parametrize("size, stride, offset", [((2, 2), (1, 2), 0), ((3, 2), (1, 1), 1), ((2, 3), (0, 2), 2),
                                                  ((2, 2), (3, 1), 0)])  # fmt: skip
def test_as_strided_gradients(size, stride, offset):
    x = torch.randn(12, dtype=torch.float64, requires_grad=True)
    f = lambda t: torch.as_strided(t, size, stride, offset)  # noqa: E731
    assert torch.autograd.gradcheck(f, (x,))
    assert torch.autograd.gradgradcheck(f, (x,))
    y = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    g = torch.randn(*size, dtype=torch.float64)
    (gx,) = torch.autograd.grad(torch.as_strided(y, size, stride, offset), y, g)
    want = np.zeros(12)
    np.add.at(want, _reference(size, stride, offset).reshape(-1), g.numpy().reshape(-1))
    np.testing.assert_array_equal(gx.numpy().reshape(-1), want)
