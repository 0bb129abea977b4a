"""The fast calls of bincount, histc and unique (Note [Counting fast calls]) against their bodies:
the same bits, dtypes, shapes, strides and errors; plain calls take the fast route, and modes,
gradients, out= and other arguments take the body."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops.indexing import fast_count
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs

from .._fastcall import binding, outcome, same


def _full(fn, args, kw):
    ba = inspect.signature(fn).bind(*args, **kw)
    ba.apply_defaults()
    return tuple(ba.arguments.values())


def _same_all(r, want):
    if isinstance(want, tuple) and want and isinstance(want[0], torch.Tensor):
        assert type(r) is tuple and len(r) == len(want)
        for a, b in zip(r, want, strict=True):
            same(a, b)
    else:
        same(r, want)


def _check(name, calls, core, method_core=None):
    """Both public routes against the body; returns how many calls the fast core took."""
    ran = 0
    for module in ("torch", "Tensor"):
        b = binding(name, module)
        fn = getattr(torch, name) if module == "torch" else getattr(torch.Tensor, name)
        c = core if module == "torch" or method_core is None else method_core
        for args, kw in calls:
            full = _full(fn, args, kw)
            want = outcome(b.body, *full)
            _same_all(outcome(lambda *a, fn=fn, kw=kw: fn(*a, **kw), *args), want)
            r = c(*full)
            if r is not None:
                ran += 1
                _same_all(r, want)
    return ran


def test_bincount_matches_body():
    calls = []
    for dt in (torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64):
        x = torch.tensor([0, 3, 3, 1, 7, 0, 2, 2], dtype=dt)
        calls += [((x,), {}), ((x,), {"minlength": 12}), ((x,), {"minlength": 2}), ((x[::2],), {})]
    calls += [((torch.tensor([1, -1, 2]),), {}),  # negative: the body's error
              ((torch.tensor([[1, 2]]),), {}), ((torch.tensor([], dtype=torch.int64),), {"minlength": 3}),
              ((torch.tensor([1, 2]),), {"minlength": -1}), ((torch.tensor([1.0, 2.0]),), {}),
              ((torch.tensor([1, 2]),), {"weights": torch.tensor([0.5, 2.0])}),
              ((torch.tensor([1, 2]),), {"minlength": 2.0}), ((torch.tensor([5]),), {"minlength": True})]  # fmt: skip
    assert _check("bincount", calls, fast_count._bincount) == 2 * 15  # x[::2] is strided: the body


def test_histc_matches_body():
    rng = np.random.default_rng(0)
    calls = []
    for dt in (np.float32, np.float64):
        a = (rng.standard_normal((3, 4)) * 3).astype(dt)
        x = torch.from_numpy(a)
        nan = torch.from_numpy(np.array([1.0, np.nan, 2.0], dt))
        for kw in ({"bins": 5}, {}, {"bins": 7, "min": -1, "max": 2.5}, {"bins": 3, "min": 1.0, "max": 1.0},
                   {"bins": 4, "min": -2, "max": 2}, {"bins": 1}):  # fmt: skip
            calls += [((x,), kw), ((nan,), kw)]
        calls += [((torch.from_numpy(np.full(4, 2.5, dt)),), {"bins": 3}),  # a point: widened by 1
                  ((torch.from_numpy(np.array([-0.0, 0.0, 1.0], dt)),), {"bins": 2, "min": -0.0, "max": 1}),
                  ((torch.from_numpy(np.array([np.inf, 1.0], dt)),), {"bins": 3}),  # range not finite
                  ((torch.from_numpy(np.zeros(0, dt)),), {"bins": 3}),
                  ((x,), {"bins": 0}), ((x,), {"bins": 3, "min": 2, "max": 1}),
                  ((x.t(),), {"bins": 3}), ((x,), {"bins": 3.0})]  # fmt: skip
    calls += [((torch.tensor([1, 2]),), {"bins": 3}), ((torch.tensor([1.0, 2.0], dtype=torch.float16),), {"bins": 3})]
    ran = _check("histc", calls, fast_count._histc, fast_count._histc_method)
    assert ran == 2 * 2 * (8 + 3)  # a NaN data range and an infinite one raise: the body
    x = torch.tensor([1.0, 2.0])
    assert fast_count._histc(x, 3, 0, 0, torch.empty(3)) is None  # out= takes the body


def test_unique_matches_body():
    rng = np.random.default_rng(1)
    calls = []
    flags = [{}, {"return_inverse": True}, {"return_counts": True}, {"return_inverse": True, "return_counts": True},
             {"sorted": False, "return_inverse": True}]  # fmt: skip
    inputs = [rng.integers(0, 5, (2, 3, 4)).astype(np.float32), rng.standard_normal(40),
              np.array([np.nan, 1.0, np.nan, -0.0, 0.0, 1.0, np.inf, -np.inf, 0.0], np.float32),
              np.array([0.0, -0.0, -0.0, 0.0] * 9), np.array(3.5), rng.integers(-3, 3, (5, 4)),
              rng.integers(0, 4, 30).astype(np.int32), rng.integers(0, 2, 9).astype(bool),
              rng.integers(0, 200, 50).astype(np.uint8)]  # fmt: skip
    for a in inputs:
        for kw in flags:
            calls.append(((torch.from_numpy(a),), kw))
    x = torch.from_numpy(inputs[0])
    calls += [((x,), {"dim": 1}), ((x.transpose(0, 2),), {"return_inverse": True}),
              ((torch.zeros(0),), {"return_counts": True}), ((torch.tensor([1.0, 2.0], dtype=torch.float16),), {}),
              ((torch.tensor([1 + 2j, 1 + 2j]),), {}), ((x,), {"return_inverse": 1})]  # fmt: skip
    assert _check("unique", calls, fast_count._unique) == 2 * (len(inputs) * len(flags) + 1)


def test_fast_route_taken_and_modes_grad_take_the_body(monkeypatch):
    seen = []
    real = fast_count._call

    def spy(mod, name, args):  # the kernel calls only the fast route makes
        seen.append(name)
        return real(mod, name, args)

    monkeypatch.setattr(fast_count, "_call", spy)
    i, x = torch.tensor([0, 2, 2]), torch.tensor([1.0, 2.0, 2.0])
    torch.bincount(i), i.bincount(), torch.histc(x, 3), x.histc(3), torch.unique(x), x.unique()
    assert seen == ["minmax_all", "count_at"] * 2 + ["minmax_all", "histc_counts"] * 2 + ["unique_groups"] * 2
    seen.clear()
    with LoggingTensorMode(), capture_logs() as logs:
        torch.bincount(i), torch.histc(x, 3), torch.unique(x)
    text = " ".join(logs)
    assert "bincount" in text and "histc" in text and "unique" in text
    w = x.double().requires_grad_()
    torch.histc(w, 3), torch.unique(w), torch.histc(x, 3, out=torch.empty(3)), torch.unique(x, dim=0)
    torch.bincount(i, torch.tensor([1.0, 2.0, 3.0]))
    assert seen == []
    with torch.no_grad():
        torch.histc(w, 3)
    assert seen == ["minmax_all", "histc_counts"]


@pytest.mark.parametrize("name", ["bincount", "histc", "unique"])
def test_large_inputs_match_body(name):
    rng = np.random.default_rng(2)
    a = rng.integers(0, 1000, 131072) if name == "bincount" else rng.standard_normal(131072).astype(np.float32)
    x = torch.from_numpy(a)
    b = binding(name)
    fn = getattr(torch, name)
    kw = {"return_inverse": True, "return_counts": True} if name == "unique" else {}
    core = getattr(fast_count, "_" + name)
    full = _full(fn, (x,), kw)
    _same_all(core(*full), b.body(*full))


def test_argwhere_rows_matches_numpy(monkeypatch):
    from numtorch.ops.indexing import masked

    seen = []
    real = masked._KC.argwhere_rows

    def spy(*a):
        return seen.append(1) or real(*a)

    spy.overloads = {}  # no compiled entry: argwhere_array keeps the spy itself as the entry
    monkeypatch.setattr(masked, "_KC", type("K", (), {"argwhere_rows": staticmethod(spy)}))
    monkeypatch.setattr(masked, "_AW_ENTRIES", {})
    rng = np.random.default_rng(3)
    n = 0
    for sh in [(3, 4), (5,), (2, 3, 4), (1, 1, 1), (0, 3), (3, 0), (4, 1, 5), (2, 2, 2, 3), (70, 80)]:
        for dt in ("bool", "uint8", "int8", "int16", "int32", "int64", "float32", "float64"):
            with np.errstate(invalid="ignore"):
                a = rng.integers(0, 3, sh) * rng.choice([1.0, -0.0, np.nan, np.inf], sh)
            with np.errstate(invalid="ignore"):
                a = a.astype(dt) if dt[0] == "f" else np.nan_to_num(a).astype(dt)
            x = torch.from_numpy(a)
            for t in (x, x.transpose(0, -1) if a.ndim > 1 else x[::2]):
                want = np.argwhere(t.numpy())
                n += t.is_contiguous()
                for r in (torch.nonzero(t), torch.argwhere(t), t.nonzero()):
                    assert r.dtype == torch.int64 and r.is_contiguous() and np.array_equal(r.numpy(), want)
                    assert r.numpy().shape == want.shape
    assert len(seen) == 3 * n  # every C-contiguous input took the kernel
    r = torch.nonzero(torch.tensor(2.0))
    assert r.shape == (1, 0)


def test_count_nonzero_matches_body(monkeypatch):
    seen = []
    real = fast_count._make
    monkeypatch.setattr(fast_count, "_make", lambda *a: seen.append(1) or real(*a))
    x = torch.tensor([[0.0, float("nan"), -0.0], [1.0, 0.0, 2.0]])
    calls = [((x,), {}), ((x.t(),), {}), ((x.bool(),), {}), ((torch.tensor(0),), {}), ((torch.zeros(0),), {}),
             ((x,), {"dim": 1}), ((x,), {"dim": (0, 1)}), ((x.to(torch.uint32),), {})]  # fmt: skip
    assert _check("count_nonzero", calls, fast_count._count_nonzero) == 2 * 5
    assert len(seen) == 4 * 5  # the public calls and the direct ones
    assert fast_count._count_nonzero(x, None, torch.empty((), dtype=torch.int64)) is None
    with LoggingTensorMode(), capture_logs() as logs:
        torch.count_nonzero(x)
    assert "count_nonzero" in " ".join(logs)
