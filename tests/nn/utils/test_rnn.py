"""nn.utils.rnn: packing and padding round trips, gradients through them, errors."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch.nn.utils import rnn as R


def _seqs():
    return [numtorch.arange(n * 2, dtype=numtorch.float64).reshape(n, 2) + 10 * n for n in (2, 4, 1)]


def test_pack_sequence_layout_and_round_trip():
    seqs = _seqs()
    p = R.pack_sequence(seqs, enforce_sorted=False)
    assert p.batch_sizes.tolist() == [3, 2, 1, 1]
    assert p.sorted_indices.tolist() == [1, 0, 2] and p.unsorted_indices.tolist() == [1, 0, 2]
    np.testing.assert_array_equal(p.data[:3].numpy(), np.stack([s[0].numpy() for s in (seqs[1], seqs[0], seqs[2])]))
    for a, b in zip(R.unpack_sequence(p), seqs):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_pad_packed_sequence_total_length_and_padding_value():
    p = R.pack_sequence(_seqs(), enforce_sorted=False)
    padded, lengths = R.pad_packed_sequence(p, batch_first=True, padding_value=-1.0, total_length=6)
    assert padded.shape == (3, 6, 2) and lengths.tolist() == [2, 4, 1]
    assert (padded[0, 2:] == -1).all() and (padded[2, 1:] == -1).all()
    with pytest.raises(ValueError, match="Expected total_length to be at least the length of the longest"):
        R.pad_packed_sequence(p, total_length=2)


def test_pad_sequence_sides_and_unpad():
    s = _seqs()
    right = R.pad_sequence(s)
    assert right.shape == (4, 3, 2)
    left = R.pad_sequence(s, batch_first=True, padding_side="left")
    np.testing.assert_array_equal(left[2, -1].numpy(), s[2][0].numpy())
    back = R.unpad_sequence(right, numtorch.tensor([2, 4, 1]))
    assert [t.shape[0] for t in back] == [2, 4, 1]


def test_gradient_flows_through_pack_and_pad():
    x = numtorch.randn(4, 3, dtype=numtorch.float64, requires_grad=True)
    p = R.pack_padded_sequence(x, [4, 2, 1])
    padded, _ = R.pad_packed_sequence(p)
    padded.sum().backward()
    expected = np.array([[1, 1, 1], [1, 1, 0], [1, 0, 0], [1, 0, 0]], dtype=float)
    np.testing.assert_array_equal(x.grad.numpy(), expected)


def test_zero_length_is_refused():
    with pytest.raises(RuntimeError, match="Length of all samples has to be greater than 0"):
        R.pack_padded_sequence(numtorch.zeros(3, 2), [3, 0])
