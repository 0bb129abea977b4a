"""numtorch/ops/linalg/legacy.py against torch: values and gradients."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch

torch = pytest.importorskip("torch")

_CASES = [
    ("addr", lambda m, a, b, s, L: m.addr(a[0, :3], a[1, 0, :3], b[0, :, 0], beta=0.5, alpha=2.0)),
    ("chain_matmul", lambda m, a, b, s, L: m.chain_matmul(a[0], a[1], b[0])),
    ("cholesky_solve", lambda m, a, b, s, L: m.cholesky_solve(b, L)),
    ("cholesky_solve_upper", lambda m, a, b, s, L: m.cholesky_solve(b, L.mT, True)),
    ("cholesky_inverse", lambda m, a, b, s, L: m.cholesky_inverse(L[0])),
    ("pdist", lambda m, a, b, s, L: m.pdist(a[0], 1.5)),
    ("nuclear_norm", lambda m, a, b, s, L: m.nuclear_norm(a, dim=(1, 2))),
]


@pytest.mark.parametrize("name, fn", _CASES, ids=[c[0] for c in _CASES])
def test_values_and_gradients(name, fn):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((2, 4, 4))
    b = rng.standard_normal((2, 4, 2))
    s = a @ a.transpose(0, 2, 1) + 4 * np.eye(4)
    low = np.linalg.cholesky(s)
    results, grads = [], []
    for m in (numtorch, torch):
        ts = [m.tensor(v, requires_grad=True) for v in (a, b, s, low)]
        r = fn(m, *ts)
        r.sum().backward()
        results.append(r.detach().numpy())
        grads.append([None if t.grad is None else t.grad.numpy() for t in ts])
    np.testing.assert_allclose(results[0], results[1], rtol=1e-10, atol=1e-12)
    for g0, g1 in zip(*grads):
        assert (g0 is None) == (g1 is None)
        if g0 is not None:
            np.testing.assert_allclose(g0, g1, rtol=1e-8, atol=1e-10)
