"""The ``*_copy`` and ``*_scatter`` ops against torch: values, dtype, contiguity."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch

torch = pytest.importorskip("torch")

_CALLS = [
    ("as_strided_copy", ((2, 2), (1, 3), 1)), ("diagonal_copy", (1, 0, 1)), ("expand_copy", ((2, 3, 4),)),
    ("narrow_copy", (1, 1, 2)), ("permute_copy", ((1, 0),)), ("select_copy", (0, 2)), ("slice_copy", (1, 1, 4, 2)),
    ("t_copy", ()), ("transpose_copy", (0, 1)), ("unfold_copy", (1, 2, 1)), ("unsqueeze_copy", (1,)),
    ("view_copy", ((4, 3),)), ("squeeze_copy", ()), ("alias_copy", ()), ("detach_copy", ()),
]  # fmt: skip


@pytest.mark.parametrize("name, args", _CALLS, ids=[c[0] for c in _CALLS])
def test_copies(name, args):
    a = np.arange(12.0).reshape(3, 4)
    got, want = getattr(numtorch, name)(numtorch.tensor(a), *args), getattr(torch, name)(torch.tensor(a), *args)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert got.is_contiguous() == want.is_contiguous() and tuple(got.stride()) == tuple(want.stride())


@pytest.mark.parametrize("name, args", [("select_scatter", (np.ones(4), 1, 2)), ("slice_scatter", (np.ones((2, 4)), 0, 1, 4, 2)),
                                        ("diagonal_scatter", (np.ones(3), 1)), ("as_strided_scatter", (np.ones(2), (2,), (2,), 1))])  # fmt: skip
def test_scatters(name, args):
    a = np.arange(16.0).reshape(4, 4)
    src, rest = args[0], args[1:]
    got = getattr(numtorch, name)(numtorch.tensor(a), numtorch.tensor(src), *rest)
    want = getattr(torch, name)(torch.tensor(a), torch.tensor(src), *rest)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
