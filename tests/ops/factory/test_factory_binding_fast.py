"""Note [Factory binding fast call]: plain factory calls (no out/layout/device/generator/
requires_grad, known dtype, non-negative int sizes, no mode or vmap) skip the body and give what
the body gives (values bit for bit, the random stream included, dtype, shape, strides); every
other call takes the body, with its errors."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs

# name -> calls that take the fast route
FAST = {
    "zeros": [((2, 3), {}), (((2, 3),), {}), ((2,), {"device": "cpu"}), ((2,), {"device": torch.device("cpu")}), (([4],), {"dtype": torch.int32}), ((0, 3), {}),
              ((2,), {"dtype": torch.bool}), ((3,), {"dtype": torch.complex64})],
    "ones": [((2, 3), {}), ((5,), {"dtype": torch.float64}), ((2,), {"dtype": torch.int8}), ((3,), {"device": "cpu"})],
    "empty": [((2, 3), {}), ((4,), {"dtype": torch.int64})],
    "full": [(((2, 3), 2.5), {}), (((2,), 7), {"dtype": torch.float64}), (((3,), 0.0), {}),
             (((2,), float("nan")), {}), (((2,), float("-inf")), {"dtype": torch.float32})],
    "arange": [((5,), {}), ((5,), {"dtype": torch.float32}), ((0,), {}), ((7,), {"dtype": torch.int32}),
               ((9,), {"dtype": torch.float64}), ((0, 5), {}), ((0, 32, 2), {}), ((-3, 7, 3), {}), ((10, 0, -3), {}),
               ((5, 5), {}), ((0, 9, 4), {"dtype": torch.float32}), ((5.0,), {}), ((0.5, 3, 0.25), {}),
               ((1, 2.5, 0.5), {"dtype": torch.float64}), ((0, 1, 0.1), {}), ((1, -2, -0.3), {}), ((-0.0, 1.0), {}),
               ((-0.0, -1.0, -0.5), {}), ((0.1, 0.1), {}), ((2**24 - 1,), {}), ((-(2**24) + 1, 2**24 - 1, 2**22), {}),
               ((5,), {"device": "cpu"}), ((0, 4, 2), {"device": torch.device("cpu")})],
    "scalar_tensor": [((3,), {}), ((2.5,), {}), ((1e300,), {"dtype": torch.float64})],
    "rand": [((2, 3), {}), ((4,), {"dtype": torch.float64}), ((0,), {}), ((3,), {"device": torch.device("cpu")})],
    "randint": [((10, (3,)), {}), ((-4, 9, (2, 3)), {}), ((5, [4]), {"dtype": torch.int64}), ((0, 2**63 - 1, (3,)), {}),
                ((3, (0,)), {}), ((2, 3, (4,)), {})],
    "randperm": [((5,), {}), ((0,), {}), ((7,), {"dtype": torch.int32}), ((9,), {"dtype": torch.float64})],
    "eye": [((3,), {}), ((2, 5), {}), ((5, 2), {"dtype": torch.int64}), ((0,), {}), ((3, 0), {}), ((1,), {"dtype": torch.bool}),
            ((4,), {"dtype": torch.complex128})],
    "linspace": [((0, 1, 5), {}), ((-3.5, 2, 7), {"dtype": torch.float64}), ((1e30, -1e30, 4), {}), ((0.0, 1.0, 2), {}),
                 ((2, 2, 3), {}), ((0, float("inf"), 3), {})],
    "logspace": [((0, 2, 3), {}), ((-1.5, 3, 6), {"base": 2.0, "dtype": torch.float64}), ((0, 50, 4), {}),
                 ((1, 5, 5), {"base": 3})],
    "randn": [((2, 3), {}), ((4,), {"dtype": torch.float64}), (([3, 1],), {})],
}  # fmt: skip
# calls the fast call declines: the body runs (and gives the same results or errors as before)
BODY = {
    "zeros": [((), {}), ((-1,), {}), ((2, True), {}), ((2,), {"dtype": torch.bfloat16}), ((2,), {"out": None, "requires_grad": True}),
              ((2,), {"size": (3,)}), ((2,), {"device": "meta"}), ((2**62, 2**62), {}), ((2.0,), {})],
    "ones": [((2,), {"dtype": torch.bfloat16}), ((2,), {"requires_grad": True})],
    "empty": [((2,), {"dtype": torch.bfloat16}), ((-2,), {})],
    "full": [(((2,), 7), {}), (((2,), True), {}), (((2,), 1e39), {"dtype": torch.float32}), (((2,), 1 + 2j), {}),
             ((2, 1.0), {}), (((2,), 1.0), {"dtype": torch.int64}), (((-1,), 1.0), {})],
    "arange": [((5,), {"dtype": torch.float16}), ((-1,), {}), ((2**25,), {"dtype": torch.float32}), ((2**24,), {}),
               ((0, 5, 0), {}), ((5, 0), {}), ((0, 5, -1), {}), ((float("nan"),), {}), ((0, float("inf")), {}),
               ((0, 2.5), {"dtype": torch.int64}), ((True, 3), {}), ((np.int64(4),), {}), ((1 + 1j,), {}),
               ((0, 5), {"dtype": torch.bool}), ((3,), {"device": "cpu:0"}), ((3,), {"device": "meta"})],
    "scalar_tensor": [((True,), {}), ((1 + 1j,), {}), ((1e39,), {}), ((3,), {"dtype": torch.int64})],
    "rand": [((2,), {"dtype": torch.float16}), ((2,), {"generator": torch.Generator()}), ((2,), {"dtype": torch.int64}),
             ((-1,), {})],
    "linspace": [((0, 1, 1), {}), ((0, 1, 0), {}), ((0, 1, 5), {"dtype": torch.int64}), ((1 + 1j, 2, 3), {}),
                 ((0, 1, 5.0), {}), ((0, 1e39, 3), {"dtype": torch.float32}), ((0, 1, -1), {}), ((True, 1, 3), {}),
                 ((0, 1, 3), {"dtype": torch.float16})],
    "randint": [((10, (3,)), {"dtype": torch.int32}), ((5, 3, (2,)), {}), ((3, 3, (2,)), {}), ((10.0, (3,)), {}),
                ((10, 3), {}), ((10, (-1,)), {}), ((2**63, (2,)), {}), ((True, (2,)), {}), ((10,), {})],
    "randperm": [((-1,), {}), ((5,), {"dtype": torch.float16}), ((5,), {"dtype": torch.bool}), ((5.0,), {}),
                 ((3,), {"generator": torch.Generator()}), ((True,), {})],
    "eye": [((-1,), {}), ((2, -3), {}), ((2.0,), {}), ((True,), {}), ((2,), {"dtype": torch.bfloat16})],
    "logspace": [((0, 1, 1), {}), ((0, 2, 3), {"base": 2j}), ((0, 2, 3), {"dtype": torch.int32})],
    "randn": [((2,), {"dtype": torch.bfloat16}), ((2,), {"requires_grad": True}), ((2,), {"dtype": torch.complex64})],
}  # fmt: skip


def _spy(monkeypatch, name):
    fn = getattr(torch, name)
    body = fn.__globals__["_body"]
    seen = []

    def spy(*a):
        seen.append(a)
        return body(*a)

    monkeypatch.setitem(fn.__globals__, "_body", spy)
    return fn, body, seen


def _outcome(fn, seed=None):
    if seed is not None:
        torch.manual_seed(seed)
    try:
        r = fn()
    except Exception as e:  # noqa: BLE001  (both routes must raise alike)
        return (type(e), str(e))
    return r


def _same(a, b):
    if isinstance(a, tuple):
        assert a == b
        return
    assert a.dtype is b.dtype and a.shape == b.shape and a.stride() == b.stride() and a.device == b.device
    assert a.requires_grad == b.requires_grad and a.is_contiguous() == b.is_contiguous()
    a, b = a.detach(), b.detach()
    if a.device.type == "meta":  # no values
        return
    if a.dtype is torch.bfloat16:
        assert a.float().tolist() == b.float().tolist()
    elif a.dtype.is_floating_point or a.dtype.is_complex:
        np.testing.assert_array_equal(a.numpy().reshape(-1).view(np.uint8), b.numpy().reshape(-1).view(np.uint8))  # bits
    else:
        assert a.tolist() == b.tolist()


def _body_call(name, body, args, kw):
    """The body as the wrapper calls it: every parameter positionally, in signature order."""
    import inspect

    sig = inspect.signature(getattr(torch, name))
    bound = sig.bind(*args, **kw)
    bound.apply_defaults()
    vals = []
    for p in sig.parameters.values():
        vals.append(tuple(bound.arguments[p.name]) if p.kind is p.VAR_POSITIONAL else bound.arguments[p.name])
    return lambda: body(*vals)


@pytest.mark.filterwarnings("ignore:invalid value encountered")  # the body's NumPy on linspace(0, inf)
@pytest.mark.parametrize("name,args,kw", [(n, a, k) for n, cases in FAST.items() for a, k in cases])
def test_plain_calls_take_the_fast_route_and_match_the_body(monkeypatch, name, args, kw):
    fn, body, seen = _spy(monkeypatch, name)
    got = _outcome(lambda: fn(*args, **kw), seed=5)
    assert seen == [], "the body ran"
    want = _outcome(_body_call(name, body, args, kw), seed=5)
    if name != "empty":
        _same(got, want)
    else:
        assert got.dtype is want.dtype and got.shape == want.shape and got.stride() == want.stride()
    assert got._vc == [0] and got._base is None and got.grad_fn is None


@pytest.mark.parametrize("name,args,kw", [(n, a, k) for n, cases in BODY.items() for a, k in cases])
def test_other_calls_take_the_body(monkeypatch, name, args, kw):
    fn, body, seen = _spy(monkeypatch, name)
    got = _outcome(lambda: fn(*args, **kw), seed=5)
    assert len(seen) == 1, "the fast call did not decline"
    want = _outcome(_body_call(name, body, args, kw), seed=5)
    if (name == "empty" or "generator" in kw) and not isinstance(got, tuple):  # a Generator's stream moved on
        assert got.dtype is want.dtype and got.shape == want.shape
    else:
        _same(got, want)


@pytest.mark.parametrize("name", sorted(FAST))
def test_modes_vmap_and_deterministic_fill_take_the_body(monkeypatch, name):
    fn, _, seen = _spy(monkeypatch, name)
    args, kw = FAST[name][0]
    with capture_logs(is_mode=True) as logs, LoggingTensorMode():
        fn(*args, **kw)
    assert logs and len(seen) == 1
    torch.func.vmap(lambda x: x + fn(*args, **kw).sum(), randomness="same")(torch.ones(2))
    assert len(seen) == 2
    out = fn(*args, **kw)
    r = fn(*args, out=torch.empty(0, dtype=out.dtype), **kw)
    assert len(seen) == 3 and r.shape == out.shape


def test_empty_fills_uninitialized_memory_under_deterministic_algorithms(monkeypatch):
    fn, _, seen = _spy(monkeypatch, "empty")
    with torch.utils.deterministic._fill_uninitialized_memory_ctx(True) if hasattr(
            torch.utils.deterministic, "_fill_uninitialized_memory_ctx") else _deterministic():  # fmt: skip
        r = fn(3)
    assert len(seen) == 1 and np.isnan(r.numpy()).all()


class _deterministic:
    def __enter__(self):
        self.prev = torch.are_deterministic_algorithms_enabled()
        torch.use_deterministic_algorithms(True)

    def __exit__(self, *exc):
        torch.use_deterministic_algorithms(self.prev)


def test_random_fast_calls_advance_the_default_stream_as_the_body():
    torch.manual_seed(11)
    a = [torch.rand(3), torch.randn(2, 2), torch.rand(4, dtype=torch.float64)]
    torch.manual_seed(11)
    g = torch.Generator().manual_seed(11)
    b = [torch.rand(3, generator=g), torch.randn(2, 2, generator=g), torch.rand(4, dtype=torch.float64, generator=g)]
    for x, y in zip(a, b, strict=True):
        _same(x, y)


def test_default_dtype_is_read_at_call_time():
    prev = torch.get_default_dtype()
    try:
        torch.set_default_dtype(torch.float64)
        assert torch.zeros(2).dtype is torch.float64 and torch.rand(2).dtype is torch.float64
        assert torch.full((2,), 1.5).dtype is torch.float64 and torch.scalar_tensor(1).dtype is torch.float64
    finally:
        torch.set_default_dtype(prev)


# ---- *_like, Tensor.new_*, empty_strided: fast calls that decline to the body ---------------------------
@pytest.fixture
def dispatched(monkeypatch):
    from numtorch.ops.factory import core, random

    calls = []
    for mod in (core, random):
        real = mod.dispatch

        def spy(op, vals, real=real):
            calls.append(op)
            return real(op, vals)

        monkeypatch.setattr(mod, "dispatch", spy)
    return calls


def _x(dtype=torch.float32):
    return torch.arange(6, dtype=dtype).reshape(2, 3)


TENSOR_FAST = [
    ("empty_like", lambda x: torch.empty_like(x)), ("zeros_like", lambda x: torch.zeros_like(x)),
    ("ones_like", lambda x: torch.ones_like(x)), ("ones_like i32", lambda x: torch.ones_like(x, dtype=torch.int32)),
    ("full_like", lambda x: torch.full_like(x, 2.5)), ("full_like 0", lambda x: torch.full_like(x, 0)),
    ("rand_like", lambda x: torch.rand_like(x)), ("randn_like", lambda x: torch.randn_like(x, dtype=torch.float64)),
    ("randint_like", lambda x: torch.randint_like(x, 5)), ("randint_like lo", lambda x: torch.randint_like(x, -3, 9)),
    ("randint_like i64", lambda x: torch.randint_like(x, 2, 7, dtype=torch.int64)),
    ("new_empty", lambda x: x.new_empty(3, 2)), ("new_zeros", lambda x: x.new_zeros((2, 2))),
    ("new_ones", lambda x: x.new_ones([4])), ("new_full", lambda x: x.new_full((2, 2), 7)),
    ("new_empty_strided", lambda x: x.new_empty_strided((2, 3), (1, 2))),
    ("empty_strided", lambda x: torch.empty_strided((2, 3), (1, 2))),
    ("empty_strided 0-d", lambda x: torch.empty_strided((), ())),
    ("empty_strided 0", lambda x: torch.empty_strided((2, 0), (0, 1))),
    ("like 1-d", lambda x: torch.zeros_like(x[0])), ("like 0-d", lambda x: torch.rand_like(x[0, 0])),
]  # fmt: skip
TENSOR_BODY = [
    ("like transposed", lambda x: torch.zeros_like(x.t())), ("like bf16", lambda x: torch.ones_like(x, dtype=torch.bfloat16)),
    ("like device", lambda x: torch.zeros_like(x, device="cpu")), ("like grad", lambda x: torch.zeros_like(x, requires_grad=True)),
    ("empty_like format", lambda x: torch.empty_like(x, memory_format=torch.contiguous_format)),
    ("full_like int", lambda x: torch.full_like(x, 2, dtype=torch.int64)), ("full_like big", lambda x: torch.full_like(x, 1e39)),
    ("rand_like int", lambda x: torch.rand_like(x, dtype=torch.int64)), ("rand_like gen", lambda x: torch.rand_like(x, generator=torch.Generator())),
    ("randint_like bad", lambda x: torch.randint_like(x, 5, 3)), ("randint_like float", lambda x: torch.randint_like(x, 5.0)),
    ("randint_like wide", lambda x: torch.randint_like(x, 2**30)),
    ("new_zeros neg", lambda x: x.new_zeros(-1)), ("new_ones bool size", lambda x: x.new_ones(True)),
    ("new_full size", lambda x: x.new_full(2, 1.0)), ("new_full bf16", lambda x: x.new_full((2,), 1.0, dtype=torch.bfloat16)),
    ("new_zeros grad", lambda x: x.new_zeros(2, requires_grad=True)),
    ("empty_strided neg", lambda x: torch.empty_strided((2, 3), (1, -2))),
    ("empty_strided len", lambda x: torch.empty_strided((2, 3), (1,))),
    ("empty_strided huge", lambda x: torch.empty_strided((2**40, 2**40), (1, 2**40))),
    ("new_empty_strided dev", lambda x: x.new_empty_strided((2,), (1,), device="cpu")),
]  # fmt: skip


def _run(fn, x, seed=9):
    torch.manual_seed(seed)
    try:
        return fn(x)
    except Exception as e:  # noqa: BLE001
        return (type(e), str(e))


@pytest.mark.parametrize("call", TENSOR_FAST, ids=[c[0] for c in TENSOR_FAST])
def test_tensor_factories_take_the_fast_route(dispatched, call):
    name, fn = call
    got = _run(fn, _x())
    assert dispatched == [], "the body ran"
    assert got._vc == [0] and got._base is None and not got.requires_grad
    with capture_logs(is_mode=True) as logs, LoggingTensorMode():  # the body, with its aten call
        want = _run(fn, _x())
    assert logs and dispatched
    if "empty" in name:
        assert got.dtype is want.dtype and got.shape == want.shape and got.stride() == want.stride()
    else:
        _same(got, want)


@pytest.mark.filterwarnings("ignore:to - 1 is out of bounds")  # randint_like wide: the body warns
@pytest.mark.parametrize("call", TENSOR_BODY, ids=[c[0] for c in TENSOR_BODY])
def test_other_tensor_factory_calls_take_the_body(dispatched, call):
    name, fn = call
    got = _run(fn, _x())
    assert dispatched or isinstance(got, tuple), "the fast call did not decline"
    with LoggingTensorMode():
        want = _run(fn, _x())
    if isinstance(got, tuple) or "empty" in name or "gen" in name:
        assert isinstance(want, tuple) == isinstance(got, tuple)
        assert got == want if isinstance(got, tuple) else got.shape == want.shape
    else:
        _same(got, want)


def test_tensor_factories_under_grad_forward_ad_and_vmap_take_the_body(dispatched):
    import numtorch.autograd.forward_ad as fwAD

    p = torch.zeros(2, 3, requires_grad=True)
    dispatched.clear()
    torch.zeros_like(p), p.new_zeros(2), torch.rand_like(p)
    assert len(dispatched) == 3
    with torch.no_grad():
        torch.zeros_like(p), p.new_zeros(2)
    assert len(dispatched) == 3
    with fwAD.dual_level():
        torch.zeros_like(_x())
    assert len(dispatched) == 4
    torch.func.vmap(lambda x: torch.rand_like(x), randomness="different")(torch.zeros(2, 3))
    assert len(dispatched) >= 5


def test_linspace_kernel_is_space_array_bit_for_bit():
    from numtorch import _factory_utils as F
    from numtorch.ops.factory import fast

    rng = np.random.default_rng(0)
    for trial in range(600):
        dt = (torch.float32, torch.float64)[trial % 2]
        s = float(rng.normal() * 10.0 ** int(rng.integers(-5, 6))) if trial % 3 else int(rng.integers(-99, 99))
        e = float(rng.normal() * 10.0 ** int(rng.integers(-5, 6)))
        steps = int(rng.integers(2, 300))
        base = (None, 10.0, 2.0, float(rng.uniform(0.1, 5)))[trial % 4]
        got = fast.linspace(s, e, steps, dt, base)._data
        want = F.space_array(s, e, steps, dt, "linspace" if base is None else "logspace", base)
        assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), (dt, s, e, steps, base)


def test_complex_plain_calls_skip_the_body(monkeypatch):
    fn, body, seen = _spy(monkeypatch, "complex")
    re, im = torch.tensor([1.0, -0.0]), torch.tensor([2.0, 3.5])
    r = fn(re, im)
    assert seen == [] and r.dtype is torch.complex64 and r.tolist() == [1 + 2j, 3.5j]
    assert fn(re, torch.tensor(1.0)).tolist() == [1 + 1j, 1j]  # broadcast: the kernel's own route
    out = torch.empty(2, dtype=torch.complex64)
    fn(re, im, out=out)
    assert len(seen) == 1 and out.tolist() == r.tolist()
    with pytest.raises(RuntimeError, match="Expected object of scalar type Float"):
        fn(re, im.double())
    with pytest.raises(RuntimeError, match="must match the size"):
        fn(re, torch.ones(3))


@pytest.mark.parametrize("make", [lambda **kw: torch.full((2,), -0.0, **kw), lambda **kw: torch.zeros(1).new_full((2,), -0.0, **kw),
                                  lambda **kw: torch.full_like(torch.zeros(2), -0.0, **kw)])  # fmt: skip
def test_negative_zero_fill_keeps_its_sign(make):
    for kw in ({}, {"dtype": torch.float64}, {"requires_grad": True}):  # fast route, and the body
        r = make(**kw).detach()
        assert np.signbit(r.numpy()).all() and r.tolist() == [0.0, 0.0]
    assert make(dtype=torch.int64).tolist() == [0, 0]


def test_linspace_takes_the_kernels_compiled_entry(monkeypatch):
    from numtorch import _factory_utils as F
    from numtorch.ops.factory import fast

    monkeypatch.setattr(fast, "_LIN", {})
    learned = []
    real = fast._learn_linspace
    monkeypatch.setattr(fast, "_learn_linspace", lambda ct, *a: learned.append(ct) or real(ct, *a))
    fmax = float(np.finfo(np.float32).max)
    cases = [(0, 2, 3), (-fmax, fmax, 5), (fmax, -fmax, 4), (1e-45, 3e-45, 7), (0.1, 0.7, 6), (-np.inf, 1.0, 3),
             (2.0, np.inf, 4), (16777217.0, 1.0, 3), (1 / 3, 2 / 3, 1000)]  # fmt: skip
    for dt in (torch.float32, torch.float64, torch.float32):
        for s, e, steps in cases:
            with np.errstate(all="ignore"):
                want = F.space_array(s, e, steps, dt, "linspace", None)
            got = fast.linspace(s, e, steps, dt)._data
            assert got.tobytes() == want.tobytes(), (dt, s, e, steps)
    assert learned == [np.float32, np.float64]  # once per dtype: the entry after that
    assert set(fast._LIN) == {np.float32, np.float64}
