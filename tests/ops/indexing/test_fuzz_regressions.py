"""Indexing regressions found by differential fuzzing against PyTorch (issue 10); expected
values are PyTorch 2.13's."""

import pytest

import numtorch as nt


def test_bucketize_compares_in_the_common_dtype():
    # int64 past float16's range is inf against float16 boundaries
    b = nt.tensor([0.1, 300.0, 65504.0, 70000.0], dtype=nt.float64).to(nt.float16)  # [.., inf]
    assert nt.bucketize(nt.tensor([2**24 + 1]), b, right=True).tolist() == [4]
    x = nt.tensor([70000.0], dtype=nt.float64).to(nt.float16)  # inf
    assert nt.bucketize(x, nt.tensor([0, 300, 65504, 2**24 + 1])).tolist() == [3]
    assert nt.searchsorted(nt.tensor([0, 300, 65504, 2**24 + 1]), x).tolist() == [3]


def test_bucketize_takes_a_python_scalar():
    r = nt.bucketize(1.5, nt.tensor([1, 2]))
    assert r.ndim == 0 and r.item() == 1 and r.dtype is nt.int64


@pytest.mark.parametrize("index", [[0, 0], []])
def test_index_select_of_a_0d_tensor_takes_exactly_one_index(index):
    idx = nt.tensor(index, dtype=nt.int64)
    msg = rf"^index_select\(\): Index to scalar can have only 1 value, got {len(index)} value\(s\)$"
    with pytest.raises(RuntimeError, match=msg):
        nt.index_select(nt.tensor(1.5), 0, idx)
    assert nt.index_select(nt.tensor(1.5), 0, nt.tensor([0])).shape == ()
