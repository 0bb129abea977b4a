"""one_hot's CPU function takes rows of a cached identity for up to 64 classes: the same values,
shape, dtype and C-contiguous layout as the comparison with arange it replaces."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
import numtorch.nn.functional as F
from numtorch.ops.nn import layers


@pytest.mark.parametrize("shape", [(), (3,), (2, 5), (4, 1, 3), (0,), (200,)])
@pytest.mark.parametrize("num_classes", [-1, 1, 7, 64, 65, 300])
def test_one_hot_matches_the_comparison(shape, num_classes):
    hi = 1 if num_classes == -1 else num_classes
    a = np.random.default_rng(0).integers(0, max(hi, 1), shape)
    if num_classes == -1 and a.size == 0:
        return
    r = F.one_hot(torch.from_numpy(a), num_classes)
    c = int(a.max()) + 1 if num_classes == -1 else num_classes
    want = (a[..., None] == np.arange(c)).astype(np.int64)
    assert r.dtype == torch.int64 and r.shape == want.shape and r.is_contiguous()
    assert r.numpy().tobytes() == want.tobytes()


def test_identity_rows_route_is_taken():
    layers._EYES.clear()
    F.one_hot(torch.tensor([0, 2, 1]), 5)
    F.one_hot(torch.tensor([0, 2, 1]), 100)
    assert list(layers._EYES) == [5]
    with pytest.raises(RuntimeError, match="Class values must be smaller than num_classes"):
        F.one_hot(torch.tensor([0, 5]), 5)
    with pytest.raises(RuntimeError, match="Class values must be non-negative"):
        F.one_hot(torch.tensor([0, -1]), 5)
