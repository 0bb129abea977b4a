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
