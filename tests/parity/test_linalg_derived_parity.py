"""numtorch/ops/linalg/derived.py against torch: values, gradients and error texts."""

from __future__ import annotations

import math

import numpy as np
import pytest

import numtorch

torch = pytest.importorskip("torch")


def _pair(a, grad=False):
    return numtorch.tensor(a, requires_grad=grad), torch.tensor(a, requires_grad=grad)


_CASES = [
    ("vecdot", lambda L, a, b: L.vecdot(a, a * 2, dim=1)),
    ("vander", lambda L, a, b: L.vander(a[0, 0], N=5)),
    ("cond", lambda L, a, b: L.cond(a)),
    ("cond_fro", lambda L, a, b: L.cond(a, "fro")),
    ("cond_inf", lambda L, a, b: L.cond(a, -math.inf)),
    ("matrix_rank", lambda L, a, b: L.matrix_rank(a)),
    ("matrix_rank_atol", lambda L, a, b: L.matrix_rank(a, atol=1.0, rtol=0.1)),
    ("solve_triangular", lambda L, a, b: L.solve_triangular(a, b, upper=False)),
    ("solve_triangular_right", lambda L, a, b: L.solve_triangular(a, b.mT, upper=True, left=False, unitriangular=True)),
    ("matrix_exp", lambda L, a, b: L.matrix_exp(a)),
    ("inv_ex", lambda L, a, b: L.inv_ex(a).inverse),
    ("cholesky_ex", lambda L, a, b: L.cholesky_ex(a @ a.mT).L),
    ("solve_ex", lambda L, a, b: L.solve_ex(a, b).result),
    ("tensorinv", lambda L, a, b: L.tensorinv(a[0].reshape(2, 2, 4), ind=2)),
]


@pytest.mark.parametrize("name, fn", _CASES, ids=[c[0] for c in _CASES])
def test_values_and_gradients(name, fn):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 4, 4)) + 3 * np.eye(4)
    b = rng.standard_normal((3, 4, 2))
    (na, ta), (nb, tb) = _pair(a, True), _pair(b, True)
    got, want = fn(numtorch.linalg, na, nb), fn(torch.linalg, ta, tb)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-9, atol=1e-12)
    assert str(got.dtype) == str(want.dtype)
    # torch 2.13 cannot differentiate cond with a norm other than 2 (its inv_ex output is
    # modified in place inside the formula); numtorch's is checked by gradcheck in tests/ops
    if got.dtype.is_floating_point and name not in ("cond_fro", "cond_inf"):
        got.sum().backward()
        want.sum().backward()
        np.testing.assert_allclose(na.grad.numpy(), ta.grad.numpy(), rtol=1e-7, atol=1e-10)
        if tb.grad is not None:
            np.testing.assert_allclose(nb.grad.numpy(), tb.grad.numpy(), rtol=1e-7, atol=1e-10)


@pytest.mark.parametrize("call", [
    lambda L, m: L.vecdot(m.ones(3), m.ones(3, dtype=m.float64)),
    lambda L, m: L.vander(m.tensor([1, 2, 3]), N=0),
    lambda L, m: L.tensorinv(m.ones(2, 3), ind=0),
    lambda L, m: L.tensorinv(m.ones(2, 3), ind=1),
    lambda L, m: L.cond(m.ones(2, 3), p=1),
    lambda L, m: L.solve_triangular(m.ones(2, 2), m.ones(3, 2), upper=True),
    lambda L, m: L.matrix_exp(m.ones(2, 3)),
    lambda L, m: L.matrix_exp(m.ones(2, 2, dtype=m.int64)),
    lambda L, m: L.inv_ex(m.zeros(2, 2), check_errors=True),
    lambda L, m: L.matrix_rank(m.ones(3)),
])  # fmt: skip
def test_errors_match(call):
    with pytest.raises(Exception) as want:
        call(torch.linalg, torch)
    with pytest.raises(Exception) as got:
        call(numtorch.linalg, numtorch)
    assert str(got.value) == str(want.value)
    assert isinstance(got.value, RuntimeError) == isinstance(want.value, RuntimeError)


def test_info_matches():
    for A in (np.zeros((2, 2)), np.stack([np.eye(3), np.diag([1.0, 0.0, 1.0])]), -np.eye(2)):
        assert numtorch.linalg.inv_ex(numtorch.tensor(A)).info.tolist() == torch.linalg.inv_ex(torch.tensor(A)).info.tolist()
        assert numtorch.linalg.cholesky_ex(numtorch.tensor(A)).info.tolist() == torch.linalg.cholesky_ex(torch.tensor(A)).info.tolist()


@pytest.mark.parametrize("dtype", ["complex64", "float32"])
def test_matrix_exp_one_by_one_is_exp(dtype):
    # torch takes exp for a 1x1 matrix; scaling and squaring 1e30-2.6j overflows into NaN
    # (inf - inf) where exp gives -inf-infj (fuzz seed 38)
    v = [[[1e30 - 2.6j]], [[1000.0]], [[math.inf]]] if dtype.startswith("complex") else [[[1e30]], [[-math.inf]]]
    for a in v:
        got = numtorch.linalg.matrix_exp(numtorch.tensor(a, dtype=getattr(numtorch, dtype)))
        want = torch.linalg.matrix_exp(torch.tensor(a, dtype=getattr(torch, dtype)))
        np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_cholesky_ex_complex_inf_keeps_the_failed_pivot():
    # a complex row holding inf: LAPACK's failed pivot is real(a_jj) - sum(l * conj(l)) in
    # complex arithmetic, nan+nanj, where a real-part-only pivot gave nan+0j (fuzz, session 8)
    inf = math.inf
    for a in ([[4, inf], [inf, 4 + 0j]], [[4, 0], [complex(0, inf), 9]], [[4, 2], [complex(2, inf), 9]],
              [[4, 0], [0, -1 + 5j]], [[4, 0, 0], [complex(inf, 0), 9, 0], [0, 0, 9]]):
        got = numtorch.linalg.cholesky_ex(numtorch.tensor(a, dtype=numtorch.complex128))
        want = torch.linalg.cholesky_ex(torch.tensor(a, dtype=torch.complex128))
        for part in (np.real, np.imag):  # complex NaN compares equal whatever its parts
            np.testing.assert_array_equal(part(got.L.numpy()), part(want.L.numpy()))
        assert int(got.info) == int(want.info)
