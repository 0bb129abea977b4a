"""Note [Whole-plane means eight planes at a time]: adaptive_avg_pool2d to 1x1 sums eight
planes per pass, each in the plane's own left-to-right order (the P % 8 remainder four and one
at a time), so the values are the row-by-row running sum over the count, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
import numtorch.nn.functional as F

from .test_pool_windows_perf18f import _ref_adaptive


@pytest.mark.parametrize("dt", ["float32", "float64"])
@pytest.mark.parametrize("planes", [1, 7, 8, 9, 12, 16, 21])
def test_whole_plane_means_match_the_running_sum(dt, planes):
    rng = np.random.default_rng(planes)
    for hw in [(1, 1), (5, 6), (3, 17)]:
        # magnitudes 1e-8..1e8: any other order of the additions changes the last bits
        a = (
            rng.standard_normal((planes, *hw)) * 10.0 ** rng.integers(-8, 9, (planes, *hw))
        ).astype(dt)
        a.flat[::11] = -0.0
        want, _ = _ref_adaptive(a, (1, 1), False)
        for x in (a, a.reshape(1, planes, *hw)):
            got = F.adaptive_avg_pool2d(torch.from_numpy(x), 1)
            assert got.numpy().tobytes() == want.reshape(got.shape).tobytes()
            with torch.no_grad():  # the op below the F binding and its fast call
                xg = torch.from_numpy(x).requires_grad_(True)
                body = torch.ops.aten._adaptive_avg_pool2d(xg, [1, 1])
            assert body.detach().numpy().tobytes() == got.numpy().tobytes()


def test_nan_and_inf_reach_only_their_plane():
    a = np.ones((10, 4, 4), np.float32)
    a[2, 1, 1], a[9, 3, 3] = np.nan, np.inf
    got = F.adaptive_avg_pool2d(torch.from_numpy(a), (1, 1)).numpy().ravel()
    assert np.isnan(got[2]) and got[9] == np.inf
    assert (np.delete(got, [2, 9]) == 1).all()
