"""Variable-length batches for recurrent layers: ``PackedSequence`` and the pack/pad helpers.

A packed batch stores the rows of time step 0 of every sequence, then step 1 of the sequences
still running, and so on (sequences sorted by decreasing length); ``batch_sizes[t]`` counts them.
Packing and padding are index_select / index_put of rows, so gradients flow through them.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

import numtorch

from ... import _dtype as D
from ..._tensor import Tensor, _make

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence",
           "pad_sequence", "unpad_sequence", "pack_sequence", "unpack_sequence"]  # fmt: skip


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """The inverse of a permutation of ``range(n)``.

    >>> numtorch.nn.utils.rnn.invert_permutation(numtorch.tensor([2, 0, 1]))
    tensor([1, 2, 0])
    """
    if permutation is None:
        return None
    out = numtorch.empty_like(permutation)
    return out.scatter_(0, permutation, numtorch.arange(permutation.numel(), dtype=permutation.dtype))


class PackedSequence_(namedtuple("PackedSequence_", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])):
    """The named-tuple base of ``PackedSequence`` (its four fields)."""

    __slots__ = ()


def bind(optional, fn):
    """``fn(optional)``, or None when ``optional`` is None.

    >>> numtorch.nn.utils.rnn.bind(None, len), numtorch.nn.utils.rnn.bind([1, 2], len)
    (None, 2)
    """
    return None if optional is None else fn(optional)


def copy_method_params(source_method):
    """A decorator giving a method ``source_method``'s signature for type checkers; a no-op at run time."""

    def return_func(func):
        return func

    return return_func


class PackedSequence(PackedSequence_):
    """A packed batch of sequences (see ``pack_padded_sequence``); recurrent layers accept it.

    >>> p = numtorch.nn.utils.rnn.pack_sequence([numtorch.ones(3, 2), numtorch.ones(1, 2)])
    >>> p.batch_sizes
    tensor([2, 1, 1])
    """

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            data, batch_sizes = data
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def _map_data(self, fn):
        return type(self)(fn(self.data), self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def to(self, *args, **kwargs):
        data = self.data.to(*args, **kwargs)
        return self if data is self.data else self._map_data(lambda _: data)

    def cpu(self, *args, **kwargs):
        return self.to("cpu")

    def double(self):
        return self.to(dtype=numtorch.float64)

    def float(self):
        return self.to(dtype=numtorch.float32)

    def half(self):
        return self.to(dtype=numtorch.float16)

    def long(self):
        return self.to(dtype=numtorch.int64)

    def int(self):
        return self.to(dtype=numtorch.int32)

    @property
    def is_cuda(self) -> bool:
        return self.data.is_cuda

    def is_pinned(self) -> bool:
        return False


def _rows(batch_sizes: np.ndarray, B: int) -> np.ndarray:
    """Flat t * B + b positions, in packed order, of the rows a packed batch holds."""
    if batch_sizes.size == 0:
        return np.zeros(0, np.int64)
    return np.concatenate([t * B + np.arange(n, dtype=np.int64) for t, n in enumerate(batch_sizes)])


def pack_padded_sequence(input: Tensor, lengths, batch_first: bool = False, enforce_sorted: bool = True):
    """Pack a padded (T, B, *) batch (``batch_first``: (B, T, *)) of the given lengths.

    >>> x = numtorch.arange(6.0).reshape(3, 2)
    >>> numtorch.nn.utils.rnn.pack_padded_sequence(x, [3, 1]).data
    tensor([0., 1., 2., 4.])
    """
    lens = np.asarray(lengths._data if isinstance(lengths, Tensor) else lengths, dtype=np.int64).reshape(-1)
    sorted_indices = None
    if enforce_sorted:
        if lens.size > 1 and np.any(np.diff(lens) > 0):
            raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
                               "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence "
                               "to sidestep this requirement if you do not need ONNX exportability.")  # fmt: skip
    else:
        order = np.argsort(-lens, kind="stable")
        lens = lens[order]
        sorted_indices = _make(order.astype(np.int64), D.int64)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    if lens.size and lens[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' "
                           "that is <= 0")  # fmt: skip
    if batch_first:
        input = input.transpose(0, 1)
    T, B = input.shape[0], input.shape[1]
    if lens.size and lens[0] > T:
        raise RuntimeError(f"Expected sequence length to be at most {T}, but got {int(lens[0])}")
    bs = np.array([(lens > t).sum() for t in range(int(lens[0]) if lens.size else 0)], np.int64)
    idx = _make(_rows(bs, B), D.int64)
    data = input.reshape((T * B,) + tuple(input.shape[2:])).index_select(0, idx)
    return PackedSequence(data, _make(bs, D.int64), sorted_indices, None)


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False, padding_value: float = 0.0,
                        total_length: int | None = None):  # fmt: skip
    """Inverse of ``pack_padded_sequence``: (padded, lengths).

    >>> p = numtorch.nn.utils.rnn.pack_sequence([numtorch.ones(2), numtorch.ones(1)])
    >>> numtorch.nn.utils.rnn.pad_packed_sequence(p)
    (tensor([[1., 1.],
            [1., 0.]]), tensor([2, 1]))
    """
    data, batch_sizes = sequence.data, sequence.batch_sizes
    bs = np.asarray(batch_sizes._data, np.int64)
    T = bs.size
    if total_length is not None:
        if total_length < T:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, "
                             f"but got total_length={total_length} and max sequence length being {T}")  # fmt: skip
        T = total_length
    B = int(bs[0]) if bs.size else 0
    feat = tuple(data.shape[1:])
    idx = _make(_rows(bs, B), D.int64)
    flat = numtorch.full((T * B,) + feat, padding_value, dtype=data.dtype).index_put((idx,), data)
    padded = flat.reshape((T, B) + feat)
    lengths = np.array([(bs > b).sum() for b in range(B)], np.int64)
    if batch_first:
        padded = padded.transpose(0, 1)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(0 if batch_first else 1, sequence.unsorted_indices)
        lengths = lengths[sequence.unsorted_indices._data]
    return padded, _make(lengths, D.int64)


