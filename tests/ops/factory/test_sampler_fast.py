"""Note [In-place sampler fast calls]: plain in-place samplers on C-contiguous float32/float64
tensors skip the body and write what the body writes (bit for bit, the random stream included);
modes, forward AD, gradients, generators, other dtypes and layouts, and bad arguments take the
body, with its errors."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
import numtorch.autograd.forward_ad as fwAD
from numtorch.ops.factory import random_inplace
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs

# method -> argument tuples the fast call takes
FAST = {
    "uniform_": [(), (-1.0, 1.0), (2, 3), (0.5, 0.5), (-1.0e38, 1.0e38)],
    "normal_": [(), (0.0, 2.0), (1, 1), (-2.5, 0.0), (0.0, 1e-30)],
    "exponential_": [(), (2.0,), (1e-30,), (3,)],
    "cauchy_": [(), (1.0, 2.0), (0, 1e30)],
    "log_normal_": [(), (0.0, 0.5), (1, 3)],
    "geometric_": [(0.5,), (0.01,), (0.999,)],
    "bernoulli_": [(), (0.5,), (0.0,), (1,)],
    "random_": [(10,), (0, 10), (-5, 5), (3, 2**24 + 1)],
}
# argument tuples the fast call declines (the body raises or warns, or takes a route of its own)
BODY = {
    "uniform_": [(1.0, 0.0), (float("nan"), 1.0), (0.0, float("inf")), (-3.0e38, 3.4e38), (True, 2)],
    "normal_": [(0.0, -1.0), (0.0, float("nan")), (np.float64(0.0), 1.0)],
    "exponential_": [(0.0,), (-1.0,), (float("nan"),)],
    "cauchy_": [(0.0, 0.0), (0.0, -1.0)],
    "log_normal_": [(1.0, 0.0)],
    "geometric_": [(0.0,), (1.0,), (1.5,)],
    "bernoulli_": [(1.5,), (-0.1,), (torch.full((2, 3), 0.5),)],
    "random_": [(), (5, 3), (0, None), (2.0,), (0, 2**25)],
}


def _call(name, t, args):
    try:
        return getattr(t, name)(*args)
    except Exception as e:  # noqa: BLE001  (both routes must raise alike)
        return (type(e), str(e))


def _body(name, t, args):
    body = getattr(torch.Tensor, name).__globals__["_body"]
    try:
        if name == "random_":
            return body(t, tuple(args), None, None)
        import inspect

        sig = inspect.signature(getattr(torch.Tensor, name))
        bound = sig.bind(t, *args)
        bound.apply_defaults()
        return body(*bound.arguments.values())
    except Exception as e:  # noqa: BLE001
        return (type(e), str(e))


def _spy_dispatch(monkeypatch, module):
    calls = []
    real = module.dispatch

    def spy(op, vals):
        calls.append(op)
        return real(op, vals)

    monkeypatch.setattr(module, "dispatch", spy)
    return calls


@pytest.fixture
def seen(monkeypatch):
    return _spy_dispatch(monkeypatch, random_inplace)


def _bits(t):
    return t.detach().numpy().reshape(-1).view(np.uint8).tolist() if not isinstance(t, tuple) else t


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("name,args", [(n, a) for n, cases in FAST.items() for a in cases])
def test_fast_route_writes_what_the_body_writes(seen, name, args, dtype):
    base = torch.arange(24, dtype=dtype).reshape(4, 6)
    torch.manual_seed(3)
    x = base.clone()
    r = _call(name, x, args)
    assert seen == [], "the body ran"
    assert r is x and x._vc[0] == 1
    after = torch.rand(3)  # the stream moved on by as much as the body's draws
    torch.manual_seed(3)
    y = base.clone()
    assert _body(name, y, args) is y and len(seen) == 1
    assert _bits(x) == _bits(y) and torch.rand(3).tolist() == after.tolist()


@pytest.mark.parametrize("name,args", [(n, a) for n, cases in BODY.items() for a in cases])
def test_bad_or_other_arguments_take_the_body(seen, name, args):
    torch.manual_seed(4)
    x = torch.zeros(2, 3)
    warns = name == "random_" and args == (0, 2**25)
    with pytest.warns(UserWarning) if warns else _nothing():
        r = _call(name, x, args)
    assert len(seen) == 1 or isinstance(r, tuple)  # the body's argument errors come before dispatch
    torch.manual_seed(4)
    y = torch.zeros(2, 3)
    with pytest.warns(UserWarning) if warns else _nothing():
        want = _body(name, y, args)
    assert (r == want) if isinstance(r, tuple) else _bits(x) == _bits(y)


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _fast_args(name):
    return FAST[name][1] if len(FAST[name]) > 1 else FAST[name][0]


@pytest.mark.parametrize("name", sorted(FAST))
def test_layouts_dtypes_generators_and_grad_take_the_body(seen, name):
    args = _fast_args(name)
    n = 0
    for t in (torch.zeros(3, 4).t(), torch.zeros(4, dtype=torch.float16), torch.zeros(2, 2)[:, :1]):
        _call(name, t, args)
        n += 1
        assert len(seen) == n
    getattr(torch.zeros(3), name)(*args, generator=torch.Generator())
    n += 1
    assert len(seen) == n
    leaf = torch.zeros(3, requires_grad=True)
    r = _call(name, leaf, args)
    assert isinstance(r, tuple) and "in-place" in r[1] and len(seen) == n + 1
    with torch.no_grad():  # nn.init's case: a parameter filled under no_grad takes the fast route
        getattr(torch.nn.Parameter(torch.zeros(3)), name)(*args)
    assert len(seen) == n + 1


@pytest.mark.parametrize("name", sorted(FAST))
def test_modes_forward_ad_and_inference_tensors_take_the_body(seen, name):
    args = _fast_args(name)
    with capture_logs(is_mode=True) as logs, LoggingTensorMode():
        getattr(torch.zeros(3), name)(*args)
    assert logs and len(seen) == 1
    with fwAD.dual_level():
        getattr(torch.zeros(3), name)(*args)
    assert len(seen) == 2
    with torch.inference_mode():
        t = torch.zeros(3)
    r = _call(name, t, args)
    assert len(seen) == 3 and isinstance(r, tuple)
    torch.func.vmap(lambda x: getattr(x.clone(), name)(*args), randomness="different")(torch.zeros(2, 3))
    assert len(seen) == 4


# ---- bernoulli(probs), poisson(rates) ------------------------------------------------------------------
@pytest.fixture
def functional(monkeypatch):
    from numtorch.ops.factory import random

    return _spy_dispatch(monkeypatch, random)


def _probs(dtype, *vals):
    return torch.tensor(list(vals) or [0.0, 0.25, 0.5, 1.0, 0.75, 0.1], dtype=dtype)


FUNCTIONAL_FAST = [
    ("bernoulli", lambda dt: torch.bernoulli(_probs(dt))), ("bernoulli 2-d", lambda dt: torch.bernoulli(_probs(dt).reshape(2, 3))),
    ("bernoulli empty", lambda dt: torch.bernoulli(torch.zeros(0, dtype=dt))),
    ("poisson", lambda dt: torch.poisson(_probs(dt) * 7)), ("poisson big", lambda dt: torch.poisson(_probs(dt, 3e17, 1e16, 2.0**59 + 2.0**40))),
    ("poisson strided", lambda dt: torch.poisson(_probs(dt).reshape(2, 3).t() * 3)),
    ("bernoulli strided", lambda dt: torch.bernoulli(_probs(dt).reshape(2, 3).t())),
    ("bernoulli 0-d", lambda dt: torch.bernoulli(torch.tensor(0.5, dtype=dt))), ("poisson 0-d", lambda dt: torch.poisson(torch.tensor(2.5, dtype=dt))),
    ("normal", lambda dt: torch.normal(_probs(dt) * 3 - 1, 2.0)), ("normal 2-d", lambda dt: torch.normal(_probs(dt).reshape(2, 3), 0.5)),
    ("normal 0-d", lambda dt: torch.normal(torch.tensor(1.5, dtype=dt), 1.0)), ("normal std 0", lambda dt: torch.normal(_probs(dt), 0.0)),
    ("normal overflow", lambda dt: torch.normal(_probs(dt), 1e300)), ("normal empty", lambda dt: torch.normal(torch.zeros(0, dtype=dt), 1.0)),
    ("normal -0.0", lambda dt: torch.normal(_probs(dt, -0.0, 0.0), 0.0)),
    # an int std: the wrapper's scalar test admits ints now (perf17a), and the fast call's _NUM did
    ("normal int std", lambda dt: torch.normal(_probs(dt), 2)),
]  # fmt: skip
FUNCTIONAL_BODY = [
    ("bernoulli p", lambda dt: torch.bernoulli(_probs(dt), 0.3)), ("bernoulli out", lambda dt: torch.bernoulli(_probs(dt), out=torch.empty(6, dtype=dt))),
    ("bernoulli gen", lambda dt: torch.bernoulli(_probs(dt), generator=torch.Generator())),
    ("bernoulli bad", lambda dt: torch.bernoulli(_probs(dt, 0.5, 1.5))), ("bernoulli nan", lambda dt: torch.bernoulli(_probs(dt, float("nan")))),
    ("bernoulli f16", lambda dt: torch.bernoulli(_probs(torch.float16))), ("poisson neg", lambda dt: torch.poisson(_probs(dt, -1.0))),
    ("poisson huge", lambda dt: torch.poisson(_probs(dt, 1e19, 2.0))), ("poisson nan", lambda dt: torch.poisson(_probs(dt, float("nan")))),
    ("poisson gen", lambda dt: torch.poisson(_probs(dt), torch.Generator())), ("poisson int", lambda dt: torch.poisson(torch.ones(2, dtype=torch.int64))),
    ("normal tensors", lambda dt: torch.normal(_probs(dt), _probs(dt))),
    ("normal strided", lambda dt: torch.normal(_probs(dt).reshape(2, 3).t(), 1.0)), ("normal neg std", lambda dt: torch.normal(_probs(dt), -1.0)),
    ("normal nan std", lambda dt: torch.normal(_probs(dt), float("nan"))), ("normal gen", lambda dt: torch.normal(_probs(dt), 1.0, generator=torch.Generator())),
    ("normal out", lambda dt: torch.normal(_probs(dt), 1.0, out=torch.empty(6, dtype=dt))), ("normal f16", lambda dt: torch.normal(_probs(torch.float16), 1.0)),
    ("normal int mean", lambda dt: torch.normal(torch.ones(3, dtype=torch.int64), 1.0)),
]  # fmt: skip


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("call", FUNCTIONAL_FAST, ids=[c[0] for c in FUNCTIONAL_FAST])
def test_functional_samplers_take_the_fast_route(functional, call, dtype):
    torch.manual_seed(6)
    got = call[1](dtype)
    assert functional == [], "the body ran"
    after = torch.rand(2)
    torch.manual_seed(6)
    with LoggingTensorMode():
        want = call[1](dtype)
    assert functional and torch.rand(2).tolist() == after.tolist()
    assert got.dtype is want.dtype and got.shape == want.shape and got.stride() == want.stride()
    assert got.numpy().tobytes() == want.numpy().tobytes() and not got.requires_grad


@pytest.mark.parametrize("call", FUNCTIONAL_BODY, ids=[c[0] for c in FUNCTIONAL_BODY])
def test_other_functional_sampler_calls_take_the_body(functional, call):
    try:
        call[1](torch.float32)
    except Exception as e:  # noqa: BLE001
        with LoggingTensorMode(), pytest.raises(type(e)) as info:
            call[1](torch.float32)
        assert str(info.value) == str(e)
    else:
        assert functional, "the fast call did not decline"


def test_functional_samplers_with_grad_take_the_body(functional):
    p = _probs(torch.float32).requires_grad_()
    r = torch.bernoulli(p)
    assert r.grad_fn is not None and len(functional) == 1
    with torch.no_grad():
        torch.poisson(p)
    assert len(functional) == 1
    assert torch.normal(p, 1.0).grad_fn is not None and len(functional) == 2
    with torch.no_grad():
        torch.normal(p, 1.0)
    assert len(functional) == 2


@pytest.mark.parametrize("name", ["uniform_", "normal_", "exponential_", "cauchy_"])
def test_affine_kernels_match_the_body_bit_for_bit(name):
    """Random parameters and sizes (the kernels' vector loops and tails) against the body."""
    rng = np.random.default_rng(0)
    body = getattr(torch.Tensor, name).__globals__["_body"]
    for trial in range(40):
        dtype = (torch.float32, torch.float64)[trial % 2]
        n = int(rng.integers(1, 3000))
        scale = float(10.0 ** rng.uniform(-30, 30))
        shift = float(rng.normal() * 10.0 ** rng.uniform(-30, 30))
        args = {"uniform_": (shift, shift + scale), "normal_": (shift, scale), "exponential_": (1 / scale,),
                "cauchy_": (shift, scale)}[name]  # fmt: skip
        torch.manual_seed(trial)
        x = torch.empty(n, dtype=dtype)
        getattr(x, name)(*args)
        torch.manual_seed(trial)
        y = torch.empty(n, dtype=dtype)
        body(y, *args, None)
        assert x.numpy().tobytes() == y.numpy().tobytes(), (trial, dtype, n, args)
