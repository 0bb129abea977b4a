"""numtorch/ops/shape/view_copies.py: each ``*_copy`` equals its view but shares no memory and is
contiguous; each ``*_scatter`` against NumPy; gradients by gradcheck; errors; out=."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch.autograd import gradcheck

_CASES = [
    ("alias_copy", "detach", ()),
    ("as_strided_copy", "as_strided", ((2, 2), (1, 3), 1)),
    ("detach_copy", "detach", ()),
    ("diagonal_copy", "diagonal", (1,)),
    ("expand_copy", "expand", ((2, 3, 4),)),
    ("narrow_copy", "narrow", (1, 1, 2)),
    ("permute_copy", "permute", ((1, 0),)),
    ("select_copy", "select", (0, 2)),
    ("slice_copy", None, (1, 1, 4, 2)),
    ("t_copy", "t", ()),
    ("transpose_copy", "transpose", (0, 1)),
    ("unfold_copy", "unfold", (1, 2, 1)),
    ("unsqueeze_copy", "unsqueeze", (1,)),
    ("view_copy", "view", ((4, 3),)),
    ("squeeze_copy", "squeeze", ()),
]


@pytest.mark.parametrize("name, view, args", _CASES, ids=[c[0] for c in _CASES])
def test_copy_equals_the_view_and_owns_its_memory(name, view, args):
    x = numtorch.tensor(np.arange(12.0).reshape(3, 4))
    want = x[:, 1:4:2] if view is None else getattr(numtorch, view)(x, *args) if hasattr(numtorch, view) else getattr(x, view)(*args)
    got = getattr(numtorch, name)(x, *args)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert got.is_contiguous() and got._base is None
    got.fill_(-1.0) if got.numel() else None
    np.testing.assert_array_equal(x.numpy(), np.arange(12.0).reshape(3, 4))


def test_list_copies_and_view_as_real():
    x = numtorch.arange(5)
    assert [t.tolist() for t in numtorch.split_copy(x, 2)] == [[0, 1], [2, 3], [4]]
    assert [t.tolist() for t in numtorch.split_with_sizes_copy(x, [1, 4])] == [[0], [1, 2, 3, 4]]
    rows = numtorch.unbind_copy(numtorch.eye(2), 1)
    assert isinstance(rows, tuple) and rows[0].tolist() == [1.0, 0.0]
    z = numtorch.tensor([1 + 2j])
    r = numtorch.view_as_real_copy(z)
    assert r.tolist() == [[1.0, 2.0]] and r._base is None
    assert numtorch.view_as_complex_copy(r).tolist() == [1 + 2j]


def test_copies_differentiate_like_their_views():
    x = numtorch.tensor(np.random.default_rng(0).standard_normal((3, 4)), requires_grad=True)
    assert gradcheck(lambda t: numtorch.transpose_copy(t, 0, 1), (x,))
    assert gradcheck(lambda t: numtorch.slice_copy(t, 1, 1, 3), (x,))
    assert gradcheck(lambda t: numtorch.split_copy(t, 2, 1)[1], (x,))


def test_scatters_match_numpy_and_leave_the_input_alone():
    a = np.arange(16.0).reshape(4, 4)
    x = numtorch.tensor(a)
    want = a.copy()
    want[:, 2] = -1
    np.testing.assert_array_equal(numtorch.select_scatter(x, -numtorch.ones(4, dtype=numtorch.float64), 1, 2).numpy(), want)
    want = a.copy()
    want[1:4:2] = 0
    np.testing.assert_array_equal(numtorch.slice_scatter(x, numtorch.zeros(2, 4, dtype=numtorch.float64), 0, 1, 4, 2).numpy(), want)
    want = a.copy()
    want[[0, 1, 2], [1, 2, 3]] = 7
    np.testing.assert_array_equal(numtorch.diagonal_scatter(x, numtorch.full((3,), 7.0, dtype=numtorch.float64), 1).numpy(), want)
    want = a.copy().ravel()
    want[[1, 3]] = 5
    got = numtorch.as_strided_scatter(x, numtorch.full((2,), 5.0, dtype=numtorch.float64), (2,), (2,), 1)
    np.testing.assert_array_equal(got.numpy().ravel(), want)
    np.testing.assert_array_equal(x.numpy(), a)
    assert x.select_scatter(numtorch.zeros(4, dtype=numtorch.float64), 0, 0)[0].sum().item() == 0


def test_scatter_gradients_and_errors():
    rng = np.random.default_rng(1)
    x = numtorch.tensor(rng.standard_normal((3, 3)), requires_grad=True)
    s = numtorch.tensor(rng.standard_normal(3), requires_grad=True)
    assert gradcheck(lambda a, b: numtorch.diagonal_scatter(a, b), (x, s))
    assert gradcheck(lambda a, b: numtorch.select_scatter(a, b, 0, 1), (x, s))
    with pytest.raises(RuntimeError, match=r"expected src to have a size equal to the slice of self. src size = \[3\], slice size = \[2\]"):
        numtorch.select_scatter(numtorch.zeros(2, 2), numtorch.ones(3), 0, 0)


def test_out_argument():
    out = numtorch.empty(0)
    r = numtorch.t_copy(numtorch.ones(2, 3), out=out)
    assert r is out and out.shape == (3, 2)
    out = numtorch.empty(0)
    assert numtorch.slice_scatter(numtorch.zeros(4), numtorch.ones(2), start=2, out=out) is out
    assert out.tolist() == [0.0, 0.0, 1.0, 1.0]
