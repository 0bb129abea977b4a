"""Vectorizable float32 fmod / remainder / floor_divide (numtorch/kernels/cpu/pointwise/vmath_fmod.py,
Note [Exact float32 fmod]): bit-exact against libm's fmod (NumPy) over every exponent, the
quotients next to an integer that make the rounded quotient one too big, signed zeros, NaN, inf
and zero divisors, and the guarded kernels' block routing."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch.kernels import _codegen
from numtorch.kernels.cpu.pointwise import vmath_fmod

SPECIAL = np.float32(
    [
        0.0,
        -0.0,
        np.inf,
        -np.inf,
        np.nan,
        1,
        -1,
        2,
        -2,
        3e38,
        -3e38,
        1e-45,
        -1e-45,
        1.5,
        -4,
        4,
        0.1,
        7,
    ]
)


def _pairs(n=4000):
    rng = np.random.default_rng(16)
    bits = (
        rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)
    )  # every exponent
    a = [
        rng.uniform(-9, 9, n).astype(np.float32),
        bits,
        rng.permutation(bits),
        np.repeat(SPECIAL, SPECIAL.size),
    ]
    b = [
        rng.uniform(-5, 5, n).astype(np.float32),
        rng.permutation(bits),
        bits,
        np.tile(SPECIAL, SPECIAL.size),
    ]
    # a next to k * b with k around the guard's 2**29 (Note [Exact float32 fmod])
    k = np.concatenate(
        [rng.integers(1, 2**29, n // 2), rng.integers(2**28, 2**31, n - n // 2)]
    ).astype(np.float32)
    d = rng.uniform(-4, 4, n).astype(np.float32)
    near = (k * d).astype(np.float32)
    for lo in (
        near,
        np.nextafter(near, np.float32(np.inf)),
        np.nextafter(near, -np.float32(np.inf)),
    ):
        a += [lo, -lo]
        b += [d, d]
    return np.concatenate(a), np.concatenate(b)


def _remainder_ref(a, b):  # ATen's remainder: fmod moved into b's sign by one float32 add
    m = np.fmod(a, b)
    return np.where((m != 0) & ((b < 0) != (m < 0)), m + b, m).astype(np.float32)


def _same_bits(got, want):
    bad = (got.view(np.int32) != want.view(np.int32)) & ~(np.isnan(got) & np.isnan(want))
    assert not bad.any(), (np.flatnonzero(bad)[:5], got[bad][:5], want[bad][:5])


@pytest.mark.parametrize(
    ("fast", "ref"),
    [(vmath_fmod.fmod_fast32, np.fmod), (vmath_fmod.remainder_fast32, _remainder_ref),
     (vmath_fmod.div_floor_fast32, np.floor_divide)],
)  # fmt: skip
def test_fast_versions_are_exact_wherever_the_guard_holds(fast, ref):
    a, b = _pairs(600)
    ok = np.array([vmath_fmod.fmod_ok32(x, y) for x, y in zip(a, b, strict=True)])
    assert ok.sum() > 2000 and not ok.all()
    with np.errstate(all="ignore"):
        want = ref(a[ok], b[ok]).astype(np.float32)
    got = np.array([fast(x, y) for x, y in zip(a[ok], b[ok], strict=True)], np.float32)
    _same_bits(got, want)


def test_guard_refuses_what_float64_cannot_do_exactly():
    f32 = np.float32
    assert vmath_fmod.fmod_ok32(f32(2.0**29 - 64), f32(1.0))
    for a, b in [
        (2.0**29, 1.0),
        (1.0, 0.0),
        (1.0, np.inf),
        (np.inf, 1.0),
        (np.nan, 1.0),
        (1.0, np.nan),
        (3e38, 1e-30),
    ]:
        assert not vmath_fmod.fmod_ok32(f32(a), f32(b))


@pytest.mark.parametrize("name", ["fmod", "remainder", "floor_divide"])
def test_float32_ops_match_libm_in_kernels_blocks_and_in_place(name):
    a, b = _pairs()
    ref = {"fmod": np.fmod, "remainder": _remainder_ref, "floor_divide": np.floor_divide}[name]
    with np.errstate(all="ignore"):
        want = ref(a, b).astype(np.float32)
        want_s = ref(a, np.float32(0.1)).astype(np.float32)
    fn = getattr(numtorch, name)
    _same_bits(fn(numtorch.from_numpy(a), numtorch.from_numpy(b)).numpy(), want)
    _same_bits(fn(numtorch.from_numpy(a), 0.1).numpy(), want_s)
    x = a.copy()
    getattr(numtorch.from_numpy(x), name + "_")(numtorch.from_numpy(b))
    _same_bits(x, want)


def test_generated_kernels_guard_the_binary_division_family():
    # Note [Guarded fast paths]: the float expressions become guarded calls on both operands
    for expr, fast in [("np.fmod(self, other)", "vfmod_fast(self, other)"),
                       ("remainder_float(self, other)", "vremainder_fast(self, other)"),
                       ("div_floor_float(self, other)", "vdiv_floor_fast(self, other)")]:  # fmt: skip
        src = _codegen.render_pointwise(["self", "other"], [], expr)
        assert "ok = ok & vfmod_ok(self, other)" in src and fast in src
    assert _codegen._guarded("vfmod(self, y)", ["self", "other"]) is None
