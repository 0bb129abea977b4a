"""Note [embedding_bag fast call]: F.embedding_bag's fast call gives the body's bits and leaves
every optional argument, bad index or offset, gradient and mode to the body."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
import numtorch.nn.functional as F
from numtorch.ops._registry import BINDINGS
from numtorch.ops.nn import embedding_bag_fast
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs

from ._fastcheck import outcome, same

_SIG = ("input", "weight", "offsets", "max_norm", "norm_type", "scale_grad_by_freq", "mode", "sparse",
        "per_sample_weights", "include_last_offset", "padding_idx")  # fmt: skip
_DEFAULTS = dict(offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean", sparse=False,
                 per_sample_weights=None, include_last_offset=False, padding_idx=None)  # fmt: skip


def _body(*args, **kw):
    (b,) = [b for b in BINDINGS if b.module == "torch.nn.functional" and b.name == "embedding_bag"]
    vals = dict(_DEFAULTS, **dict(zip(_SIG, args, strict=False)), **kw)
    return b.body(*[vals[k] for k in _SIG])


def _spy(monkeypatch):
    ran = []
    real = embedding_bag_fast._make
    monkeypatch.setattr(embedding_bag_fast, "_make", lambda *a: ran.append(1) or real(*a))
    return ran


def _w(num, dim, dtype):
    a = np.random.default_rng(num).standard_normal((num, dim)) * 5
    a.flat[:3] = [np.nan, -0.0, np.inf]
    return torch.from_numpy(a).to(dtype)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_fast_call_gives_the_bodys_bits(mode, dtype, monkeypatch):
    ran = _spy(monkeypatch)
    w = _w(6, 3, dtype)
    i = torch.tensor([0, 2, 4, 5, 4, 3, 2, 0])
    cases = [
        (i, w, torch.tensor([0, 2, 4, 5])), (i, w, torch.tensor([0, 0, 3, 3, 8])), (i, w, torch.tensor([0])),
        (i.reshape(2, 4), w, None), (i.reshape(8, 1), w, None),
        (torch.from_numpy(np.random.default_rng(1).integers(0, 6, 300)), w, torch.tensor([0, 5, 5, 120, 299])),
    ]  # fmt: skip
    for args in cases:
        want = _body(*args, mode=mode)
        ran.clear()
        same(F.embedding_bag(*args, mode=mode), want)
        assert ran


def test_the_rest_takes_the_body(monkeypatch):
    w = _w(6, 3, torch.float32)
    i = torch.tensor([0, 2, 4, 5, 4, 3, 2, 0])
    off = torch.tensor([0, 2, 4, 5])
    ran = _spy(monkeypatch)
    cases = [
        ((torch.tensor([0, 6, 1]), w, torch.tensor([0, 1])), {}), ((torch.tensor([0, -1, 1]), w, torch.tensor([0])), {}),
        ((i, w, torch.tensor([1, 2])), {}), ((i, w, torch.tensor([0, 3, 2])), {}), ((i, w, torch.tensor([0, 9])), {}),
        ((i.int(), w, off.int()), {}), ((i, w, off.int()), {}), ((i, w, off), {"padding_idx": 2}),
        ((i, w, off), {"include_last_offset": True}), ((i, w, off), {"per_sample_weights": torch.ones(8)}),
        ((i, w, off), {"scale_grad_by_freq": True}), ((i, w, off), {"mode": "bad"}), ((i, w.double().half(), off), {}),
        ((i, w, None), {}), ((i.reshape(2, 4), w, off), {}), ((i[:0], w, torch.tensor([0])), {}),
        ((i, w[:, :1].t(), off), {}), ((i, w.clone(), off), {"max_norm": 1.0}),
    ]  # fmt: skip
    for args, kw in cases:
        want = outcome(_body, *args, **kw)
        same(outcome(F.embedding_bag, *args, **kw), want)
    assert not ran
    wg = w.clone().requires_grad_(True)
    r = F.embedding_bag(i, wg, off)
    assert r.grad_fn is not None
    r.nansum().backward()
    assert wg.grad is not None and not ran
    with torch.no_grad():  # forward only: the fast call
        same(F.embedding_bag(i, wg, off), _body(i, w, off))
    assert ran
    ran.clear()
    with capture_logs() as logs, LoggingTensorMode():
        F.embedding_bag(i, w, off)
    assert logs and not ran


@pytest.mark.parametrize("dim", [1, 2, 3, 4, 5, 7, 8, 9, 17])
@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_offsets_reduce_lanes_and_row_loop(dim, mode, dtype, monkeypatch):
    # offsets_reduce folds up to 8 columns four at a time (the last column repeated past the
    # end) and more a row at a time; long bags, empty bags, NaN/inf/-0.0 in every column and
    # strided indices all give the body's bits
    ran = _spy(monkeypatch)
    rng = np.random.default_rng(dim)
    a = rng.standard_normal((11, dim)) * 5
    a[1], a[2], a[3] = np.nan, np.inf, -0.0
    w = torch.from_numpy(a).to(dtype)
    i = torch.from_numpy(rng.integers(0, 11, 2000))
    for idx, off in [(i, torch.tensor([0, 0, 700, 700, 1999])), (i[::2], torch.tensor([0, 3, 1000])),
                     (i[4:], torch.tensor([0, 1996])), (i.reshape(50, 40), None)]:  # fmt: skip
        want = _body(idx, w, off, mode=mode)
        ran.clear()
        same(F.embedding_bag(idx, w, off, mode=mode), want)
        assert ran