def pad_sequence(sequences, batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:  # fmt: skip
    """Stack variable-length (L_i, *) tensors into (max L, B, *) (``batch_first``: (B, max L, *)).

    >>> numtorch.nn.utils.rnn.pad_sequence([numtorch.ones(2), numtorch.ones(1)], batch_first=True)
    tensor([[1., 1.],
            [1., 0.]])
    """
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if isinstance(sequences, Tensor):
        sequences = sequences.unbind(0)
    sequences = list(sequences)
    L = max(s.shape[0] for s in sequences)
    rows = []
    for s in sequences:
        pad = numtorch.full((L - s.shape[0],) + tuple(s.shape[1:]), padding_value, dtype=s.dtype)
        rows.append(numtorch.cat([s, pad] if padding_side == "right" else [pad, s], 0))
    return numtorch.stack(rows, 0 if batch_first else 1)


def unpad_sequence(padded_sequences: Tensor, lengths: Tensor, batch_first: bool = False) -> list:
    """Split a padded batch back into its sequences.

    >>> x = numtorch.ones(2, 3)
    >>> [t.shape for t in numtorch.nn.utils.rnn.unpad_sequence(x, numtorch.tensor([3, 1]), True)]
    [torch.Size([3]), torch.Size([1])]
    """
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq[: int(n)] for seq, n in zip(padded_sequences.unbind(0), lengths)]


def pack_sequence(sequences, enforce_sorted: bool = True) -> PackedSequence:
    """Pack a list of variable-length (L_i, *) tensors.

    >>> numtorch.nn.utils.rnn.pack_sequence([numtorch.ones(2), numtorch.ones(1)]).batch_sizes
    tensor([2, 1])
    """
    lengths = [s.size(0) for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list:
    """The list of sequences a ``PackedSequence`` holds (inverse of ``pack_sequence``).

    >>> p = numtorch.nn.utils.rnn.pack_sequence([numtorch.ones(2), numtorch.ones(1)])
    >>> [t.shape for t in numtorch.nn.utils.rnn.unpack_sequence(p)]
    [torch.Size([2]), torch.Size([1])]
    """
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
