"""embedding_bag without a gradient wanted goes through _embedding_bag_forward_only's kernel
(Note [embedding_bag forward only]): every output against the op route (weight requiring grad)
for each mode, per_sample_weights, padding_idx, include_last_offset, empty bags and NaN rows."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch


def _both(w, *args, **kw):
    fast = numtorch.embedding_bag(w, *args, **kw)
    slow = numtorch.embedding_bag(w.detach().clone().requires_grad_(), *args, **kw)
    return fast, slow


@pytest.mark.parametrize("mode", [0, 1, 2])
@pytest.mark.parametrize("padding_idx", [None, 2])
@pytest.mark.parametrize("include_last_offset", [False, True])
@pytest.mark.parametrize("dt", [numtorch.float32, numtorch.float64])
def test_outputs_match_the_op_route(mode, padding_idx, include_last_offset, dt):
    rng = np.random.default_rng(mode + 3 * (padding_idx or 0))
    w = numtorch.from_numpy(rng.standard_normal((7, 4))).to(dt)
    w[5, 1] = float("nan")
    idx = numtorch.from_numpy(rng.integers(0, 7, 20))
    off = numtorch.tensor([0, 3, 3, 9, 20])  # an empty bag, and with include_last_offset a last one
    psw = numtorch.from_numpy(rng.standard_normal(20)).to(dt) if mode == 0 else None
    fast, slow = _both(w, idx, off, False, mode, False, psw, include_last_offset, padding_idx)
    assert fast[0].grad_fn is None and slow[0].grad_fn is not None
    for a, b in zip(fast, slow, strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-6 if dt == numtorch.float32 else 1e-15)


def test_no_grad_and_dispatch_name():
    w = numtorch.randn(5, 3, requires_grad=True)
    idx, off = numtorch.tensor([0, 4, 1, 1]), numtorch.tensor([0, 2])
    with numtorch.no_grad():
        out = numtorch.nn.functional.embedding_bag(idx, w, off, mode="max")
    np.testing.assert_array_equal(out.numpy(), np.maximum(w.detach().numpy()[[0, 1]], w.detach().numpy()[[4, 1]]))
    got = numtorch.ops.aten._embedding_bag_forward_only(w.detach(), idx, off, False, 0)
    np.testing.assert_allclose(got[0].numpy(), [w[[0, 4]].sum(0).tolist(), w[[1, 1]].sum(0).tolist()], rtol=1e-6)


def test_out_of_range_index_is_refused():
    with pytest.raises(RuntimeError, match=r"Index 1 of input takes value 9 which is not in the valid range \[0, 5\)"):
        numtorch.embedding_bag(numtorch.ones(5, 2), numtorch.tensor([0, 9]), numtorch.tensor([0]))


@pytest.mark.parametrize("include_last_offset", [False, True])
def test_long_inputs_bag_assignment(include_last_offset):
    # past 64 indices the bag of each index comes from one pass over ascending offsets
    rng = np.random.default_rng(9)
    n = 300
    offs = np.array([0, 0, 17, 17, 17, 150, 299, 300 if include_last_offset else 299])
    w = numtorch.from_numpy(rng.standard_normal((11, 2)))
    idx = rng.integers(0, 11, n)
    fast, slow = _both(w, numtorch.from_numpy(idx), numtorch.from_numpy(offs), False, 1, False, None,
                       include_last_offset, None)  # fmt: skip
    n_bags = len(offs) - 1 if include_last_offset else len(offs)
    want = np.clip(np.searchsorted(offs[:n_bags], np.arange(n), side="right") - 1, 0, n_bags - 1)
    np.testing.assert_array_equal(fast[1].numpy(), want)
    for a, b in zip(fast, slow, strict=True):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-14)
