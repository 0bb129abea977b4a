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
