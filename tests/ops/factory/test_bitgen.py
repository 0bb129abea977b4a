"""Draws made in kernels through the bit generator's address (Note [Bit generator in kernels],
numtorch/kernels/cpu/bitgen.py; Note [Poisson sampler]): NumPy's values and stream position."""

from __future__ import annotations

import math

import numpy as np
import pytest

import numtorch
from numtorch.kernels.cpu import sampling as KS
from numtorch.ops.factory import _bitgen as BG


def _pair(seed):
    g1, g2 = (np.random.Generator(np.random.PCG64(seed)) for _ in range(2))
    for g in (g1, g2):  # leave half of a 64-bit draw buffered: next_uint32 must use it first
        g.integers(0, 5, size=1)
    return g1, g2


_RANGES = [(0, 9), (-5, 5), (3, 3), (0, 2**32 - 2), (0, 2**32 - 1), (0, 2**32), (-(2**40), 2**40),
           (-(2**63), 2**63 - 1), (-(2**63), 5), (2**62, 2**63 - 1)]  # fmt: skip


@pytest.mark.parametrize(("lo", "hi"), _RANGES)
@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.float64, np.float32])
def test_integers_into_is_generator_integers(lo, hi, dtype):
    if dtype is np.int32 and not -(2**31) <= lo <= hi < 2**31:
        pytest.skip("int32 outputs take bounds it holds")
    g1, g2 = _pair(lo & 1023)
    for n in (1, 7, 64):
        want = g1.integers(lo, hi, size=n, dtype=np.int64, endpoint=True).astype(dtype)
        got = np.empty(n, dtype)
        BG.integers_into(g2, lo, hi, got)
        assert got.tobytes() == want.tobytes()
    assert g1.bit_generator.state == g2.bit_generator.state


def test_integers_into_empty_draws_nothing():
    g1, g2 = _pair(0)
    BG.integers_into(g2, 0, 9, np.empty(0, np.int64))
    assert g1.bit_generator.state == g2.bit_generator.state


def test_address_follows_the_generator():
    g1, g2 = _pair(1)
    assert BG.address(g1) == BG.address(g1) != BG.address(g2)


_RATES = [np.array([0.0, 0.5, 3.0, 9.99, 10.0, 10.5, 12.0, 50.0, 1e3, 1e6, 1e12, 1e17]),
          np.random.default_rng(1).uniform(0, 30, 4000), np.random.default_rng(2).uniform(10, 10.5, 8000),
          np.random.default_rng(3).exponential(100, 2000).astype(np.float32)]  # fmt: skip


@pytest.mark.parametrize("lam", _RATES, ids=["edges", "mult_and_ptrs", "ptrs_near_10", "float32"])
@pytest.mark.parametrize("seed", [0, 5])
def test_poisson_kernel_is_generator_poisson(lam, seed):
    g1, g2 = _pair(seed)
    want = g1.poisson(lam.astype(np.float64)).astype(np.float64)
    got = KS.poisson_counts(BG.address(g2), lam)
    assert got.dtype == np.float64 and got.tobytes() == want.tobytes()
    assert g1.bit_generator.state == g2.bit_generator.state


@pytest.mark.parametrize("bad", [-1.0, np.nan, 1e18, np.inf])
def test_poisson_kernel_refuses_without_drawing(bad):
    g1, g2 = _pair(2)
    assert KS.poisson_counts(BG.address(g2), np.array([1.0, bad, 2.0])) is None
    assert g1.bit_generator.state == g2.bit_generator.state


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_bernoulli_kernel_is_uniform_below_p(dtype):
    g1, g2 = _pair(3)
    p = np.random.default_rng(4).random(300).astype(dtype)
    p[:3] = [0.0, 1.0, 0.5]
    want = (g1.random(p.shape) < p).astype(dtype)
    got = np.empty_like(p)
    assert KS.bernoulli_probs(BG.address(g2), p, got)
    assert got.tobytes() == want.tobytes() and g1.bit_generator.state == g2.bit_generator.state
    for bad in (-0.5, 1.5, np.nan):
        p[7] = bad
        assert not KS.bernoulli_probs(BG.address(g2), p, got)
    assert g1.bit_generator.state == g2.bit_generator.state


def test_binomial_stream_is_unchanged():
    # the values main drew at 86151d5, when the kernel took the unboxed np.random.Generator
    numtorch.manual_seed(3)
    c = numtorch.tensor([0.0, 1.0, 5.0, 20.0, 100.0, 1000.0, 7.0, 50.0, 3.0, 1e6], dtype=numtorch.float64)
    p = numtorch.tensor([0.5, 0.3, 0.9, 0.5, 0.05, 0.7, 1.0, 0.0, 0.99, 0.4], dtype=numtorch.float64)
    assert numtorch.binomial(c, p).tolist() == [0.0, 0.0, 5.0, 12.0, 3.0, 690.0, 7.0, 0.0, 3.0, 400023.0]
    assert numtorch.binomial(c.float(), p.float()).tolist() == [0.0, 0.0, 3.0, 11.0, 1.0, 708.0, 7.0, 0.0, 3.0,
                                                                  399961.0]  # fmt: skip
    assert numtorch.rand(2, dtype=numtorch.float64).tolist() == [0.030346007662471197, 0.7069650956556235]


