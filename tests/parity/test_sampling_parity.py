"""binomial against torch: errors for the same bad input, and the same distribution (moments)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import numtorch

torch = pytest.importorskip("torch")

_BAD = {
    "long_count": lambda m: m.binomial(m.ones(2, dtype=m.int64), m.ones(2)),
    "bool_count": lambda m: m.binomial(m.ones(2, dtype=m.bool), m.ones(2)),
    "long_prob": lambda m: m.binomial(m.ones(2), m.ones(2, dtype=m.int64)),
    "mixed": lambda m: m.binomial(m.ones(2, dtype=m.float64), m.ones(2)),
    "half": lambda m: m.binomial(m.ones(2, dtype=m.float16), m.ones(2, dtype=m.float16)),
    "shape": lambda m: m.binomial(m.ones(2), m.ones(3)),
    "scalar_prob": lambda m: m.binomial(m.ones(2), 0.5),
    "scalar_count": lambda m: m.binomial(3.0, m.ones(2)),
    "generator": lambda m: m.binomial(m.ones(2), m.ones(2), generator=1),
}


@pytest.mark.parametrize("case", sorted(_BAD))
def test_binomial_errors_as_torch(case):
    def run(m):
        try:
            _BAD[case](m)
        except Exception as e:  # type and text are compared
            return type(e).__name__, str(e).replace("numtorch", "torch")
        return None

    assert run(numtorch) == run(torch)


@pytest.mark.parametrize(("count", "p"), [(6.0, 0.2), (25.0, 0.5), (1000.0, 0.05), (80.0, 0.97), (1e6, 0.3)])
def test_binomial_moments_as_torch(count, p):
    n = 100_000
    ours = numtorch.binomial(numtorch.full((n,), count, dtype=numtorch.float64),
                             numtorch.full((n,), p, dtype=numtorch.float64)).numpy()  # fmt: skip
    theirs = torch.binomial(torch.full((n,), count, dtype=torch.float64),
                            torch.full((n,), p, dtype=torch.float64)).numpy()  # fmt: skip
    sd = math.sqrt(count * p * (1 - p))
    assert abs(ours.mean() - theirs.mean()) < 6 * sd * math.sqrt(2 / n)
    assert abs(ours.var() / theirs.var() - 1) < 0.04
    assert abs(np.median(ours) - np.median(theirs)) <= 1
