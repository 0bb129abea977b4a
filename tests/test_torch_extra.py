"""numtorch/_torch_extra.py, numtorch/version.py, torch_version.py, types.py, functional.py:
values against NumPy, gradients by gradcheck, errors with PyTorch's text."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch.autograd import gradcheck

F64 = numtorch.float64


def test_range_includes_the_end_and_warns():
    with pytest.warns(UserWarning, match="torch.range is deprecated"):
        r = numtorch.range(0, 1, 0.25)
    np.testing.assert_allclose(r.numpy(), [0, 0.25, 0.5, 0.75, 1.0])
    with pytest.warns(UserWarning):
        assert numtorch.range(3, 0, -1, dtype=numtorch.int64).tolist() == [3, 2, 1, 0]
    with pytest.warns(UserWarning), pytest.raises(RuntimeError, match="upper bound and larger bound inconsistent"):
        numtorch.range(0, 3, -1)


def test_asarray_and_frombuffer_share_memory():
    a = np.arange(4.0)
    t = numtorch.asarray(a)
    a[0] = 9
    assert t[0].item() == 9.0 and numtorch.asarray(t) is t
    assert numtorch.asarray(t, copy=True).data_ptr() != t.data_ptr()
    assert numtorch.asarray([1, 2]).dtype is numtorch.int64
    with pytest.raises(ValueError):
        numtorch.asarray([1, 2], copy=False)
    buf = bytearray(b"\x01\x00\x00\x00\x02\x00\x00\x00")
    f = numtorch.frombuffer(buf, dtype=numtorch.int32)
    buf[0] = 5
    assert f.tolist() == [5, 2]
    assert numtorch.frombuffer(buf, dtype=numtorch.int16, count=2, offset=2).tolist() == [0, 2]
    with pytest.raises(ValueError, match="must be a multiple of element size"):
        numtorch.frombuffer(bytearray(3), dtype=numtorch.int16)


def test_empty_permuted_and_nonzero_static():
    assert numtorch.empty_permuted((2, 3, 4), (0, 2, 1)).stride() == (12, 1, 3)
    x = numtorch.tensor([[0, 1], [2, 0]])
    assert numtorch.nonzero_static(x, size=3).tolist() == [[0, 1], [1, 0], [-1, -1]]
    assert x.nonzero_static(size=1, fill_value=7).tolist() == [[0, 1]]
    with pytest.raises(RuntimeError, match="'size' must be an non-negative integer"):
        numtorch.nonzero_static(x, size=-1)


def test_norms_and_their_gradients():
    a = np.random.default_rng(0).standard_normal((3, 4))
    x = numtorch.tensor(a, dtype=F64, requires_grad=True)
    np.testing.assert_allclose(numtorch.frobenius_norm(x, (0, 1)).item(), np.linalg.norm(a))
    np.testing.assert_allclose(numtorch.norm_except_dim(x, 2, 0).detach().numpy().ravel(), np.linalg.norm(a, axis=1))
    np.testing.assert_allclose(numtorch.norm_except_dim(x, 2, 1).detach().numpy().ravel(), np.linalg.norm(a, axis=0))
    assert numtorch.norm_except_dim(x, 2, 1).shape == (1, 4)
    assert gradcheck(lambda v: numtorch.norm_except_dim(v, 2, 0), (x,))
    assert gradcheck(lambda v: numtorch.frobenius_norm(v, (1,), True), (x,))


def test_native_dropout_and_pool_spellings():
    numtorch.manual_seed(0)
    x = numtorch.ones(1000, dtype=F64)
    out, mask = numtorch.native_dropout(x, 0.25, True)
    assert mask.dtype is numtorch.bool and 650 < int(mask.sum()) < 850
    np.testing.assert_allclose(out.numpy(), mask.numpy() / 0.75)
    assert numtorch.native_dropout(x, 0.25, False)[1].all()
    v, i = numtorch.adaptive_max_pool1d(numtorch.arange(5.0).reshape(1, 1, 5), 2)
    assert v.tolist() == [[[2.0, 4.0]]] and i.tolist() == [[[2, 4]]]
    assert numtorch.adaptive_avg_pool1d(numtorch.ones(1, 2, 5), 2).shape == (1, 2, 2)
    assert numtorch.rrelu_(numtorch.tensor([-1.0, 2.0]), 0.1, 0.1).tolist() == pytest.approx([-0.1, 2.0])
    assert numtorch.i0_(numtorch.tensor([0.0])).tolist() == [1.0]
    assert numtorch.tensor([-1.0, 1.0]).prelu(numtorch.tensor([0.25])).tolist() == [-0.25, 1.0]


def test_version_types_and_functional_paths():
    v = numtorch.version.__version__
    assert isinstance(v, str) and v >= (0, 1) and v < "1.0" and v == "0.1"
    assert numtorch.version.cuda is None and numtorch.torch_version.TorchVersion("2.1.0") > (1, 13, 1)
    assert numtorch.functional.einsum is numtorch.einsum and "einsum" in dir(numtorch.functional)
    assert numtorch.types.Number is not None and numtorch.SymInt in numtorch.types.py_sym_types


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
def test_index_reduce_matches_a_numpy_loop_and_differentiates(reduce):
    rng = np.random.default_rng(0)
    x, src, idx = rng.standard_normal((3, 2)), rng.standard_normal((4, 2)), np.array([0, 2, 0, 2])
    for include_self in (True, False):
        want = x.copy()
        fn = {"prod": np.prod, "mean": np.mean, "amax": np.max, "amin": np.min}[reduce]
        for row in set(idx.tolist()):
            vals = list(src[idx == row]) + ([x[row]] if include_self else [])
            want[row] = fn(np.stack(vals), axis=0)
        got = numtorch.tensor(x).index_reduce(0, numtorch.tensor(idx), numtorch.tensor(src), reduce, include_self=include_self)
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    a, s = numtorch.tensor(x, requires_grad=True), numtorch.tensor(src, requires_grad=True)
    assert gradcheck(lambda p, q: numtorch.index_reduce(p, 0, numtorch.tensor(idx), q, reduce), (a, s))


def test_index_reduce_errors_and_in_place():
    x = numtorch.ones(3, 2)
    with pytest.raises(RuntimeError, match="Expected reduce to be one of prod, mean, amax or amin but got sum."):
        x.index_reduce(0, numtorch.tensor([0]), numtorch.ones(1, 2), "sum")
    with pytest.raises(RuntimeError, match=r"Number of indices \(1\) should be equal to source.size\(dim\): \(2\), for dim: 0"):
        x.index_reduce(0, numtorch.tensor([0]), numtorch.ones(2, 2), "prod")
    with pytest.raises(IndexError, match="index out of range in self"):
        x.index_reduce(0, numtorch.tensor([5]), numtorch.ones(1, 2), "prod")
    assert x.index_reduce_(0, numtorch.tensor([1]), numtorch.full((1, 2), 3.0), "amax") is x
    assert x.tolist() == [[1.0, 1.0], [3.0, 3.0], [1.0, 1.0]]


def test_legacy_qr_and_triangular_solve():
    a = np.random.default_rng(1).standard_normal((4, 3))
    Q, R = numtorch.qr(numtorch.tensor(a))
    np.testing.assert_allclose((Q @ R).numpy(), a, atol=1e-13)
    assert numtorch.tensor(a).qr(some=False).Q.shape == (4, 4)
    A = numtorch.tensor([[2.0, 1.0], [0.0, 4.0]], dtype=F64, requires_grad=True)
    b = numtorch.tensor([[3.0], [4.0]], dtype=F64, requires_grad=True)
    x, coeff = numtorch.triangular_solve(b, A, transpose=True)
    np.testing.assert_allclose(x.detach().numpy(), np.linalg.solve(np.triu(A.detach().numpy()).T, b.detach().numpy()))
    assert coeff.tolist() == A.tolist() and coeff.data_ptr() != A.data_ptr()
    assert gradcheck(lambda p, q: numtorch.triangular_solve(q, p, upper=False).solution, (A, b))


def test_conv_tbc_and_grid_sampler_spellings():
    rng = np.random.default_rng(2)
    x, w, bias = rng.standard_normal((5, 2, 3)), rng.standard_normal((3, 3, 4)), rng.standard_normal(4)
    xp = np.pad(x, ((1, 1), (0, 0), (0, 0)))
    want = np.stack([np.einsum("kbi,kio->bo", xp[t:t + 3], w) for t in range(5)]) + bias
    got = numtorch.conv_tbc(numtorch.tensor(x), numtorch.tensor(w), numtorch.tensor(bias), 1)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    assert numtorch.nn.functional.conv_tbc is not None
    inp, grid = numtorch.rand(1, 1, 3, 3), numtorch.rand(1, 2, 2, 2) * 2 - 1
    assert numtorch.grid_sampler_2d(inp, grid, 0, 0, False).equal(numtorch.grid_sampler(inp, grid, 0, 0, False))
    with pytest.raises(RuntimeError, match="expected 5D input and grid with same number of dimensions"):
        numtorch.grid_sampler_3d(inp, grid, 0, 0, False)


@pytest.mark.parametrize("reduce, plain, with_initial", [
    ("sum", [3.0, 0.0, 12.0, 6.0], [3.5, 0.5, 12.5, 6.5]),
    ("mean", [1.5, float("nan"), 4.0, 6.0], [1.75, 0.5, 12.5 / 3, 6.5]),
    ("max", [2.0, -float("inf"), 5.0, 6.0], [2.0, 0.5, 5.0, 6.0]),
    ("min", [1.0, float("inf"), 3.0, 6.0], [0.5, 0.5, 0.5, 0.5]),
    ("prod", [2.0, 1.0, 60.0, 6.0], [1.0, 0.5, 30.0, 3.0]),
])  # fmt: skip
def test_segment_reduce_values_as_pytorch(reduce, plain, with_initial):
    d, lengths = numtorch.tensor([1.0, 2, 3, 4, 5, 6], dtype=F64), numtorch.tensor([2, 0, 3, 1])
    np.testing.assert_allclose(numtorch.segment_reduce(d, reduce, lengths=lengths).numpy(), plain)
    np.testing.assert_allclose(numtorch.segment_reduce(d, reduce, lengths=lengths, initial=0.5).numpy(), with_initial)
    x = d.clone().requires_grad_()
    assert gradcheck(lambda v: numtorch.segment_reduce(v, reduce, offsets=numtorch.tensor([0, 2, 5, 6])), (x,))


def test_segment_reduce_errors_and_histogramdd():
    with pytest.raises(RuntimeError, match="Expected all rows of lengths along axis to sum to data.size"):
        numtorch.segment_reduce(numtorch.ones(6), "sum", lengths=numtorch.tensor([2, 2]))
    pts = np.array([[0.0, 0], [1, 1], [2, 0]])
    h = numtorch.histogramdd(numtorch.tensor(pts), bins=[2, 2], weight=numtorch.tensor([1.0, 2, 3], dtype=F64), density=True)
    want, edges = np.histogramdd(pts, bins=[2, 2], weights=[1.0, 2, 3], density=True)
    np.testing.assert_allclose(h.hist.numpy(), want)
    assert [e.tolist() for e in h.bin_edges] == [e.tolist() for e in edges]
    assert numtorch.histogramdd(numtorch.tensor(pts), bins=3, range=[0.0, 2, 0, 1]).hist.shape == (3, 3)
