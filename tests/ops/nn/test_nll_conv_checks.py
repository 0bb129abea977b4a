"""nll_loss2d and convolution read their operands' array attributes (not the public .dim())
and take flat views of contiguous data: the same values and error texts on every layout."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
import numtorch.nn.functional as F


def _ref_nll(x, t, reduction="mean"):
    n, c, h, w = x.shape
    picked = -np.take_along_axis(x, t[:, None], axis=1)[:, 0]
    return {"mean": picked.mean(), "sum": picked.sum(), "none": picked}[reduction]


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("layout", ["contiguous", "strided input", "strided target", "uint8 target", "float64"])
def test_nll2d_values_on_every_layout(reduction, layout):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    t = rng.integers(0, 3, (2, 4, 5))
    xt, tt = torch.from_numpy(x), torch.from_numpy(t)
    if layout == "strided input":
        xt = torch.from_numpy(np.ascontiguousarray(x.transpose(0, 1, 3, 2))).transpose(2, 3)
    elif layout == "strided target":
        tt = torch.from_numpy(np.ascontiguousarray(t.transpose(0, 2, 1))).transpose(1, 2)
    elif layout == "uint8 target":
        tt = tt.to(torch.uint8)
    elif layout == "float64":
        xt, x = xt.double(), x.astype(np.float64)
    r = F.nll_loss(xt, tt, reduction=reduction)
    np.testing.assert_allclose(r.numpy(), _ref_nll(x, t, reduction), rtol=1e-6)


def test_nll2d_errors():
    x = torch.randn(2, 3, 4, 5)
    with pytest.raises(RuntimeError, match="only batches of spatial targets supported \\(3D tensors\\) but got targets of dimension: 2"):
        torch.ops.aten.nll_loss2d_forward(x, torch.zeros(2, 4, dtype=torch.int64), None, 1, -100)
    with pytest.raises(RuntimeError, match="only batches of spatial inputs supported \\(4D tensors\\), but got input of dimension: 3"):
        torch.ops.aten.nll_loss2d_forward(x[0], torch.zeros(2, 4, 5, dtype=torch.int64), None, 1, -100)
    with pytest.raises(RuntimeError, match="expected target dtype to be Long or Byte, but got Int"):
        F.nll_loss(x, torch.zeros(2, 4, 5, dtype=torch.int32))
    with pytest.raises(IndexError, match="Target 7 is out of bounds."):
        F.nll_loss(x, torch.full((2, 4, 5), 7, dtype=torch.int64))


def test_convolution_checks_read_the_arrays():
    x, w = torch.randn(2, 3, 6, 7), torch.randn(4, 3, 1, 1)
    with pytest.raises(RuntimeError, match="Expected 4-dimensional input for 4-dimensional weight \\[4, 3, 1, 1\\], but got 3-dimensional input of size \\[3, 6, 7\\] instead"):
        torch.convolution(x[0], w, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1)
    with pytest.raises(RuntimeError, match="negative padding is not supported"):
        torch.convolution(x, w, None, [1, 1], [-1, 0], [1, 1], False, [0, 0], 1)
    with pytest.raises(RuntimeError, match="non-positive dilation is not supported"):
        torch.convolution(x, w, None, [1, 1], [0, 0], [1, 0], False, [0, 0], 1)
    with pytest.raises(RuntimeError, match="expected bias to be 1-dimensional with 4 elements, but got bias of size \\[2, 2\\]"):
        F.conv2d(x, w, torch.ones(2, 2))
    r = F.conv2d(x, w, torch.ones(4))
    ref = np.einsum("nchw,oc->nohw", x.numpy(), w.numpy()[:, :, 0, 0]) + 1
    np.testing.assert_allclose(r.numpy(), ref, rtol=1e-5, atol=1e-6)


def test_expand_param_forms():
    from numtorch.ops.nn.conv import expand_param

    assert expand_param([2, 3], "stride", 2) == [2, 3]
    v = [1, 1]
    assert expand_param(v, "stride", 2) is not v  # a new list, as before
    assert expand_param((2, 3), "stride", 2) == [2, 3]
    assert expand_param([4], "padding", 2) == [4, 4]
    assert expand_param(np.int64(2), "dilation", 2) == [2, 2]
    assert expand_param([True, 2], "stride", 2) == [1, 2]
    with pytest.raises(RuntimeError, match="expected stride to be a single integer value or a list of 2 values"):
        expand_param([1, 2, 3], "stride", 2)
