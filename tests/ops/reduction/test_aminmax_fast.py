"""aminmax over one layout (``_reduce.extremes``) and the general path's serial kernel entries
(Note [Serial reduction entries]): the same values as amin and amax, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops.reduction import _reduce as E


def _x(dtype):
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((3, 4, 5)) * 10).astype(dtype)
    if np.dtype(dtype).kind == "f":
        x[0, 1, 2] = np.nan
        x[1, 2, :] = 0.0
        x[1, 2, ::2] = -0.0  # signed-zero ties
    return x


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.int8, np.uint8, np.float16])
@pytest.mark.parametrize("dim", [None, 0, 1, 2, -1, -3])
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "sliced"])
def test_aminmax_is_amin_and_amax(dtype, dim, keepdim, layout):
    t = torch.from_numpy(_x(dtype))
    t = {"contiguous": t, "transposed": t.transpose(0, 2), "sliced": t[:, 1:, ::2]}[layout]
    lo, hi = torch.aminmax(t, dim=dim, keepdim=keepdim)
    dims = [] if dim is None else dim
    for got, ref in ((lo, torch.amin(t, dims, keepdim)), (hi, torch.amax(t, dims, keepdim))):
        assert got.dtype == ref.dtype and got.shape == ref.shape
        assert got.numpy().tobytes() == ref.numpy().tobytes()


def test_aminmax_one_dim_uses_the_cached_layout():
    E._EXT_SHAPES.clear()
    t = torch.from_numpy(_x(np.float32))
    torch.aminmax(t, dim=1)
    assert ((3, 4, 5), 1, False) in E._EXT_SHAPES
    torch.aminmax(t.transpose(0, 2), dim=1)  # not C-contiguous: the general layout
    assert len(E._EXT_SHAPES) == 1


def test_aminmax_empty_and_errors_are_the_ops():
    e = torch.empty(0, 3)
    lo, hi = torch.aminmax(e, dim=1)
    assert lo.shape == hi.shape == (0,)
    with pytest.raises(IndexError, match="Expected reduction dim 0 to have non-zero size"):
        torch.aminmax(e, dim=0)
    with pytest.raises(IndexError, match="Dimension out of range"):
        torch.aminmax(torch.ones(2, 3), dim=2)
    lo, hi = torch.aminmax(torch.ones(2, 3), dim=torch.tensor(1))
    assert lo.tolist() == [1.0, 1.0] and hi.tolist() == [1.0, 1.0]


def test_serial_entries_are_learned_and_match_the_dispatcher():
    from numtorch.ops.reduction.core import _AMAX

    E._SERIAL.clear()
    x = _x(np.float64)
    t = torch.from_numpy(x)
    first = torch.amax(t, [0, 2])  # the general path (a list of dims)
    mod = _AMAX.module()
    assert mod.col in E._SERIAL or mod.row in E._SERIAL
    again = torch.amax(t, [0, 2])
    assert again.numpy().tobytes() == first.numpy().tobytes()
    np.testing.assert_array_equal(again.numpy(), np.max(x, axis=(0, 2)))
    big = np.asarray(x, x.dtype.newbyteorder())  # non-native input: kernel_input keeps it; the dispatcher
    np.testing.assert_array_equal(torch.amax(torch.from_numpy(big.astype(np.float64)), [0, 2]).numpy(), again.numpy())
