"""Shape-op regressions found by differential fuzzing against PyTorch (issue 10)."""

import numtorch


def _writes_reach(x, y):
    before = x.clone()
    y.fill_(-1.0)
    return bool((x != before).any())


def test_ravel_copies_a_non_contiguous_input():
    # at::ravel is contiguous().view(-1): even a viewable strided input is copied
    x = numtorch.arange(12.0).reshape(3, 4)
    for y in (x[:, ::2].ravel(), x[:, :1].ravel(), x.t().ravel(), x.view(12)[::3].ravel()):
        assert y.is_contiguous()
        assert not _writes_reach(x, y)
    assert _writes_reach(x, x.ravel())


def test_reshape_and_flatten_view_a_viewable_strided_input():
    x = numtorch.arange(12.0).reshape(3, 4)
    y = x[:, ::2].flatten()
    assert y.stride() == (2,) and _writes_reach(x, y)
    assert not _writes_reach(x, x.t().reshape(12))


def test_repeat_and_tile_of_0d_with_no_dims_stay_0d():
    x = numtorch.tensor(3.0)
    assert x.repeat(()).shape == () and x.tile(()).shape == ()
    assert x.repeat(()).item() == 3.0


def test_diff_of_order_zero_ignores_prepend_and_append():
    x = numtorch.arange(3.0)
    r = numtorch.diff(x, n=0, prepend=numtorch.tensor([9.0]), append=numtorch.tensor([7.0]))
    assert r.tolist() == [0.0, 1.0, 2.0]
