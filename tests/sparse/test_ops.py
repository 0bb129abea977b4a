"""Sparse COO operations against NumPy, their gradients, and the SparseCPU refusals
(numtorch/ops/sparse/{math,products,reduction}.py)."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch.autograd import gradcheck

F64 = numtorch.float64


def _random_sparse(rng, shape=(5, 4), nnz=7, dtype=F64, dup=True):
    idx = np.stack([rng.integers(0, n, nnz) for n in shape[:2]])
    if dup:
        idx[:, -1] = idx[:, 0]  # a duplicate entry: kernels must sum it
    vals = rng.standard_normal((nnz,) + tuple(shape[2:]))
    return numtorch.sparse_coo_tensor(idx, numtorch.tensor(vals, dtype=dtype), shape), idx, vals


def _dense(idx, vals, shape):
    out = np.zeros(shape)
    np.add.at(out, tuple(idx), vals)
    return out


@pytest.fixture
def rng():
    return np.random.default_rng(0)


@pytest.mark.parametrize("mm", ["sparse.mm", "mm", "matmul", "at"])
def test_sparse_times_dense_matches_numpy(rng, mm):
    s, idx, vals = _random_sparse(rng)
    d = rng.standard_normal((4, 3))
    fn = {"sparse.mm": numtorch.sparse.mm, "mm": numtorch.mm, "matmul": numtorch.matmul, "at": lambda a, b: a @ b}[mm]
    np.testing.assert_allclose(fn(s, numtorch.tensor(d)).numpy(), _dense(idx, vals, (5, 4)) @ d, rtol=1e-12)


def test_vector_dense_left_and_addmm(rng):
    s, idx, vals = _random_sparse(rng)
    ref = _dense(idx, vals, (5, 4))
    v, m, a = rng.standard_normal(4), rng.standard_normal((3, 5)), rng.standard_normal((5, 2))
    np.testing.assert_allclose((s @ numtorch.tensor(v)).numpy(), ref @ v, rtol=1e-12)
    np.testing.assert_allclose(numtorch.mm(numtorch.tensor(m), s).numpy(), m @ ref, rtol=1e-12)
    b = rng.standard_normal((4, 2))
    out = numtorch.addmm(numtorch.tensor(a), s, numtorch.tensor(b), beta=0.5, alpha=2.0)
    np.testing.assert_allclose(out.numpy(), 0.5 * a + 2 * ref @ b, rtol=1e-12)
    out = numtorch.sparse.addmm(numtorch.tensor(a), s, numtorch.tensor(b), beta=0.5, alpha=2.0)
    np.testing.assert_allclose(out.numpy(), 0.5 * a + 2 * ref @ b, rtol=1e-12)


def test_large_product_takes_the_parallel_kernel(rng):
    s, idx, vals = _random_sparse(rng, (300, 200), 3000, numtorch.float32)
    d = rng.standard_normal((200, 128)).astype(np.float32)
    ref = _dense(idx, vals, (300, 200)) @ d
    np.testing.assert_allclose(numtorch.sparse.mm(s, numtorch.tensor(d)).numpy(), ref, rtol=1e-4, atol=1e-4)


def test_mm_errors_are_pytorchs(rng):
    s, _, _ = _random_sparse(rng)
    with pytest.raises(RuntimeError, match="addmm: Argument #3 \\(dense\\): Expected dim 0 size 4, got 3"):
        numtorch.mm(s, numtorch.ones(3, 2, dtype=F64))
    with pytest.raises(RuntimeError, match="expected scalar type Double but found Float"):
        numtorch.mm(s, numtorch.ones(4, 2))


def test_elementwise_ops_match_numpy(rng):
    s, idx, vals = _random_sparse(rng)
    t, idx2, vals2 = _random_sparse(np.random.default_rng(1))
    a, b = _dense(idx, vals, (5, 4)), _dense(idx2, vals2, (5, 4))
    d = rng.standard_normal((5, 4))
    cases = {
        "s+t": ((s + t).to_dense(), a + b), "s-t": ((s - t).to_dense(), a - b), "d+s": (numtorch.tensor(d) + s, d + a),
        "2*s": ((2 * s).to_dense(), 2 * a), "s/4": ((s / 4).to_dense(), a / 4), "-s": ((-s).to_dense(), -a),
        "s*t": ((s * t).to_dense(), a * b), "s*d": ((s * numtorch.tensor(d)).to_dense(), a * d),
        "s.t()": (s.t().to_dense(), a.T), "transpose": (s.transpose(0, 1).to_dense(), a.T),
        "double": (s.float().double().to_dense(), a.astype(np.float32).astype(np.float64)),
    }  # fmt: skip
    for name, (got, ref) in cases.items():
        np.testing.assert_allclose(got.numpy(), ref, rtol=1e-6, err_msg=name)
    c = s.coalesce()
    assert (c + c).is_coalesced() and (c + c)._nnz() == c._nnz()


def test_add_errors_are_pytorchs():
    s = numtorch.ones(2, 3).to_sparse()
    with pytest.raises(RuntimeError, match=r"add\(sparse, dense\) is not supported. Use add\(dense, sparse\) instead."):
        s + numtorch.ones(2, 3)
    with pytest.raises(RuntimeError, match=r"add\(sparse, dense\) is not supported"):
        s + 1
    with pytest.raises(RuntimeError, match=r"expected sizes of 'self' and 'other' to match, but \[2, 3\] != \[3, 3\]"):
        s + numtorch.ones(3, 3).to_sparse()


def test_in_place_add_accumulates(rng):
    s, idx, vals = _random_sparse(rng)
    d = numtorch.zeros(5, 4, dtype=F64)
    d.add_(s)
    d.add_(s)
    np.testing.assert_allclose(d.numpy(), 2 * _dense(idx, vals, (5, 4)))
    acc = s.clone()
    acc.add_(s)
    np.testing.assert_allclose(acc.to_dense().numpy(), 2 * _dense(idx, vals, (5, 4)))
    acc.zero_()
    assert acc._nnz() == 0


@pytest.mark.parametrize("dim", [None, 0, 1, (0, 1), 2, (1, 2)])
def test_sparse_sum_matches_numpy(rng, dim):
    s, idx, vals = _random_sparse(rng, (5, 4, 3))  # a hybrid tensor: one dense dim
    ref = _dense(idx, vals, (5, 4, 3))
    got = numtorch.sparse.sum(s, dim)
    want = ref.sum() if dim is None else ref.sum(axis=dim)
    np.testing.assert_allclose((got.to_dense() if got.is_sparse else got).numpy(), want, rtol=1e-12)
    assert got.is_sparse == (dim not in (None, (0, 1)))
    np.testing.assert_allclose(s.sum().numpy(), ref.sum(), rtol=1e-12)


def _softmax_ref(a, present, dim, log):
    # over the specified entries only; absent entries stay zero in to_dense()
    x = np.where(present, a, -np.inf)
    with np.errstate(invalid="ignore", divide="ignore"):  # rows with no entry at all
        e = np.exp(x - x.max(axis=dim, keepdims=True))
        y = e / e.sum(axis=dim, keepdims=True)
        out = np.log(y) if log else y
    return np.where(present, out, 0.0)


@pytest.mark.parametrize("log", [False, True])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_sparse_softmax_matches_numpy(rng, dim, log):
    s, idx, vals = _random_sparse(rng, nnz=9)
    a = _dense(idx, vals, (5, 4))
    present = _dense(idx, np.ones(9), (5, 4)) > 0
    f = numtorch.sparse.log_softmax if log else numtorch.sparse.softmax
    np.testing.assert_allclose(f(s, dim).to_dense().numpy(), _softmax_ref(a, present, dim, log), rtol=1e-12, atol=1e-14)


# ---- autograd ---------------------------------------------------------------------------------------------
def _leaf_values(rng, nnz=6):
    idx = numtorch.tensor([[0, 1, 1, 3, 0, 2], [2, 0, 2, 1, 2, 3]])  # (0, 2) twice
    return idx, numtorch.tensor(rng.standard_normal(nnz), requires_grad=True)


@pytest.mark.parametrize("kind", ["sparse.mm", "mm", "to_dense", "sum_dim", "softmax", "log_softmax", "add_scaled",
                                  "elementwise"])
def test_gradients_reach_values_and_dense_operand(rng, kind):
    idx, v = _leaf_values(rng)
    d = numtorch.tensor(rng.standard_normal((4, 3)), requires_grad=True)

    def f(v, d):
        s = numtorch.sparse_coo_tensor(idx, v, (4, 4))
        if kind == "sparse.mm":
            return numtorch.sparse.mm(s, d)
        if kind == "mm":
            return numtorch.mm(s, d)
        if kind == "to_dense":
            return s.to_dense() * 3
        if kind == "sum_dim":
            return numtorch.sparse.sum(s, 1).to_dense() + 0 * d.sum()
        if kind == "add_scaled":
            return (s * 2 + s.coalesce()).to_dense()
        if kind == "elementwise":  # formulas that save the sparse result (pow) or the input (abs, relu)
            return (s.abs() + s.pow(3) + s.relu()).to_dense()
        fn = numtorch.sparse.softmax if kind == "softmax" else numtorch.sparse.log_softmax
        return fn(s, 1).to_dense()

    assert gradcheck(f, (v, d))


def test_sparse_operand_gets_a_sparse_gradient_on_its_pattern():
    i = [[0, 1, 1, 0], [2, 0, 2, 2]]
    s = numtorch.sparse_coo_tensor(i, [3.0, 4.0, 5.0, 1.0], (2, 3), requires_grad=True)
    numtorch.sparse.mm(s, numtorch.ones(3, 2)).sum().backward()
    assert s.grad.is_sparse and s.grad.is_coalesced()
    np.testing.assert_array_equal(s.grad.indices().numpy(), [[0, 1, 1], [2, 0, 2]])
    np.testing.assert_array_equal(s.grad.values().numpy(), [2.0, 2.0, 2.0])
    numtorch.mm(s, numtorch.ones(3, 2)).sum().backward()  # mm's gradient is dense: it replaces the sparse one
    assert not s.grad.is_sparse
    np.testing.assert_array_equal(s.grad.numpy(), [[2.0, 2.0, 4.0], [4.0, 2.0, 4.0]])
    s2 = numtorch.sparse_coo_tensor(i, [3.0, 4.0, 5.0, 1.0], (2, 3), requires_grad=True)
    s2.to_dense().sum().backward()
    s2.to_dense().sum().backward()  # sparse + sparse accumulation
    np.testing.assert_array_equal(s2.grad.to_dense().numpy(), [[0, 0, 2], [2, 0, 2]])
    assert numtorch.sparse.sum(s2, 1).grad_fn.name() == "SparseSumBackward0"


def test_dense_input_through_to_sparse_gets_a_dense_gradient():
    d = numtorch.tensor([[0.0, 2.0], [3.0, 0.0]], requires_grad=True)
    numtorch.sparse.mm(d.to_sparse(), numtorch.ones(2, 2)).sum().backward()
    np.testing.assert_array_equal(d.grad.numpy(), [[0.0, 2.0], [2.0, 0.0]])  # only the stored entries


# ---- ops without a SparseCPU kernel ---------------------------------------------------------------
@pytest.mark.parametrize("call, op", [
    (lambda s: numtorch.exp(s), "aten::exp"), (lambda s: s.view(6), "aten::view"),
    (lambda s: s.cumsum(0), "aten::cumsum"), (lambda s: s.flip(0), "aten::flip"),
    (lambda s: s.exp_(), "aten::exp_"), (lambda s: numtorch.sigmoid(s), "aten::sigmoid"),
    (lambda s: s.max(), "aten::max"), (lambda s: s.reshape(3, 2), "aten::"),
])  # fmt: skip
def test_ops_without_a_sparse_kernel_raise_pytorchs_error(call, op):
    s = numtorch.ones(2, 3).to_sparse()
    with pytest.raises(NotImplementedError, match=f"Could not run '{op}.*' with arguments from the 'SparseCPU' backend"):
        call(s)


def test_zero_preserving_ops_act_on_coalesced_values(rng):
    s, idx, vals = _random_sparse(rng)
    a = _dense(idx, vals, (5, 4))
    for name, ref in (("abs", np.abs), ("sin", np.sin), ("relu", lambda x: np.maximum(x, 0)), ("square", np.square)):
        got = getattr(s, name)()
        assert got.is_sparse and got.is_coalesced(), name
        np.testing.assert_allclose(got.to_dense().numpy(), ref(a), rtol=1e-12, err_msg=name)
    t = s.clone()
    t.abs_()
    np.testing.assert_allclose(t.to_dense().numpy(), np.abs(a), rtol=1e-12)
    with pytest.raises(RuntimeError, match="is not sparse"):
        s.pow(-1)


def test_shape_and_creation_ops(rng):
    s, idx, vals = _random_sparse(rng, (5, 4, 2))
    a = _dense(idx, vals, (5, 4, 2))
    np.testing.assert_array_equal(s.permute(1, 0, 2).to_dense().numpy(), a.transpose(1, 0, 2))
    np.testing.assert_array_equal(s.unsqueeze(1).to_dense().numpy(), a[:, None])
    np.testing.assert_array_equal(s.unsqueeze(3).to_dense().numpy(), a[..., None])
    np.testing.assert_array_equal(numtorch.cat([s, s], 1).to_dense().numpy(), np.concatenate([a, a], 1))
    z = numtorch.zeros_like(s)
    assert z.is_sparse and z._nnz() == 0 and z.shape == s.shape
    assert numtorch.zeros(2, 3, layout=numtorch.sparse_coo).is_sparse
    with pytest.raises(NotImplementedError, match="aten::fill_.Scalar"):
        numtorch.ones(2, layout=numtorch.sparse_coo)
    with pytest.raises(RuntimeError, match="transpositions between sparse and dense dimensions are not allowed"):
        s.permute(2, 0, 1)
    assert numtorch.sparse_coo_tensor([[0]], [2.5], (1,)).item() == 2.5
    with pytest.raises(RuntimeError, match="nbytes is not defined for sparse tensors"):
        s.nbytes
    assert s.type() == "torch.sparse.DoubleTensor"


def test_dense_reads_of_a_sparse_tensor_fail_loudly():
    # an optimizer or kernel reaching _data directly must not read zeros for the values
    s = numtorch.ones(2, 2).to_sparse()
    with pytest.raises((TypeError, NotImplementedError)):
        np.ascontiguousarray(s._data)
    p = numtorch.nn.Parameter(numtorch.ones(2, 2))
    p.grad = s
    with pytest.raises(RuntimeError, match="Adam does not support sparse gradients, please consider SparseAdam"):
        numtorch.optim.Adam([p]).step()


def test_select_index_select_and_iteration(rng):
    s, idx, vals = _random_sparse(rng, (5, 4, 2))
    a = _dense(idx, vals, (5, 4, 2))
    np.testing.assert_array_equal(s[3].to_dense().numpy(), a[3])
    np.testing.assert_array_equal(s.select(1, -1).to_dense().numpy(), a[:, -1])
    np.testing.assert_array_equal(s.select(2, 1).to_dense().numpy(), a[..., 1])
    want = numtorch.tensor([3, 3, 0])
    np.testing.assert_array_equal(s.index_select(1, want).to_dense().numpy(), a[:, [3, 3, 0]])
    np.testing.assert_array_equal(s.index_select(2, numtorch.tensor([1])).to_dense().numpy(), a[..., [1]])
    np.testing.assert_array_equal(np.stack([r.to_dense().numpy() for r in s]), a)
    e = numtorch.sparse_coo_tensor([[0], [0]], [1.0], (2, 3))[1]  # an empty row: nnz 0
    assert e._nnz() == 0 and e.to_dense().tolist() == [0.0, 0.0, 0.0] and (e + e).to_dense().sum().item() == 0
    v = numtorch.sparse_coo_tensor([[0, 2, 2]], [1.0, 2.0, 3.0], (3,))
    assert not v[2].is_sparse and v[2].item() == 5.0
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with size 5"):
        s[5]
    with pytest.raises(IndexError, match=r"index_select\(\): index contains 7 that is out of range"):
        s.index_select(0, numtorch.tensor([7]))
