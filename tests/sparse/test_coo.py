"""Sparse COO construction, conversion, accessors and printing (numtorch/ops/sparse/core.py)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import numtorch
from numtorch._sparse_tensor import SparseCooTensor

IDX = [[0, 1, 1, 0], [2, 0, 2, 2]]
VALS = [3.0, 4.0, 5.0, 1.0]
DENSE = np.array([[0.0, 0.0, 4.0], [4.0, 0.0, 5.0]], np.float32)  # duplicates (0, 2) summed


def _s(**kw):
    return numtorch.sparse_coo_tensor(IDX, VALS, (2, 3), **kw)


def test_constructor_metadata():
    s = _s()
    assert isinstance(s, numtorch.Tensor) and type(s) is SparseCooTensor
    assert s.layout is numtorch.sparse_coo and s.is_sparse and numtorch.ones(1).layout is numtorch.strided
    assert (s.shape, s.dtype, s.device.type) == (numtorch.Size([2, 3]), numtorch.float32, "cpu")
    assert (s._nnz(), s.sparse_dim(), s.dense_dim(), s.is_coalesced(), s.dim(), s.numel()) == (4, 2, 0, False, 2, 6)
    np.testing.assert_array_equal(s.to_dense().numpy(), DENSE)


def test_size_is_inferred_and_dtype_converted():
    s = numtorch.sparse_coo_tensor(numtorch.tensor(IDX, dtype=numtorch.int32), VALS, dtype=numtorch.float64)
    assert s.shape == (2, 3) and s.dtype is numtorch.float64 and s._indices().dtype is numtorch.int64
    e = numtorch.sparse_coo_tensor(numtorch.zeros(2, 0, dtype=numtorch.int64), numtorch.zeros(0))
    assert e.shape == (0, 0) and e._nnz() == 0


def test_hybrid_tensor_has_dense_dims():
    h = numtorch.sparse_coo_tensor([[0, 2]], numtorch.ones(2, 3), (4, 3))
    assert (h.sparse_dim(), h.dense_dim()) == (1, 1)
    ref = np.zeros((4, 3), np.float32)
    ref[[0, 2]] = 1
    np.testing.assert_array_equal(h.to_dense().numpy(), ref)


@pytest.mark.parametrize("args, msg", [
    ((IDX, VALS, (2, 3, 4)), r"'len\(size\) == sparse_dim \+ dense_dim' is not satisfied: len\(size\) = 3, sparse_dim = 2, dense_dim = 0"),
    ((IDX, VALS[:3], (2, 3)), "indices and values must have same nnz, but got nnz from indices: 4, nnz from values: 3"),
    ((IDX[0], VALS, (2, 3)), r"'len\(size\) == sparse_dim \+ dense_dim' is not satisfied: len\(size\) = 2, sparse_dim = 4"),
    (([[0, -1]], [1.0, 2.0], None), "found negative index -1 for dim 0"),
    ((IDX, VALS, (2, 2)), "size is inconsistent with indices: for dim 1, size is 2 but found index 2"),
    ((IDX, VALS, (2, -3)), "numel: integer multiplication overflow"),
    (([[1, 0]], [1.0, 2.0], (2,), {"is_coalesced": True}), "cannot set is_coalesced to true if indices correspond"),
])  # fmt: skip
def test_constructor_errors_are_pytorchs(args, msg):
    kw = args[3] if len(args) > 3 else {}
    with pytest.raises(RuntimeError, match=msg):
        numtorch.sparse_coo_tensor(*args[:3], **kw)
    assert numtorch.sparse_coo_tensor([[0, 1]], [1.0, 2.0], is_coalesced=True).is_coalesced()


def test_coalesce_sums_duplicates_and_sorts():
    c = _s().coalesce()
    assert c.is_coalesced() and c.coalesce() is c
    np.testing.assert_array_equal(c.indices().numpy(), [[0, 1, 1], [2, 0, 2]])
    np.testing.assert_array_equal(c.values().numpy(), [4.0, 4.0, 5.0])
    with pytest.raises(RuntimeError, match="Cannot get indices on an uncoalesced tensor, please call .coalesce"):
        _s().indices()
    with pytest.raises(RuntimeError, match="Cannot get values on an uncoalesced tensor"):
        _s().values()
    np.testing.assert_array_equal(_s()._values().numpy(), VALS)


def test_values_alias_the_sparse_tensor():
    s = _s()
    s._values().mul_(2)
    np.testing.assert_array_equal(s.to_dense().numpy(), DENSE * 2)


@pytest.mark.parametrize("sparse_dim", [None, 1, 2, 0])
def test_to_sparse_round_trips(sparse_dim):
    d = numtorch.tensor([[0.0, 2.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    s = d.to_sparse() if sparse_dim is None else d.to_sparse(sparse_dim)
    assert s.is_coalesced() and s.sparse_dim() == (2 if sparse_dim is None else sparse_dim)
    np.testing.assert_array_equal(s.to_dense().numpy(), d.numpy())
    assert d.to_sparse_coo()._nnz() == 2 and d.to_dense() is d


def test_to_sparse_errors():
    d = numtorch.zeros(2, 3)
    with pytest.raises(RuntimeError, match=r"sparse_dim argument must be in \[0,2\] range, but 3 is given"):
        d.to_sparse(3)
    with pytest.raises(RuntimeError, match="conversion from Sparse to Sparse with sparse_dim argument"):
        d.to_sparse().to_sparse(1)
    with pytest.raises(NotImplementedError, match="sparse_coo layout"):
        d.to_sparse(layout=numtorch.sparse_csr)


def test_dense_tensors_refuse_sparse_accessors():
    d = numtorch.ones(2)
    assert (d.sparse_dim(), d.dense_dim(), d.is_sparse) == (0, 1, False)
    for name in ("indices", "values", "is_coalesced", "coalesce"):
        with pytest.raises(RuntimeError, match=f"{name} expected sparse coordinate tensor layout but got Strided"):
            getattr(d, name)()
    with pytest.raises(NotImplementedError, match="Could not run 'aten::_nnz' with arguments from the 'CPU' backend"):
        d._nnz()


def test_repr_matches_pytorch():
    assert repr(_s()) == (
        "tensor(indices=tensor([[0, 1, 1, 0],\n"
        "                       [2, 0, 2, 2]]),\n"
        "       values=tensor([3., 4., 5., 1.]),\n"
        "       size=(2, 3), nnz=4, layout=torch.sparse_coo)"
    )
    s = numtorch.sparse_coo_tensor(IDX, VALS, (2, 3), dtype=numtorch.float64, requires_grad=True)
    assert repr(s).endswith("size=(2, 3), nnz=4, dtype=torch.float64, layout=torch.sparse_coo,\n       requires_grad=True)")
    e = numtorch.sparse_coo_tensor(numtorch.zeros(2, 0, dtype=numtorch.int64), numtorch.zeros(0), (2, 2))
    assert repr(e) == ("tensor(indices=tensor([], size=(2, 0)),\n       values=tensor([], size=(0,)),\n"
                       "       size=(2, 2), nnz=0, layout=torch.sparse_coo)")  # fmt: skip


def test_value_readers_refuse_instead_of_reading_zeros():
    s = _s()
    with pytest.raises(TypeError, match="can't convert Sparse layout tensor to numpy. Use Tensor.to_dense"):
        s.numpy()
    with pytest.raises(RuntimeError, match="Sparse tensors do not have strides"):
        s.stride()
    with pytest.raises(RuntimeError, match="Cannot access data pointer"):
        s.data_ptr()
    with pytest.raises(TypeError):
        np.asarray(s)


def test_pickle_and_deepcopy_keep_the_entries():
    import copy

    for t in (pickle.loads(pickle.dumps(_s())), copy.deepcopy(_s())):
        assert t.is_sparse
        np.testing.assert_array_equal(t.to_dense().numpy(), DENSE)
    assert pickle.loads(pickle.dumps(numtorch.sparse_coo)) is numtorch.sparse_coo


def test_save_and_load_keep_the_entries(tmp_path):
    c = _s().coalesce()
    numtorch.save({"s": c, "layout": numtorch.sparse_coo}, tmp_path / "s.pt")
    got = numtorch.load(tmp_path / "s.pt")  # weights_only: the sparse rebuild is allowed
    assert got["layout"] is numtorch.sparse_coo and got["s"].is_coalesced()
    np.testing.assert_array_equal(got["s"].to_dense().numpy(), DENSE)


def test_check_sparse_tensor_invariants_is_a_switch():
    cls = numtorch.sparse.check_sparse_tensor_invariants
    assert not cls.is_enabled()
    with cls():
        assert cls.is_enabled()
    assert not cls.is_enabled()
