"""Note [Adaptive pool plans]: the adaptive pools' and F.max_pool3d_with_indices' planned fast
calls give the body's bits (values, dtype, shape, strides, view-ness, the pair's type), run
their plan from the second call, and leave everything else (modes, grad, forward AD, bad
arguments, other dtypes and classes) to the body."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
import numtorch.nn.functional as F
from numtorch.ops._registry import BINDINGS
from numtorch.ops.nn import adaptive_fast
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs

from ._fastcheck import outcome, same

_NAMES = {
    "adaptive_avg_pool1d": (1, False),
    "adaptive_max_pool1d": (1, True),
    "adaptive_avg_pool2d": (2, False),
    "adaptive_max_pool2d": (2, True),
    "adaptive_avg_pool3d": (3, False),
    "adaptive_max_pool3d": (3, True),
    "adaptive_max_pool3d_with_indices": (3, True),
}
_SHAPES = {1: [(2, 3, 7), (3, 7), (1, 1, 1)], 2: [(1, 2, 5, 6), (2, 5, 6), (2, 3, 1, 4)],
           3: [(2, 2, 5, 4, 6), (2, 5, 4, 6), (1, 1, 2, 1, 3)]}  # fmt: skip
_SIZES = {1: [3, 1, 7, 9, (4,), [2], (None,)], 2: [1, 3, (2, 4), [3, None], (None, None), (7, 2)],
          3: [1, 2, (3, None, 4), [1, 2, 3], (None, 1, None), (6, 5, 7)]}  # fmt: skip


def _body(name):
    (b,) = [b for b in BINDINGS if b.module == "torch.nn.functional" and b.name == name]
    return b.body


def _x(shape, dtype=torch.float32):
    a = np.random.default_rng(len(shape)).standard_normal(shape)
    if a.size > 3:
        a.flat[0], a.flat[1], a.flat[2] = np.inf, -np.inf, np.nan
    return torch.from_numpy(a).to(dtype)


def _args(name, size, ri):
    return (size,) if "avg" in name else (size, ri)


def _runs(monkeypatch):
    ran = []  # per call: whether a plan answered
    real = adaptive_fast._run
    monkeypatch.setattr(adaptive_fast, "_run", lambda *a: ran.append(real(*a)) or ran[-1])
    return ran


@pytest.mark.parametrize("name", sorted(_NAMES))
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_plans_give_the_bodys_bits(name, dtype, monkeypatch):
    n, is_max = _NAMES[name]
    adaptive_fast._PLANS.clear()
    ran = _runs(monkeypatch)
    for shape in _SHAPES[n]:
        x = _x(shape, dtype)
        for size in _SIZES[n]:
            for ri in (False, True) if is_max else (None,):
                args = _args(name, size, ri)
                want = outcome(_body(name), x, *args)
                for _ in range(3):  # plans, then the compiled entry
                    same(outcome(getattr(F, name), x, *args), want)
    assert sum(r is not None for r in ran) > 20
    assert any(p and p[0].__class__ is len.__class__ for p in adaptive_fast._PLANS.values())


@pytest.mark.parametrize("name", sorted(_NAMES))
def test_strided_input(name):
    n, _ = _NAMES[name]
    v = _x(_SHAPES[n][0], torch.float64).numpy()
    xt = torch.from_numpy(np.repeat(v, 2, axis=-1))[..., ::2]
    assert not xt.is_contiguous()
    for _ in range(3):
        same(getattr(F, name)(xt, *_args(name, 2, True)), _body(name)(xt, *_args(name, 2, True)))


@pytest.mark.parametrize("name", sorted(_NAMES))
def test_bad_arguments_take_the_body(name, monkeypatch):
    n, _ = _NAMES[name]
    x = _x(_SHAPES[n][0])
    ran = _runs(monkeypatch)
    bad = [-1, 0, 2.0, True, np.int64(2), (2,) * (n + 1), (2.0,) * n, (True,) * n, "a"]
    for size in bad:
        want = outcome(_body(name), x, *_args(name, size, False))
        for _ in range(2):
            same(outcome(getattr(F, name), x, *_args(name, size, False)), want)
    assert not any(r is not None for r in ran)
    for shape in ((5,), (2, 3, 4, 5, 6, 7), (2, 0, 5, 6, 4)[: n + 2], (0, 2, 5, 6, 4)[: n + 2]):
        xs = torch.zeros(shape)
        want = outcome(_body(name), xs, *_args(name, 2, False))
        for _ in range(2):
            same(outcome(getattr(F, name), xs, *_args(name, 2, False)), want)
    xi = torch.ones(_SHAPES[n][0], dtype=torch.int64)
    same(outcome(getattr(F, name), xi, *_args(name, 2, False)), outcome(_body(name), xi, *_args(name, 2, False)))
    assert not any(r is not None for r in ran)


def test_modes_grad_and_subclasses_take_the_body(monkeypatch):
    x = _x((1, 2, 5, 6))
    for _ in range(2):
        F.adaptive_max_pool2d(x, 2)
    ran = _runs(monkeypatch)
    xg = x.clone().requires_grad_(True)
    y = F.adaptive_max_pool2d(xg, 2)
    assert y.grad_fn is not None
    y.sum().backward()
    assert xg.grad is not None
    with capture_logs() as logs, LoggingTensorMode():
        F.adaptive_avg_pool2d(x, 2)
    assert any("adaptive_avg_pool2d" in line for line in logs)
    import numtorch.autograd.forward_ad as fwAD

    with fwAD.dual_level():
        d = fwAD.make_dual(x, torch.ones(1, 2, 5, 6))
        assert fwAD.unpack_dual(F.adaptive_avg_pool2d(d, 2)).tangent is not None
    assert not any(r is not None for r in ran)

    class Sub(torch.Tensor):
        pass

    s = x.as_subclass(Sub)
    with monkeypatch.context() as m:
        m.setattr(adaptive_fast, "_run", lambda *a: None)
        want = F.adaptive_avg_pool1d(s[0], 3)
    for _ in range(3):
        r = F.adaptive_avg_pool1d(s[0], 3)
        assert type(r) is type(want) and r.numpy().tobytes() == want.numpy().tobytes()


def test_max_pool3d_with_indices_plan(monkeypatch):
    x = _x((1, 2, 4, 3, 5))
    ran = _runs(monkeypatch)
    kw = dict(stride=(1, 2, 1), padding=(1, 0, 1), dilation=(1, 1, 2), ceil_mode=True)
    want = _body("max_pool3d_with_indices")(x, (2, 2, 3), kw["stride"], kw["padding"], kw["dilation"], True, False)
    for _ in range(3):
        same(F.max_pool3d_with_indices(x, (2, 2, 3), **kw), want)
    assert ran[-1] is not None
    with pytest.raises(RuntimeError) as e:
        F.max_pool3d_with_indices(x, (2, 2, 3), padding=2)
    with pytest.raises(RuntimeError) as e2:
        _body("max_pool3d_with_indices")(x, (2, 2, 3), None, 2, 1, False, False)
    assert str(e.value) == str(e2.value)
