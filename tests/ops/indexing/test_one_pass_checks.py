"""Single-pass checks that replaced NumPy reductions on small calls: embedding's bounds
(first_out_of_range), one_hot's class range (minmax_all) and masked_select without broadcasts
when the mask has the input's shape. Values against NumPy, errors as PyTorch's."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
import numtorch.nn.functional as F
from numtorch.ops.indexing import masked


def test_embedding_bounds():
    w = torch.from_numpy(np.arange(15.0).reshape(5, 3))
    for idx in ([0, 4, 2], [[1, 1], [4, 0]]):
        i = np.array(idx)
        assert np.array_equal(F.embedding(torch.tensor(idx), w).numpy(), w.numpy()[i])
        assert np.array_equal(F.embedding(torch.tensor(idx, dtype=torch.int32), w).numpy(), w.numpy()[i])
    for bad in ([5], [0, -1], [-6], [2, 0, 7]):
        with pytest.raises(IndexError, match="index out of range in self"):
            F.embedding(torch.tensor(bad), w)
    assert F.embedding(torch.tensor([], dtype=torch.int64), w).shape == (0, 3)


def test_one_hot_range():
    for idx, k in (([0, 2, 1], -1), ([3], -1), ([0, 1], 5), (list(range(130)), -1), ([[1, 0], [2, 2]], 3)):
        a = np.array(idx)
        n = a.max() + 1 if k == -1 else k
        assert np.array_equal(F.one_hot(torch.tensor(idx), k).numpy(), (a[..., None] == np.arange(n)).astype(np.int64))
    with pytest.raises(RuntimeError, match="Class values must be non-negative."):
        F.one_hot(torch.tensor([7, -1]), 3)  # the negative value's error first, as PyTorch's
    with pytest.raises(RuntimeError, match="Class values must be smaller than num_classes."):
        F.one_hot(torch.tensor([0, 5]), 3)
    with pytest.raises(RuntimeError, match="Can not infer total number of classes from empty tensor."):
        F.one_hot(torch.tensor([], dtype=torch.int64))


def test_masked_select_same_shape_skips_the_broadcast(monkeypatch):
    x = torch.from_numpy(np.arange(12.0).reshape(3, 4))
    m = x > 4.5
    calls = []
    real = np.broadcast_to
    monkeypatch.setattr(masked.np, "broadcast_to", lambda *a, **k: calls.append(1) or real(*a, **k))
    r = torch.masked_select(x, m)
    assert not calls and np.array_equal(r.numpy(), x.numpy()[m.numpy()])
    r = torch.masked_select(x, m[0])  # a broadcast mask: broadcast_to
    assert calls and np.array_equal(r.numpy(), x.numpy()[np.broadcast_to(m.numpy()[0], (3, 4))])
    with pytest.raises(RuntimeError, match="masked_select: expected BoolTensor for mask"):
        torch.masked_select(x, m.to(torch.uint8))
