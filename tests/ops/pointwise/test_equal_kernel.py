"""torch.equal's one-kernel route (all_equal through its compiled entry in the body,
all_equal_nd in the binding's fast call) against NumPy's
comparison: every dtype it takes, NaN, signed zeros, first and last differences, empty and 0-d
inputs; other dtypes, strided inputs and mixed dtypes take the NumPy or promoting routes."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops.pointwise import close_fast, compare


def _spy(monkeypatch):
    seen = []
    real = compare.call

    def spy(mod, name, args):
        seen.append(name)
        return real(mod, name, args)

    monkeypatch.setattr(compare, "call", spy)

    class Entries(dict):  # the binding's fast call runs the same loop (Note [Close fast calls])
        def get(self, k, d=None):
            seen.append("all_equal")
            return super().get(k, d)

    monkeypatch.setattr(close_fast, "_EQ_ENTRIES", Entries())
    return seen


@pytest.mark.parametrize("dtype", [np.bool_, np.int32, np.int64, np.float32, np.float64])
def test_kernel_route_matches_numpy(dtype, monkeypatch):
    seen = _spy(monkeypatch)
    rng = np.random.default_rng(0)
    a = (rng.standard_normal((3, 4)) > 0 if dtype is np.bool_ else rng.integers(-5, 5, (3, 4))).astype(dtype)
    cases = [(a, a.copy())]
    for i in (0, 5, 11):  # a difference first, in the middle, last
        b = a.copy()
        b.reshape(-1)[i] = not b.reshape(-1)[i] if dtype is np.bool_ else b.reshape(-1)[i] + 1
        cases.append((a, b))
    if np.dtype(dtype).kind == "f":
        n = a.copy()
        n[1, 1] = np.nan
        z, mz = np.zeros(3, dtype), -np.zeros(3, dtype)
        cases += [(n, n.copy()), (z, mz), (np.array(np.nan, dtype), np.array(np.nan, dtype))]
    cases += [(a[:0], a[:0].copy()), (np.array(3, dtype), np.array(3, dtype))]
    for x, y in cases:
        want = bool(np.logical_and.reduce(np.equal(x, y), axis=None))
        assert torch.equal(torch.from_numpy(x), torch.from_numpy(y)) is want
    assert seen.count("all_equal") == len(cases)


def test_other_inputs_take_the_numpy_route(monkeypatch):
    seen = _spy(monkeypatch)
    a = np.arange(12.0).reshape(3, 4)
    assert torch.equal(torch.from_numpy(a).t(), torch.from_numpy(a.T.copy()))
    assert torch.equal(torch.from_numpy(a.astype(np.int16)), torch.from_numpy(a.astype(np.int16)))
    assert torch.equal(torch.from_numpy(a), torch.from_numpy(a.astype(np.float32)))
    assert not torch.equal(torch.from_numpy(a), torch.from_numpy(a[:2]))
    assert torch.equal(torch.tensor([1 + 2j]), torch.tensor([1 + 2j]))
    assert seen == []


def test_large_inputs_keep_numpys_vectorised_comparison(monkeypatch):
    seen = _spy(monkeypatch)
    a = torch.ones(4096)
    assert torch.equal(a, a.clone()) and seen == ["all_equal"]
    seen.clear()
    b = torch.ones(131072)
    assert torch.equal(b, b.clone()) and not seen
    c = b.clone()
    c[-1] = 2
    assert not torch.equal(b, c) and not seen
