"""Note [Expand geometry cache]: expand/broadcast_to/expand_as to more dims than the input (or
with -1) keep the walk's answer per (shape, strides, itemsize, sizes); the cached route gives
the body's view (shape, strides, offset, storage, base, version counter, values) or its error,
for every dtype; non-int sizes never reach a key; the table stays bounded."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops.shape import fast_expand

from .._fastcall import binding
from .._fastcall import outcome as _outcome
from .._fastcall import same_view as _same


def _body(module, name):
    return binding(name, module).body


DTYPES = [
    torch.float32,
    torch.float64,
    torch.float16,
    torch.bfloat16,
    torch.bool,
    torch.int8,
    torch.int32,
    torch.int64,
    torch.uint8,
    torch.complex64,
]


def _inputs(dt):
    base = torch.arange(24).reshape(2, 3, 4).to(dt)
    yield base[:, :1, :]  # (2, 1, 4) view, not contiguous: the body
    yield torch.arange(3).reshape(3, 1).to(dt)
    yield torch.arange(4).to(dt)
    yield torch.arange(4).reshape(1, 4).to(dt)
    yield torch.tensor(3).to(dt)  # 0-d
    yield torch.zeros(0, 1, dtype=dt)  # empty: the body


SIZES = [
    (2, 3, 4),
    (5, 3, 1),
    (2, -1, 4),
    (-1, 3, 4),
    (1, 3, 4),
    (2, 1, 3, 4),
    (7, 1, 4),
    (2, 3, 0),
    (3, 4),
    (4,),
    (-1,),
    (2, 0, 4),
    (0, 3, 1),
    (-1, -1),
    (2, 3, 5),
    (1, 1, 1, 1),
]


@pytest.mark.parametrize("dt", DTYPES, ids=str)
def test_expand_broadcast_to_and_expand_as_match_body(dt):
    expand, bto, eas = (
        _body("Tensor", "expand"),
        _body("torch", "broadcast_to"),
        _body("Tensor", "expand_as"),
    )
    for x in _inputs(dt):
        for sz in SIZES:
            for _ in range(2):  # the walk, then the cached answer
                _same(_outcome(x.expand, *sz), _outcome(expand, x, sz), x)
                _same(_outcome(x.expand, list(sz)), _outcome(expand, x, list(sz)), x)
                _same(_outcome(torch.broadcast_to, x, sz), _outcome(bto, x, sz), x)
                if -1 not in sz:
                    o = torch.zeros(sz, dtype=torch.int64)
                    _same(_outcome(x.expand_as, o), _outcome(eas, x, o), x)


def test_the_cached_walk_is_taken(monkeypatch):
    calls = []
    walk = fast_expand._expand_geometry
    monkeypatch.setattr(fast_expand, "_expand_geometry", lambda *a: calls.append(a) or walk(*a))
    fast_expand._GEOMETRY.clear()
    x, o = torch.zeros(3, 1), torch.zeros(2, 3, 4)
    r1, r2 = x.expand_as(o), x.expand_as(o)
    assert len(calls) == 1 and len(fast_expand._GEOMETRY) == 1  # once, then from the table
    assert r1.stride() == r2.stride() == (0, 1, 0) and r1._base is x and r2._base is x
    assert x.expand(2, 3, 4).stride() == (0, 1, 0) and len(calls) == 1  # expand shares the entry
    x.expand(5, -1, 4)
    assert len(calls) == 2
    w = x.detach().requires_grad_(True)  # a gradient to record: the body, not the table
    assert w.expand_as(o).grad_fn is not None and len(calls) == 2


def test_non_int_sizes_take_the_body_even_when_cached():
    x = torch.arange(3.0).reshape(3, 1)
    body = _body("Tensor", "expand")
    x.expand(2, 3, 4)  # (2, 3, 4) cached; (2.0, 3, 4) and (True, 3, 4) compare equal to it
    for sz in [(2.0, 3, 4), (True, 3, 4), (1, True, 4), (np.int64(2), 3, 4)]:
        r, want = _outcome(x.expand, sz), _outcome(body, x, sz)
        if isinstance(want, tuple):
            assert r == want
        else:
            _same(r, want, x)


def test_failed_walks_are_cached_as_the_body():
    x = torch.arange(3.0).reshape(3, 1)
    body = _body("Tensor", "expand")
    for _ in range(2):
        for sz in [(2, 4, 4), (-1, 3, 1), (2, -2, 1), (3, 1, -1)]:
            r, want = _outcome(x.expand, sz), _outcome(body, x, sz)
            assert isinstance(want, tuple) and r == want


def test_the_table_stays_bounded():
    x = torch.zeros(1)
    for n in range(fast_expand._GEOMETRY_MAX + 50):
        x.expand(2, n + 1)
        assert len(fast_expand._GEOMETRY) <= fast_expand._GEOMETRY_MAX
    assert x.expand(2, 3).shape == (2, 3)
