"""CosineSimilarity and PairwiseDistance."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch import nn


def test_distances(rng):
    a, b = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    cos = nn.CosineSimilarity()(numtorch.from_numpy(a), numtorch.from_numpy(b)).numpy()
    np.testing.assert_allclose(
        cos, (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)
    )
    d = nn.PairwiseDistance(p=1.0)(numtorch.from_numpy(a), numtorch.from_numpy(b)).numpy()
    np.testing.assert_allclose(d, np.abs(a - b + 1e-6).sum(1))
    assert nn.PairwiseDistance(keepdim=True)(
        numtorch.from_numpy(a), numtorch.from_numpy(b)
    ).shape == (4, 1)
    assert repr(nn.CosineSimilarity()) == "CosineSimilarity()"


def test_cosine_similarity_needs_floating_inputs():
    with pytest.raises(
        RuntimeError, match="expected common dtype to be floating point, yet common dtype is Long"
    ):
        nn.CosineSimilarity()(numtorch.tensor([[1, 2]]), numtorch.tensor([[1, 2]]))
