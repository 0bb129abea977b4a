"""The fast calls of F.pad, the 1-d/2-d max and avg pools and prelu (Note [Padding, pooling and
prelu fast calls]) against their bodies: same values, dtype, shape, strides and errors; plain
calls take the fast route, and gradients, modes and other dtypes take the body."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import numtorch as torch
import numtorch.nn.functional as F
from numtorch.ops._registry import BINDINGS
from numtorch.ops.nn import fast_nn
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs

MAKERS = {
    "pad": fast_nn._make_pad,
    "max_pool1d": fast_nn._make_max_pool1d,
    "max_pool2d": fast_nn._make_max_pool2d,
    "avg_pool1d": fast_nn._make_avg_pool1d,
    "avg_pool2d": fast_nn._make_avg_pool2d,
    "max_pool3d": fast_nn._make_max_pool3d,
    "avg_pool3d": fast_nn._make_avg_pool3d,
    "prelu": fast_nn._make_prelu,
}


def _binding(name, module="torch.nn.functional"):
    (b,) = [b for b in BINDINGS if b.module == module and b.name == name]
    assert b.fast is not None, "no fast call installed"
    return b


class _BodyRan(Exception):
    pass


def _boom(*args):
    raise _BodyRan


def _fast_only(name):
    """The fast call with a body that raises: it returns only where the fast route ran."""
    return MAKERS[name](_boom)


def _outcome(fn, *args):
    try:
        return fn(*args)
    except Exception as e:  # noqa: BLE001  (both routes must raise alike)
        return (type(e), str(e))


def _same(r, want):
    if isinstance(want, tuple) and isinstance(want[0], type):
        assert r == want
        return
    if isinstance(want, tuple):  # return_indices=True: (values, indices)
        assert isinstance(r, tuple) and len(r) == len(want)
        for u, v in zip(r, want, strict=True):
            _same(u, v)
        return
    assert r.shape == want.shape and r.dtype == want.dtype and r.stride() == want.stride()
    assert np.array_equal(r.numpy(), want.numpy(), equal_nan=True)
    assert r.numpy().tobytes() == want.numpy().tobytes()


def _x(*shape, dtype=torch.float32, special=True):
    a = np.random.default_rng(len(shape)).standard_normal(shape)
    if special and a.size > 3:
        a.flat[0], a.flat[1], a.flat[2] = np.inf, -np.inf, np.nan
    return torch.from_numpy(a).to(dtype)


def _check(name, calls):
    b = _binding(name)
    fn, only = getattr(F, name), _fast_only(name)
    ran = 0
    for args in calls:
        want = _outcome(b.body, *args)
        _same(_outcome(fn, *args), want)
        try:
            r = only(*args)
        except _BodyRan:
            continue
        ran += 1
        _same(r, want)
    return ran


def test_pad_matches_body():
    calls = []
    for dt in (torch.float32, torch.float64, torch.int64):
        for shape, pads in [
            ((1, 2, 3, 4, 3), [(1, 2, 2, 1, 0, 2), (0, 0, 0, 0, 0, 0), (2, 2, 3, 3, 2, 2), (3, 0, 0, 0, 0, 0)]),
            ((2, 3, 4, 5), [(1, 2, 2, 1, 0, 2), (1, 1, 2, 3), (4, 0, 0, 0), (1, 1)]),
            ((2, 3, 5), [(1, 2), (2, 3, 1, 1), (4, 4), (0, 5)]),
            ((3, 4), [(1, 2), (3, 3), (1, 2, 1, 2)]),
        ]:
            x = _x(*shape, dtype=dt) if dt.is_floating_point else torch.arange(int(np.prod(shape))).reshape(shape)
            for pad in pads:
                for mode in ("reflect", "replicate", "constant", "circular"):
                    calls.append((x, pad, mode, None))
                    calls.append((x, list(pad), mode, None))
                calls.append((x, pad, "constant", 2.5))
                calls.append((x, pad, "constant", 3))
                calls.append((x, pad, "reflect", 0.0))
                calls.append((x, pad, "reflect", 1.0))
    x = _x(2, 3, 4, 5)
    calls += [
        (x.transpose(1, 3), (1, 2, 1, 0), "reflect", None),  # non-contiguous
        (x, (-1, 2), "reflect", None),
        (x, (1,), "reflect", None),
        (x, (1, 2, 3), "replicate", None),
        (x, (1.0, 2), "reflect", None),
        (x, (1, 1), "bogus", None),
        (torch.zeros(0, 3, 4), (1, 1), "replicate", None),
        (torch.zeros(2, 0, 4), (1, 1), "replicate", None),
        (x[0, 0, 0], (1, 1), "reflect", None),  # 1-D
        (x, (1,) * 10, "constant", None),
    ]
    assert _check("pad", calls) > 40


def _pool_calls(nd, avg):
    shape = {1: (2, 3, 7), 2: (2, 3, 5, 6), 3: (2, 2, 4, 5, 3)}[nd]
    xs = [_x(*shape), _x(*shape, dtype=torch.float64), _x(*shape[1:]), _x(*shape).transpose(-1, -2).contiguous()
          .transpose(-1, -2), torch.zeros((0,) + shape[1:]), torch.arange(42.0).reshape(6, 7).to(torch.int64),
          _x(*shape, dtype=torch.float16)]  # fmt: skip
    ks = [2, 3, (2,) * nd, 1, 0, (2, 3, 1)[:nd] if nd > 1 else (3,)]
    ss = [None, 1, 2, (), (2,) * nd, 0]
    ps = [0, 1, (1,) * nd, 2]
    out = []
    for x, k, s, p, ceil in itertools.product(xs, ks, ss, ps, (False, True)):
        if avg:
            rest = (ceil, True) if nd == 1 else (ceil, True, None)
            out.append((x, k, s, p, *rest))
        else:
            out.append((x, k, s, p, 1, ceil, False))
    x = xs[0]
    if avg:
        extra = [(x, 3, 2, 1, False, False), (x, 2, None, 0, True, 1), (x, 2.0, None, 0, False, True)]
        out += [e[:6] if nd == 1 else e + (None,) for e in extra]
        if nd > 1:
            out += [(x, 2, None, 0, False, True, 3), (x, 3, 1, 1, True, False, 0), (x, 2, None, 0, False, True, 2.0)]
    else:
        out += [(x, 3, 1, 1, 2, False, False), (x, 2, 1, 0, 3, True, False), (x, 2, None, 0, 1, False, True),
                (x, 3, 1, 2, 2, False, False), (x, [2, 2, 2], None, 0, 1, False, False)]  # fmt: skip
    return out


@pytest.mark.parametrize("name", ["max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d", "avg_pool2d", "avg_pool3d"])
def test_pools_match_body(name):
    calls = _pool_calls(int(name[-2]), name.startswith("avg"))
    assert _check(name, calls) > 50
    if name == "max_pool3d":  # torch.max_pool3d: no return_indices
        b, only = _binding(name, "torch"), fast_nn._make_t_max_pool3d(_boom)
        ran = 0
        for args in calls:
            want = _outcome(b.body, *args[:6])
            _same(_outcome(torch.max_pool3d, *args[:6]), want)
            try:
                _same(only(*args[:6]), want)
                ran += 1
            except _BodyRan:
                pass
        assert ran > 50
        x = calls[0][0]  # stride=None is the default stride, as PyTorch's parser reads it (was a TypeError)
        assert torch.equal(torch.max_pool3d(x, 2, None), torch.max_pool3d(x, 2))


def test_prelu_matches_body():
    calls = []
    for dt in (torch.float32, torch.float64, torch.float16):
        for shape in [(2, 3, 4), (2, 3), (2, 3, 4, 5), (3,), ()]:
            x = _x(*shape, dtype=dt) if shape else torch.tensor(-2.0, dtype=dt)
            for w in (torch.tensor([0.25], dtype=dt), torch.tensor(0.5, dtype=dt), torch.tensor([0.1, 0.2, 0.3], dtype=dt)):
                calls.append((x, w))
    x = _x(2, 3, 4)
    calls += [(x.transpose(0, 2), torch.tensor([0.5])), (x, torch.tensor([[0.1, 0.2, 0.3]])),
              (x, torch.tensor([0.1, 0.2, 0.3], dtype=torch.float64)), (x, torch.tensor([0.1, 0.2]))]  # fmt: skip
    assert _check("prelu", calls) > 15
    b = _binding("prelu", "torch")
    for x, w in calls:
        _same(_outcome(torch.prelu, x, w), _outcome(b.body, x, w))


def test_grad_modes_and_autocast_take_the_body():
    only = {n: _fast_only(n) for n in MAKERS}
    x = _x(2, 3, 5, 6, special=False).requires_grad_()
    w = torch.tensor([0.1, 0.2, 0.3], requires_grad=True)
    calls = [("pad", (x, (1, 1, 2, 2), "reflect", None)), ("max_pool2d", (x, 2, None, 0, 1, False, False)),
             ("avg_pool2d", (x, 2, None, 0, False, True, None)), ("prelu", (x, w)),
             ("max_pool1d", (x[0], 2, None, 0, 1, False, False)), ("avg_pool1d", (x[0], 2, None, 0, False, True)),
             ("max_pool3d", (x, 2, None, 0, 1, False, False)), ("avg_pool3d", (x, 2, None, 0, False, True, None))]  # fmt: skip
    for name, args in calls:
        with pytest.raises(_BodyRan):
            only[name](*args)
        r = getattr(F, name)(*args)
        assert r.grad_fn is not None
        r.sum().backward()
        with torch.no_grad():
            only[name](*args)  # nothing to record: the fast route
        with LoggingTensorMode(), capture_logs() as logs:
            getattr(F, name)(*[a.detach() if isinstance(a, torch.Tensor) else a for a in args])
        assert logs, name  # the mode saw the op's aten calls: the body ran
        with torch.autocast("cpu"), pytest.raises(_BodyRan):
            only[name](*[a.detach() if isinstance(a, torch.Tensor) else a for a in args])
    assert x.grad is not None and w.grad is not None


@pytest.mark.parametrize("name", ["max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d", "avg_pool2d", "avg_pool3d"])
def test_pool_plans_match_body_when_cached(name, monkeypatch):
    # Note [Pool plans]: the second call of a shape and arguments runs the cached plan (no
    # geometry work), bit for bit the body's; a 2.0 or True never hits an int's plan
    nd = int(name[-2])
    geo = {1: "_geometry1", 2: "_geometry2", 3: "_geometry3"}[nd]
    seen = []
    real = getattr(fast_nn, geo)
    monkeypatch.setattr(fast_nn, geo, lambda *a: seen.append(1) or real(*a))
    b, only = _binding(name), _fast_only(name)
    fast_nn._PLANS.clear()
    planned = 0
    for args in _pool_calls(nd, name.startswith("avg")):
        want = _outcome(b.body, *args)
        _same(_outcome(getattr(F, name), *args), want)  # plans the call
        seen.clear()
        try:
            r = only(*args)
        except _BodyRan:
            continue
        _same(r, want)
        planned += not seen
    assert planned > 50
    x = _x(*{1: (2, 3, 7), 2: (2, 3, 5, 6), 3: (2, 2, 4, 5, 3)}[nd])
    rest = (False, True) if nd == 1 else (False, True, None)
    head = (x, 2, None, 0) if name.startswith("avg") else (x, 2, None, 0, 1)
    tail = rest if name.startswith("avg") else (False, False)
    only(*head, *tail)  # planned
    for bad in ((x, 2.0, *head[2:]), (x, (2.0,) * nd, *head[2:]), (x, (True,) * nd, *head[2:])):
        with pytest.raises(_BodyRan):
            only(*bad, *tail)
    with pytest.raises(_BodyRan):  # ceil_mode 0 is not False's plan
        only(*head, *((0,) + tail[1:]))
    if name.startswith("avg"):
        with pytest.raises(_BodyRan):  # count_include_pad 1 is not True's plan
            only(*head, False, 1, *tail[2:])