def test_binomial_broadcast_and_strided_inputs():
    numtorch.manual_seed(0)
    c = numtorch.tensor([[30.0], [4.0]], dtype=numtorch.float64).expand(2, 3)
    p = numtorch.tensor([0.2, 0.5, 0.9], dtype=numtorch.float64)
    a = numtorch.binomial(c, p)
    numtorch.manual_seed(0)
    b = numtorch.binomial(c.contiguous(), p.expand(2, 3).contiguous())
    assert a.shape == (2, 3) and a.tolist() == b.tolist()


@pytest.mark.parametrize(("name", "call"), [
    ("randint", lambda: numtorch.randint(0, 10, (4, 5))),
    ("randint_like", lambda: numtorch.randint_like(numtorch.ones(4, 5), 3, 9)),
    ("random_", lambda: numtorch.empty(4, 5).random_(0, 10)),
    ("poisson", lambda: numtorch.poisson(numtorch.full((4, 5), 3.0))),
    ("bernoulli", lambda: numtorch.bernoulli(numtorch.full((4, 5), 0.25))),
])  # fmt: skip
def test_fast_calls_draw_through_the_address(monkeypatch, name, call):
    calls = []
    real_call, real_fill = BG.call, BG.fill
    monkeypatch.setattr(BG, "call", lambda k, g, *a: calls.append(g) or real_call(k, g, *a))
    monkeypatch.setattr(BG, "fill", lambda k, g, *a: calls.append(g) or real_fill(k, g, *a))
    call()
    # one draw (fill's first call for a kernel and dtype goes on through call: two records)
    assert 1 <= len(calls) <= 2 and all(g is numtorch.default_generator._np for g in calls)


# ---- Note [Sampler kernel entries] --------------------------------------------------------------------
def test_fill_takes_the_compiled_entry_after_the_first_call(monkeypatch):
    from numtorch.kernels.cpu import bitgen as KB

    monkeypatch.setattr(BG, "_ENTRY", {})
    monkeypatch.setattr(BG, "_ENTRIES", {})
    g1, g2 = _pair(3)
    for dtype, k, n in [(np.float32, KB.uniform32_, 5), (np.float64, KB.uniform64_, 3), (np.float32, KB.uniform32_, 4)]:
        for _ in range(3):
            got = np.empty(n, dtype)
            BG.fill(k, g2, got, 2.0, -1.0, True)
            want = dtype(-1.0) + dtype(2.0) * g1.random(n, dtype=dtype)
            assert got.tobytes() == want.tobytes()
        e = BG._ENTRIES[(k, np.dtype(dtype))]
        assert e is not k and BG._ENTRY[k] == (np.dtype(dtype), e)  # the entry, not the dispatcher
    assert g1.bit_generator.state == g2.bit_generator.state
    seen = []
    monkeypatch.setattr(BG, "call", lambda *a: seen.append(a))
    BG.fill(KB.uniform32_, g2, np.empty(2, np.float32), 1.0, 0.0, False)
    assert seen == []  # the learned entry ran, not call's dispatcher


def test_fill_alternating_dtypes_and_generators_keep_numpys_draws():
    from numtorch.kernels.cpu import ziggurat as KZ

    ga, gb = _pair(4)
    ha, hb = _pair(6)
    for i in range(6):
        dtype = (np.float32, np.float64)[i % 2]
        src, ref = (gb, ga) if i % 3 else (hb, ha)
        got = np.empty(4 + i, dtype)
        BG.fill(KZ.exponential_, src, got, 0.5)
        assert got.tobytes() == (ref.standard_exponential(4 + i) / 0.5).astype(dtype).tobytes()
    assert ga.bit_generator.state == gb.bit_generator.state and ha.bit_generator.state == hb.bit_generator.state


def test_fill_keeps_the_dispatcher_for_arrays_an_entry_cannot_take():
    from numtorch.kernels.cpu import bitgen as KB

    ro = np.zeros(4)
    ro.flags.writeable = False
    unaligned = np.frombuffer(bytearray(33), np.float64, 4, 1)
    swapped = np.zeros(4, ">f8")
    for bad in (ro, np.zeros((2, 2)), np.zeros(8)[::2], unaligned, swapped, np.ma.zeros(4)):
        assert BG._entry(KB.uniform64_, (0, bad, 1.0, 0.0, False)) is KB.uniform64_


def test_kernels_draw_under_the_generators_lock():
    # a kernel releases the GIL: NumPy's samplers hold bit_generator.lock, and so must ours
    import threading

    g = np.random.default_rng(0)

    def free_to_another_thread():
        got = []

        def probe():
            got.append(g.bit_generator.lock.acquire(blocking=False))
            if got[0]:
                g.bit_generator.lock.release()

        t = threading.Thread(target=probe)
        t.start()
        t.join()
        return got[0]

    assert BG.call(lambda addr: (addr, free_to_another_thread()), g) == (BG.address(g), False)
    assert free_to_another_thread()


