"""Meta tensors against torch's meta device: output shape, dtype and strides for the families
the meta rules cover by shape (indexing, binning, layouts, losses, products)."""

import pytest

torch = pytest.importorskip("torch")

import numtorch  # noqa: E402

# name -> script over T (torch or numtorch), F (its functional) and M(*shape) (a meta float tensor)
CASES = {
    "diag": "T.diag(M(3))", "diag_2d": "T.diag(M(3, 4), 1)", "diag_embed": "T.diag_embed(M(2, 3), 1)",
    "diag_embed_dims": "T.diag_embed(M(2, 3), 0, 0, 2)",
    "take_along_dim": "T.take_along_dim(M(2, 3), T.zeros(2, 1, dtype=T.int64, device='meta'), 1)",
    "take_along_flat": "T.take_along_dim(M(2, 3), T.zeros(4, dtype=T.int64, device='meta'))",
    "searchsorted": "T.searchsorted(M(5), M(3))", "searchsorted_i32": "T.searchsorted(M(5), M(2, 3), out_int32=True)",
    "bucketize": "T.bucketize(M(3), M(5))", "complex": "T.complex(M(3), M(2, 3))", "histc": "T.histc(M(10), 5)",
    "glu": "F.glu(M(2, 4))", "glu_dim": "F.glu(M(6, 3), 0)", "pad_reflect": "F.pad(M(1, 2, 3), (1, 2), mode='reflect')",
    "pad_replicate": "F.pad(M(1, 2, 3, 4), (1, 1, 2, 0), mode='replicate')",
    "pad_circular": "F.pad(M(1, 2, 3), (1, 1), mode='circular')", "pixel_unshuffle": "F.pixel_unshuffle(M(1, 1, 4, 4), 2)",
    "unfold": "F.unfold(M(1, 2, 4, 4), 2)", "unfold_args": "F.unfold(M(2, 2, 5, 5), (2, 3), padding=1, stride=2)",
    "fold": "F.fold(M(1, 8, 9), (4, 4), 2)",
    "nll_loss": "F.nll_loss(M(4, 5), T.zeros(4, dtype=T.int64, device='meta'))",
    "nll_loss_none": "F.nll_loss(M(4, 5), T.zeros(4, dtype=T.int64, device='meta'), reduction='none')",
    "cross_entropy": "F.cross_entropy(M(4, 5), T.zeros(4, dtype=T.int64, device='meta'))",
    "matrix_power": "T.linalg.matrix_power(M(3, 3), 3)", "matmul": "T.matmul(M(5, 2, 3), M(3, 4))",
    "matmul_vec": "T.matmul(M(3), M(5, 3, 4))", "outer": "T.outer(M(3), M(2))",
    "sort": "T.sort(M(3, 4))[1]", "tensor_plus_meta": "T.tensor(2.0) + M(2, 3)",
}  # fmt: skip


def _run(T, F, script):
    return eval(script, {"T": T, "F": F, "M": lambda *s: T.ones(*s, device="meta")})


@pytest.mark.parametrize("name", sorted(CASES))
def test_meta_matches_torch_meta(name):
    want = _run(torch, torch.nn.functional, CASES[name])
    got = _run(numtorch, numtorch.nn.functional, CASES[name])
    assert got.device.type == "meta"
    assert tuple(got.shape) == tuple(want.shape)
    assert str(got.dtype) == str(want.dtype)
    assert tuple(got.stride()) == tuple(want.stride())


# Note [Linalg meta rules]: shapes and dtypes as torch's meta device (strides differ: PyTorch's
# LAPACK outputs are column-major, numtorch's contiguous as its CPU results are)
LINALG = {
    "inv": "T.linalg.inv(M(2, 3, 3))", "inverse": "T.inverse(M(3, 3))", "det": "T.linalg.det(M(2, 1, 3, 3))",
    "slogdet": "T.linalg.slogdet(C(2, 3, 3))", "logdet": "T.logdet(M(3, 3))",
    "cholesky": "T.linalg.cholesky(M(2, 4, 4))", "torch_cholesky": "T.cholesky(M(3, 3))",
    "eigh": "T.linalg.eigh(C(2, 3, 3))", "eigvalsh": "T.linalg.eigvalsh(C(3, 3))",
    "solve": "T.linalg.solve(M(2, 3, 3), M(4, 1, 3, 5))", "solve_vec": "T.linalg.solve(M(2, 3, 3), M(3))",
    "solve_bvec": "T.linalg.solve(M(2, 3, 3), M(2, 3))", "solve_right": "T.linalg.solve(M(3, 3), M(5, 3), left=False)",
    "qr": "T.linalg.qr(M(2, 5, 3))", "qr_complete": "T.linalg.qr(M(3, 5), mode='complete')",
    "qr_r": "T.linalg.qr(M(5, 3), mode='r')", "svd": "T.linalg.svd(C(2, 5, 3))",
    "svd_reduced": "T.linalg.svd(M(3, 5), full_matrices=False)", "svdvals": "T.linalg.svdvals(C(5, 3))",
    "svd_no_uv": "T.ops.aten._linalg_svd(M(5, 3), compute_uv=False)",
    "matrix_norm_2": "T.linalg.matrix_norm(M(2, 3, 4), ord=2)", "pinv": "T.linalg.pinv(M(5, 3))",
    "einsum": "T.einsum('bij,bjk->bik', M(2, 3, 4), M(2, 4, 5))", "einsum_implicit": "T.einsum('ij,jk', M(2, 3), M(3, 4))",
    "einsum_ellipsis": "T.einsum('...ij,j->...i', M(2, 1, 3, 4), M(4))", "einsum_trace": "T.einsum('ii', M(3, 3))",
    "tensordot": "T.tensordot(M(2, 3, 4), M(3, 4, 5))", "tensordot_int": "T.tensordot(M(2, 3, 4), M(4, 5), 1)",
    "tensordot_lists": "T.tensordot(M(2, 3, 4), M(4, 3, 5), dims=([1, 2], [1, 0]))",
    "inner": "T.inner(M(2, 3), M(4, 3))", "inner_1d": "T.inner(M(3), M(3))",
    "matmul_out": "T.matmul(M(2, 3), M(3, 4), out=M(0))", "outer_out": "T.outer(M(3), M(4), out=M(0))",
}  # fmt: skip


def _flat(r):
    return list(r) if isinstance(r, (tuple, list)) else [r]


@pytest.mark.parametrize("name", sorted(LINALG))
def test_linalg_meta_matches_torch_meta(name):
    def run(T):
        env = {"T": T, "M": lambda *s: T.ones(*s, device="meta"),
               "C": lambda *s: T.ones(*s, device="meta", dtype=T.complex64)}  # fmt: skip
        return _flat(eval(LINALG[name], env))

    want, got = run(torch), run(numtorch)
    assert [(tuple(g.shape), str(g.dtype), g.device.type) for g in got] == [
        (tuple(w.shape), str(w.dtype), "meta") for w in want
    ]
