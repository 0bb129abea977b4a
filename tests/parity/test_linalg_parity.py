"""Linear algebra against torch: values on random inputs, dtypes, and error messages."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import numtorch

torch = pytest.importorskip("torch")

_RNG = np.random.default_rng(0)


def _arr(*shape, dtype="float64"):
    return _RNG.standard_normal(shape).astype(dtype)


def _well(*shape, dtype="float64"):
    a = _arr(*shape, dtype=dtype)
    return (a + shape[-1] * np.eye(shape[-1], dtype=dtype)).astype(dtype)


# (expression, arrays): each array becomes a tensor A0, A1, ... in both libraries.
CASES = [
    ("T.matmul(A0, A1)", [_arr(3), _arr(3)]), ("T.matmul(A0, A1)", [_arr(2, 3), _arr(3)]),
    ("T.matmul(A0, A1)", [_arr(3), _arr(3, 4)]), ("T.matmul(A0, A1)", [_arr(5, 2, 3), _arr(3, 4)]),
    ("T.matmul(A0, A1)", [_arr(3), _arr(5, 3, 4)]), ("T.matmul(A0, A1)", [_arr(2, 1, 2, 3), _arr(3, 3, 2)]),
    ("T.matmul(A0, A1)", [_arr(64, 48, dtype="float32"), _arr(48, 32, dtype="float32")]),
    ("A0 @ A1", [_arr(2, 3), _arr(3, 4)]), ("T.mm(A0, A1)", [_arr(4, 5), _arr(5, 6)]),
    ("T.bmm(A0, A1)", [_arr(3, 2, 4), _arr(3, 4, 5)]), ("T.mv(A0, A1)", [_arr(4, 5), _arr(5)]),
    ("T.dot(A0, A1)", [_arr(7), _arr(7)]), ("T.vdot(A0, A1)", [_arr(7), _arr(7)]),
    ("T.addmm(A0, A1, A2, beta=0.5, alpha=2)", [_arr(2, 4), _arr(2, 3), _arr(3, 4)]),
    ("T.addmm(A0, A1, A2)", [_arr(4), _arr(2, 3), _arr(3, 4)]),
    ("T.addmv(A0, A1, A2, beta=2, alpha=-1)", [_arr(2), _arr(2, 3), _arr(3)]),
    ("T.addbmm(A0, A1, A2, alpha=3)", [_arr(2, 4), _arr(5, 2, 3), _arr(5, 3, 4)]),
    ("T.baddbmm(A0, A1, A2, beta=0)", [_arr(5, 2, 4), _arr(5, 2, 3), _arr(5, 3, 4)]),
    ("T.outer(A0, A1)", [_arr(3), _arr(4)]), ("T.ger(A0, A1)", [_arr(3), _arr(4)]),
    ("T.einsum('ij,jk->ik', A0, A1)", [_arr(2, 3), _arr(3, 4)]),
    ("T.einsum('bij,bkj->bik', A0, A1)", [_arr(2, 3, 4), _arr(2, 5, 4)]),
    ("T.einsum('ii->i', A0)", [_arr(3, 3)]), ("T.einsum('ii', A0)", [_arr(3, 3)]),
    ("T.einsum('...ij,...jk', A0, A1)", [_arr(2, 1, 2, 3), _arr(3, 3, 2)]),
    ("T.einsum('ij,jk,kl->il', A0, A1, A2)", [_arr(2, 3), _arr(3, 4), _arr(4, 2)]),
    ("T.einsum('bn,anm,bm->ba', A0, A1, A2)", [_arr(2, 3), _arr(4, 3, 5), _arr(2, 5)]),
    ("T.einsum('ij,ij->i', A0, A1)", [_arr(1, 3), _arr(2, 3)]), ("T.einsum('ba', A0)", [_arr(2, 3)]),
    ("T.einsum(A0, [0, 1], A1, [1, 2], [0, 2])", [_arr(2, 3), _arr(3, 4)]),
    ("T.tensordot(A0, A1)", [_arr(2, 3, 4), _arr(3, 4, 5)]),
    ("T.tensordot(A0, A1, dims=([1, 2], [1, 0]))", [_arr(2, 3, 4), _arr(4, 3, 5)]),
    ("T.tensordot(A0, A1, dims=0)", [_arr(2), _arr(3)]),
    ("T.kron(A0, A1)", [_arr(2, 3), _arr(2, 2)]), ("T.kron(A0, A1)", [_arr(2), _arr(3, 2)]),
    ("T.linalg.cross(A0, A1)", [_arr(4, 3), _arr(4, 3)]), ("T.cross(A0, A1, dim=0)", [_arr(3, 2), _arr(3, 2)]),
    ("T.trace(A0)", [_arr(3, 4)]), ("T.linalg.inv(A0)", [_well(3, 3)]), ("T.inverse(A0)", [_well(2, 3, 3)]),
    ("T.linalg.det(A0)", [_well(2, 3, 3)]), ("T.det(A0)", [_arr(4, 4)]),
    ("T.linalg.solve(A0, A1)", [_well(3, 3), _arr(3)]), ("T.linalg.solve(A0, A1)", [_well(2, 3, 3), _arr(3, 2)]),
    ("T.linalg.solve(A0, A1)", [_well(2, 3, 3), _arr(2, 3)]),
    ("T.linalg.solve(A0, A1, left=False)", [_well(3, 3), _arr(2, 3)]),
    ("T.linalg.svdvals(A0)", [_arr(2, 3, 4)]), ("T.linalg.vector_norm(A0)", [_arr(5)]),
    ("T.linalg.vector_norm(A0, ord=float('inf'), dim=1)", [_arr(2, 5)]),
    ("T.linalg.vector_norm(A0, ord=0.5, dim=(0, 2), keepdim=True)", [_arr(2, 3, 4)]),
    ("T.linalg.matrix_norm(A0)", [_arr(3, 4)]), ("T.linalg.matrix_norm(A0, ord=1)", [_arr(3, 4)]),
    ("T.linalg.matrix_norm(A0, ord=-float('inf'))", [_arr(3, 4)]), ("T.linalg.matrix_norm(A0, ord='nuc')", [_arr(2, 3, 3)]),
    ("T.linalg.matrix_norm(A0, ord=2)", [_arr(3, 3)]), ("T.linalg.matrix_norm(A0, ord=-2)", [_arr(3, 3)]),
    ("T.linalg.norm(A0)", [_arr(2, 3, 4)]), ("T.linalg.norm(A0, ord=1)", [_arr(3, 4)]),
    ("T.linalg.norm(A0, dim=(0, 2))", [_arr(2, 3, 4)]),
    # integer and half products
    ("T.mm(A0, A1)", [np.arange(6, dtype=np.int64).reshape(2, 3), np.arange(6, dtype=np.int64).reshape(3, 2)]),
    ("T.matmul(A0, A1)", [np.arange(6, dtype=np.int32).reshape(2, 3), np.arange(3, dtype=np.int32)]),
    ("T.mm(A0, A1)", [np.full((2, 3), 20, np.uint8), np.full((3, 2), 20, np.uint8)]),
    ("T.matmul(A0, A1)", [_arr(4, 8, dtype="float16"), _arr(8, 3, dtype="float16")]),
    ("T.einsum('ij->i', A0)", [np.ones((2, 3), np.int32)]), ("T.trace(A0)", [np.ones((2, 2), np.uint8)]),
    # errors
    ("T.matmul(A0, A1)", [_arr(2, 3), _arr(4, 5)]), ("T.matmul(A0, A1)", [_arr(2, 2, 3), _arr(3, 3, 5)]),
    ("T.matmul(A0, A1)", [_arr(3, dtype="float32"), _arr(3)]), ("T.mm(A0, A1)", [_arr(2, 3, dtype="float32"), _arr(3, 2)]),
    ("T.bmm(A0, A1)", [_arr(2, 3), _arr(3, 2)]), ("T.dot(A0, A1)", [_arr(2, 2), _arr(2, 2)]),
    ("T.mv(A0, A1)", [_arr(2, 3), _arr(4)]), ("T.addmv(A0, A1, A2)", [_arr(3), _arr(2, 3), _arr(3)]),
    ("T.addbmm(A0, A1, A2)", [_arr(2, 2), _arr(4, 2, 3), _arr(4, 4, 2)]),
    ("T.baddbmm(A0, A1, A2)", [_arr(3, 3), _arr(4, 2, 3), _arr(4, 3, 2)]),
    ("T.einsum('ij,jk->ik', A0, A1)", [_arr(2, 3), _arr(4, 4)]), ("T.einsum('ijk,jk->ik', A0, A1)", [_arr(2, 3), _arr(3, 4)]),
    ("T.tensordot(A0, A1, dims=3)", [_arr(2, 3), _arr(3, 4)]),
    ("T.tensordot(A0, A1, dims=([0, 0], [0, 1]))", [_arr(3, 3), _arr(3, 3)]),
    ("T.linalg.cross(A0, A1)", [_arr(3), _arr(2, 3)]), ("T.linalg.cross(A0, A1, dim=1)", [_arr(2, 3), _arr(2, 4)]),
    ("T.linalg.inv(A0)", [np.zeros((2, 2))]), ("T.linalg.inv(A0)", [_arr(2, 3)]),
    ("T.linalg.solve(A0, A1)", [np.zeros((2, 2)), _arr(2)]), ("T.linalg.solve(A0, A1)", [_well(2, 2), _arr(3)]),
    ("T.linalg.det(A0)", [_arr(3)]), ("T.linalg.matrix_norm(A0, ord=3)", [_arr(2, 2)]),
    ("T.outer(A0, A1)", [_arr(2), _arr(2, 2)]), ("T.trace(A0)", [_arr(2, 2, 2)]),
]  # fmt: skip


def _run(T, expr, arrays):
    env = {"T": T, **{f"A{i}": T.from_numpy(a.copy()) for i, a in enumerate(arrays)}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            r = eval(expr, env)
        except Exception as e:  # noqa: BLE001 - the exception is the outcome
            name = "LinAlgError" if "LinAlgError" in type(e).__name__ else type(e).__name__
            return ("raises", name, str(e).split("\n")[0])
    return ("tensor", str(r.dtype), tuple(r.shape), r.detach().numpy())


@pytest.mark.parametrize("expr,arrays", CASES, ids=[f"{i}:{c[0]}" for i, c in enumerate(CASES)])
def test_linalg_matches_torch(expr, arrays):
    want, got = _run(torch, expr, arrays), _run(numtorch, expr, arrays)
    assert got[:3] == want[:3], f"{expr}: numtorch {got[:3]}, torch {want[:3]}"
    if want[0] == "tensor":
        tol = {"torch.float16": 2e-3, "torch.float32": 2e-5}.get(want[1], 1e-10)
        np.testing.assert_allclose(
            got[3].astype(np.float64), want[3].astype(np.float64), rtol=tol, atol=tol
        )


@pytest.mark.parametrize(
    "expr,shapes",
    [("T.matmul(A0, A1)", [(2, 3), (3,)]), ("T.matmul(A0, A1)", [(3,), (2, 3, 4)]), ("T.matmul(A0, A1)", [(2, 1, 2, 3), (3, 3, 2)]),
     ("T.addmm(A0, A1, A2, beta=0.5, alpha=2)", [(3,), (2, 3), (3, 3)]), ("T.einsum('ii,i->i', A0, A1)", [(2, 2), (2,)]),
     ("T.einsum('ij,ij->i', A0, A1)", [(1, 3), (2, 3)]), ("T.linalg.inv(A0)", None), ("T.linalg.det(A0)", None),
     ("T.linalg.solve(A0, A1)", [(2, 2, 2), (2,)]), ("T.kron(A0, A1)", [(2,), (2, 2)]), ("T.trace(A0)", [(2, 3)]),
     ("T.linalg.cross(A0, A1)", [(1, 3), (2, 3)]), ("T.linalg.vector_norm(A0, dim=1)", [(2, 3)])],
)  # fmt: skip
def test_gradients_match_torch(expr, shapes):
    arrays = [_well(2, 2) + 1.0] if shapes is None else [_well(*s) if "solve" in expr and i == 0 else _arr(*s)
                                                          for i, s in enumerate(shapes)]  # fmt: skip
    grads = []
    for T in (torch, numtorch):
        ts = [T.tensor(a, dtype=T.float64, requires_grad=True) for a in arrays]
        r = eval(expr, {"T": T, **{f"A{i}": t for i, t in enumerate(ts)}})
        w = T.tensor(
            np.linspace(-1, 1, int(np.prod(r.shape)) or 1).reshape(r.shape), dtype=T.float64
        )
        (r * w).sum().backward()
        grads.append([t.grad.numpy() for t in ts])
    for g_nt, g_t in zip(grads[1], grads[0], strict=True):
        np.testing.assert_allclose(g_nt, g_t, rtol=1e-9, atol=1e-12)


def _ones(lib, shape, dt):
    return lib.ones(shape, dtype=getattr(lib, dt))


@pytest.mark.parametrize("call", [
    lambda L: L.matmul(_ones(L, (2, 3, 4), "float32"), _ones(L, (4,), "float32"), out=_ones(L, (2, 3), "float64")),
    lambda L: L.matmul(_ones(L, (4,), "float32"), _ones(L, (4,), "float32"), out=_ones(L, (), "float64")),
    lambda L: L.addbmm(_ones(L, (3, 5), "float32"), _ones(L, (2, 3, 4), "float32"), _ones(L, (2, 4, 5), "float32"),
                       out=_ones(L, (3, 5), "int64")),
    lambda L: L.vdot(_ones(L, (4,), "float32"), _ones(L, (4,), "float32"), out=_ones(L, (), "float64")),
    lambda L: L.inner(_ones(L, (4,), "float32"), _ones(L, (4,), "float32"), out=_ones(L, (), "float64")),
    lambda L: L.tensordot(_ones(L, (3, 4), "float32"), _ones(L, (4, 5), "float32"), dims=1, out=_ones(L, (3, 5), "float64")),
    lambda L: L.mm(_ones(L, (3, 4), "uint16"), _ones(L, (4, 5), "uint16"), out=_ones(L, (3, 5), "float32")),
    lambda L: L.mv(_ones(L, (3, 4), "uint32"), _ones(L, (4,), "uint32"), out=_ones(L, (3,), "float32")),
    lambda L: L.dot(_ones(L, (4,), "uint64"), _ones(L, (4,), "uint64"), out=_ones(L, (), "float32")),
    lambda L: L.addbmm(_ones(L, (3, 5), "uint16"), _ones(L, (2, 3, 4), "uint16"), _ones(L, (2, 4, 5), "uint16"),
                       out=_ones(L, (3, 5), "float32")),
    lambda L: L.mm(_ones(L, (3, 4), "uint16"), _ones(L, (4, 5), "uint16"), out=_ones(L, (3, 5), "uint16")),
])  # fmt: skip
def test_product_out_dtype_errors_match(call):
    # each product's out= dtype text is the one of the op torch writes through (dot_out, mv_out's
    # addmv, addmm_, tensordot_out); out's dtype is checked before a wide unsigned refusal, and
    # inner's float32 result may not go into a float64 out (it was accepted)
    def run(lib):
        try:
            call(lib)
        except (RuntimeError, NotImplementedError) as e:
            return f"{type(e).__name__}: {e}"
        return "returned"

    assert run(numtorch) == run(torch)


_INF, _NAN = np.inf, np.nan
_DET_SPECIAL = [  # fuzz seeds 71 and 74: torch factors A^T for a contiguous real A
    np.array([[1e-300, 1.731, -1.339], [5.58, -_INF, -2.525], [-6.957, 6.147, -1.379]]),
    np.array([[3.771, -0.668, -1.591], [-2.692, -0.0, -1.037], [-8.352, 5.416, _INF]], dtype=np.float32),
    np.array([[-_INF, -0.996], [_NAN, -4.448]]),
]


@pytest.mark.parametrize("layout", ["contiguous", "column-major"])
def test_det_of_a_matrix_holding_inf_or_nan_matches_torch(layout):
    rng = np.random.default_rng(7)
    special = np.array([_INF, -_INF, _NAN, 0.0])  # no 1e30: cancellation rounds as each LU does
    mats = list(_DET_SPECIAL)
    for _ in range(150):
        n = int(rng.integers(1, 5))
        a = np.round(rng.standard_normal((2, n, n)) * 3, 3)
        mats.append(np.where(rng.random(a.shape) < 0.25, rng.choice(special, a.shape), a))
    for a in mats:
        got, want = [], []
        for T, out in ((numtorch, got), (torch, want)):
            t = T.tensor(a)
            out.append(T.linalg.det(t if layout == "contiguous" else t.mT.contiguous().mT).numpy())
        np.testing.assert_allclose(got[0], want[0], rtol=1e-10, err_msg=repr(a))


@pytest.mark.parametrize("shape", [(0, 0), (0, 0, 0), (2, 0, 0), (0, 2, 2)])
def test_det_of_empty_matrices_matches_torch(shape):
    got, want = numtorch.linalg.det(numtorch.zeros(shape)), torch.linalg.det(torch.zeros(shape))
    assert got.shape == want.shape
    np.testing.assert_array_equal(got.numpy(), want.numpy())
