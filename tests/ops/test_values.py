"""Values against NumPy references, over every OpInfo, dtype and sample."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch.testing import assert_close

from ._harness import cases, ids, to_nt, to_np

CASES = list(cases(lambda i: i.ref is not None))


def _compare(actual, expected, info, dtype):
    if isinstance(expected, tuple):
        for a, e in zip(actual, expected):
            _compare(a, e, info, dtype)
        return
    a = to_np(actual)
    e = np.asarray(expected)
    assert a.shape == e.shape, f"shape {a.shape} != reference {e.shape}"
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
    for s in info.sample_inputs(dtype, rng):
        got = fn(to_nt(s.input), *to_nt(s.args), **to_nt(s.kwargs))
        want = info.ref(s.input, *s.args, **s.kwargs)
        _compare(got, want, info, dtype)


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
        args, kwargs = to_nt(s.args), to_nt(s.kwargs)
        expected = fn(to_nt(s.input), *args, **kwargs)
        out = numtorch.empty_like(expected)
        ret = fn(to_nt(s.input), *args, out=out, **kwargs)
        assert ret is out
        assert_close(out, expected, equal_nan=True, rtol=0, atol=0)


@pytest.mark.parametrize("case", [c for c in CASES if c[0].inplace], ids=ids)
def test_inplace_variant_mutates_and_returns_self(case, rng):
    info, dtype = case
    fn = info.resolve()
    for s in info.sample_inputs(dtype, rng):
        x = to_nt(s.input)
        args, kwargs = to_nt(s.args), to_nt(s.kwargs)
        expected = fn(x, *args, **kwargs)
        if expected.dtype != x.dtype or expected.shape != x.shape:
            continue  # PyTorch refuses these in place; covered by test_inplace errors
        v0 = x._version
        ret = getattr(x, info.inplace)(*args, **kwargs)
        assert ret is x
        assert x._version > v0
        assert_close(x, expected, equal_nan=True, rtol=0, atol=0)
