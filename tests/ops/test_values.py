"""Values against NumPy references, over every OpInfo, dtype and sample."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch.testing import assert_close

from ._harness import LAYOUTS, cases, expanded, ids, to_nt, to_np, to_nt_layout

CASES = list(cases(lambda i: i.ref is not None))


def _compare(actual, expected, info, dtype):
    if isinstance(expected, tuple):
        assert isinstance(actual, tuple), f"got {type(actual).__name__}, reference gives a tuple"
        assert len(actual) == len(expected), f"{len(actual)} results != reference's {len(expected)}"
        for a, e in zip(actual, expected):
            _compare(a, e, info, dtype)
        return
    a = to_np(actual)
    e = np.asarray(expected)
    assert a.shape == e.shape, f"shape {a.shape} != reference {e.shape}"
    # a float64 reference result stands for "float": references compute in double for accuracy,
    # and NumPy promotes int -> float64 where PyTorch gives its default float32. Only a float64
    # sample must give float64.
    widened = e.dtype == np.float64 and a.dtype == np.float32 and dtype != "float64"
    assert a.dtype == e.dtype or widened, f"dtype {a.dtype} != reference {e.dtype}"
    # tolerance follows the result's dtype: an int input can give a float32 result
    rtol, atol = info.tolerance(a.dtype.name if a.dtype.kind in "fc" else dtype)
    if a.dtype.kind in "fc" or e.dtype.kind in "fc":
        np.testing.assert_allclose(a.astype(np.complex128 if a.dtype.kind == "c" else np.float64), e, rtol=rtol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(a, e)


@pytest.mark.parametrize("case", CASES, ids=ids)
def test_values_match_numpy_reference(case, rng):
    info, dtype = case
    if "values" in info.skips:
        pytest.skip(info.skips["values"])
    fn = info.resolve()
    samples = info.sample_inputs(dtype, rng)
    assert samples, f"{info.name} has no {dtype} sample"
    for s in samples:
        got = fn(to_nt(s.input), *to_nt(s.args), **to_nt(s.kwargs))
        want = info.ref(s.input, *s.args, **s.kwargs)
        _compare(got, want, info, dtype)


@pytest.mark.parametrize("case", CASES, ids=ids)
def test_values_match_on_noncontiguous_layouts(case, rng):
    """Every sample again with its arrays transposed, permuted, offset into storage and stepped,
    and with the input expanded (stride 0): kernels must follow strides and storage offsets."""
    info, dtype = case
    for prop in ("values", "layouts"):
        if prop in info.skips:
            pytest.skip(info.skips[prop])
    fn = info.resolve()
    checked = 0
    for s in info.sample_inputs(dtype, rng):
        want = info.ref(s.input, *s.args, **s.kwargs)
        for layout in LAYOUTS:
            (x, args), n = to_nt_layout((s.input, s.args), layout)
            if n:
                checked += 1
                _compare_in(layout, s, fn(x, *args, **to_nt(s.kwargs)), want, info, dtype)
        # an op that writes into its input would write through the expanded view: PyTorch refuses
        exp = expanded(s.input) if isinstance(s.input, np.ndarray) and not info.name.endswith("_") else None
        if exp is None:
            continue
        try:
            want = info.ref(exp[0], *s.args, **s.kwargs)
        except Exception:  # the repeated values are outside the op's domain (a singular matrix)
            continue
        checked += 1
        _compare_in("expanded", s, fn(exp[1], *to_nt(s.args), **to_nt(s.kwargs)), want, info, dtype)
    if not checked:
        pytest.skip("no sample has an array that a non-contiguous layout changes")


def _compare_in(layout, s, got, want, info, dtype):
    try:
        _compare(got, want, info, dtype)
    except AssertionError as e:
        raise AssertionError(f"{layout} layout, {s!r}: {e}") from None


@pytest.mark.parametrize("case", [c for c in CASES if c[0].method], ids=ids)
def test_method_matches_function(case, rng):
    info, dtype = case
    fn = info.resolve()
    for s in info.sample_inputs(dtype, rng):
        x = to_nt(s.input)
        f = fn(x, *to_nt(s.args), **to_nt(s.kwargs))
        m = getattr(x, info.method)(*to_nt(s.args), **to_nt(s.kwargs))
        assert_close(m, f, equal_nan=True, rtol=0, atol=0)


@pytest.mark.parametrize("case", [c for c in CASES if c[0].supports_out], ids=ids)
def test_out_argument_is_written_and_returned(case, rng):
    info, dtype = case
    fn = info.resolve()
    for s in info.sample_inputs(dtype, rng):
        if not s.out:
            continue
        args, kwargs = to_nt(s.args), to_nt(s.kwargs)
        expected = fn(to_nt(s.input), *args, **kwargs)
        # start from values unequal to the result everywhere, so an out= the op ignores fails
        out = numtorch.logical_not(expected) if expected.dtype == numtorch.bool else expected + 1
        ret = fn(to_nt(s.input), *args, out=out, **kwargs)
        assert ret is out
        assert_close(out, expected, equal_nan=True, rtol=0, atol=0)


@pytest.mark.parametrize("case", [c for c in CASES if c[0].inplace], ids=ids)
def test_inplace_variant_mutates_and_returns_self(case, rng):
    info, dtype = case
    fn = info.resolve()
    checked = 0
    for s in info.sample_inputs(dtype, rng):
        x = to_nt(s.input)
        args, kwargs = to_nt(s.args), to_nt(s.kwargs)
        expected = fn(x, *args, **kwargs)
        if expected.shape != x.shape or not numtorch.can_cast(expected.dtype, x.dtype):
            continue  # PyTorch refuses these in place; covered by test_inplace errors
        expected = expected.to(x.dtype)  # x.eq_(y) writes the comparison as 1.0 / 0.0
        checked += 1
        v0 = x._version
        ret = getattr(x, info.inplace)(*args, **kwargs)
        assert ret is x
        assert x._version > v0
        assert_close(x, expected, equal_nan=True, rtol=0, atol=0)
    if not checked:
        pytest.skip(f"every {dtype} sample changes dtype or shape, which in-place refuses")
