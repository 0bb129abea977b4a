"""View-or-copy decisions of reshape/flatten/ravel/view_as match PyTorch's: the result's
strides, and whether writes through it reach the input."""

import pytest

import numtorch

torch = pytest.importorskip("torch")

_CASES = {
    "ravel_t": lambda L, x: x.t().ravel(),
    "ravel_slice": lambda L, x: x[:, ::2].ravel(),
    "ravel_col": lambda L, x: x[:, :1].ravel(),
    "ravel_step": lambda L, x: x.view(12)[::3].ravel(),
    "ravel_rows": lambda L, x: x[::2].ravel(),
    "ravel": lambda L, x: x.ravel(),
    "flatten_t": lambda L, x: x.t().flatten(),
    "flatten_slice": lambda L, x: x[:, ::2].flatten(),
    "flatten_col": lambda L, x: x[:, :1].flatten(),
    "flatten_rows": lambda L, x: x[::2].flatten(),
    "reshape_t": lambda L, x: x.t().reshape(12),
    "reshape_t_split": lambda L, x: x.t().reshape(2, 2, 3),
    "reshape_slice": lambda L, x: x[:, ::2].reshape(-1),
    "reshape_col": lambda L, x: x[:, 1].reshape(3, 1),
    "reshape_as": lambda L, x: x.t().reshape_as(L.empty(12)),
    "view_as_t": lambda L, x: x.t().view_as(x.t()),
    "view_as_slice": lambda L, x: x[:, ::2].view_as(L.empty(3, 2)),
    "flatten_expanded": lambda L, x: L.ones(2, 1, 3).expand(2, 4, 3).flatten(0, 1),
}


def _decision(lib, make):
    x = lib.arange(12.0).reshape(3, 4)
    y = make(lib, x)
    before = x.clone()
    y.fill_(-1.0)
    return tuple(y.stride()), y.is_contiguous(), bool((x != before).any())


@pytest.mark.parametrize("name", sorted(_CASES))
def test_view_or_copy_matches_pytorch(name):
    assert _decision(numtorch, _CASES[name]) == _decision(torch, _CASES[name])