# ---- Note [Ziggurat samplers in kernels] ---------------------------------------------------------------
def _zig():
    from numtorch.kernels.cpu import ziggurat

    return ziggurat


N_ZIG = 40_000  # enough draws to reach the ziggurats' wedges and tails


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_ziggurat_fills_are_generator_methods(dtype):
    Z = _zig()
    g1, g2 = _pair(11)
    bg, n = BG.address(g2), N_ZIG
    got = np.empty(n, dtype)

    def check(want):
        assert got.tobytes() == want.astype(dtype).tobytes()
        assert g1.bit_generator.state == g2.bit_generator.state

    z = np.empty(n, dtype)
    g1.standard_normal(out=z, dtype=dtype)
    (Z.normal32_ if dtype is np.float32 else Z.normal64_)(bg, got, 3.0, -0.5, True)
    check(dtype(-0.5) + dtype(3.0) * z)
    Z.exponential_(bg, got, 0.7)
    check(g1.standard_exponential(n) / 0.7)
    Z.cauchy_(bg, got, 2.0, 1.5)
    check(1.5 + 2.0 * g1.standard_cauchy(n))
    Z.log_normal_(bg, got, 0.5, 2.0)
    check(g1.lognormal(0.5, 2.0, n))
    for p in (0.9, 0.5, 1 / 3, 0.2, 1e-3, 1e-12, 1e-300):  # the search, the inversion, NumPy's clamp
        Z.geometric_(bg, got, p)
        check(g1.geometric(p, n))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_default_generator_draws_are_numpys(dtype):
    """_bitgen.standard_normal/random (randn, rand and their *_like fast calls): the draws as they
    are (a normal draw of -0.0 stays -0.0), and the generator where NumPy's call leaves it."""
    numtorch.manual_seed(5)
    g = np.random.Generator(np.random.PCG64(5))
    for shape in ((3, 4), (0,), (N_ZIG,)):
        for n in (math.prod(shape), BG.SMALL):  # the size's own route, then the kernel's
            assert BG.standard_normal(shape, dtype, n).tobytes() == g.standard_normal(shape, dtype=dtype).tobytes()
            assert BG.random(shape, dtype, n).tobytes() == g.random(shape, dtype=dtype).tobytes()
    assert numtorch.default_generator._np.bit_generator.state["state"] == g.bit_generator.state["state"]


def test_binomial_binding_fast_call_and_its_declines(monkeypatch):
    from numtorch.ops.factory import sampling
    from numtorch.testing._internal.logging_tensor import LoggingTensorMode

    calls = []
    real = sampling.dispatch
    monkeypatch.setattr(sampling, "dispatch", lambda op, vals: calls.append(op) or real(op, vals))
    c, p = numtorch.full((2, 3), 30.0), numtorch.full((2, 3), 0.4)
    numtorch.manual_seed(2)
    got = numtorch.binomial(c, p)
    assert calls == []
    numtorch.manual_seed(2)
    with LoggingTensorMode():
        want = numtorch.binomial(c, p)
    assert len(calls) == 1 and got.tolist() == want.tolist() and got.dtype is want.dtype
    numtorch.binomial(c, p, generator=numtorch.Generator())
    assert numtorch.binomial(c.requires_grad_(), p).requires_grad and len(calls) == 3
    with pytest.raises(RuntimeError, match="Found dtype Double but expected Float"):
        numtorch.binomial(numtorch.ones(2), numtorch.ones(2, dtype=numtorch.float64))


@pytest.mark.parametrize("seed", [0, 7])
def test_permutation_kernel_is_generator_permutation(seed):
    from numtorch.kernels.cpu import bitgen as KB

    g1, g2 = _pair(seed)
    for n in (0, 1, 2, 3, 5, 17, 256, 1000, 70_000):
        want = g1.permutation(n)
        got = np.empty(n, np.int64)
        BG.fill(KB.permutation_, g2, got)
        assert got.tobytes() == want.tobytes(), n
    assert g1.bit_generator.state == g2.bit_generator.state


def test_randperm_draws_through_the_kernel(monkeypatch):
    calls = []
    real = BG.fill
    monkeypatch.setattr(BG, "fill", lambda k, g, *a: calls.append(k.__name__) or real(k, g, *a))
    for dtype in (numtorch.int64, numtorch.int32, numtorch.float64):
        numtorch.manual_seed(3)
        got = numtorch.randperm(9, dtype=dtype)
        after = numtorch.rand(2)
        g = np.random.Generator(np.random.PCG64(3))
        assert got.dtype is dtype and got.numpy().tobytes() == g.permutation(9).astype(dtype.np).tobytes()
        assert after.numpy().tobytes() == g.random(2, dtype=np.float32).tobytes()  # the stream goes on alike
    assert calls == ["permutation_"] * 3
