"""bfloat16 over the OpInfo table (Note [bfloat16]): every op with a NumPy reference and float32
samples runs on the same samples in bfloat16, and must give bfloat16 where float32 gives float32,
with the reference's values rounded to bfloat16 (float32 compute, one round to nearest even).

Inputs are first rounded to bfloat16 so that both sides see the same values; the reference
(float32 or float64) is then rounded once, as PyTorch's bfloat16 kernels round their float32
result. The float32 kernels are reused, so this module compiles nothing the float32 tests do not.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import numtorch
import numtorch.testing._opinfo.nn.core

from ._harness import cases, ids, to_nt

BF = numtorch.bfloat16
ULP = 2.0**-7  # bfloat16's spacing relative to the value: its 8-bit significand

# PyTorch refuses bfloat16 for these (tests/parity/test_bfloat16_parity.py checks the errors)
REFUSED = {"linalg.inv", "inverse", "linalg.det", "det", "linalg.slogdet", "slogdet", "logdet", "linalg.solve",
           "linalg.svdvals", "linalg.qr", "linalg.cholesky", "cholesky", "linalg.eigh", "linalg.eigvalsh",
           "linalg.svd", "svd", "linalg.lstsq", "linalg.pinv", "complex", "binomial", "nn.functional.avg_pool3d",
           "view_as_complex", "linalg.matrix_norm", "linalg.matrix_power", "matrix_power",
           "nn.functional.lp_pool3d", "nn.functional.local_response_norm"}  # fmt: skip
# results that are not a function of the inputs' values (random draws, uninitialised memory)
NOT_VALUES = {"empty_like", "Tensor.new_empty", "Tensor.new_empty_strided", "empty_strided", "empty",
              "nan_to_num"}  # its reference uses float32's max: test_nan_to_num_uses_bfloat16_max


def _selected(info) -> bool:
    return (
        info.ref is not None
        and "float32" in info.dtypes
        and "values" not in info.skips
        and not info.nondeterministic
        and info.name not in REFUSED
        and info.name not in NOT_VALUES
        and not info.name.startswith(("special.", "fft."))  # PyTorch: special functions/fft refuse it
    )


_ALL = list(cases(_selected, dtypes=("float32",)))
# Note [Default and slow test runs]: the default run takes every 4th entry of the registry (all
# areas, no hand-picking: a new op joins it by its position); the slow run takes all of them
CASES = [pytest.param(c, id=ids(c), marks=() if k % 4 == 0 else pytest.mark.slow) for k, c in enumerate(_ALL)]
# nn entries are mostly composites (losses, norms, attention): each step rounds to bfloat16, as
# PyTorch's composites do, so they get a few steps and an absolute part that scales with the result
_COMPOSITES = {info.name for info in numtorch.testing._opinfo.nn.core.OPINFOS}


def _rounded(x):
    if isinstance(x, np.ndarray) and x.dtype == np.float32:
        return x.astype(ml_dtypes.bfloat16).astype(np.float32)
    if isinstance(x, (list, tuple)):
        return type(x)(_rounded(v) for v in x)
    if isinstance(x, dict):
        return {k: _rounded(v) for k, v in x.items()}
    return x


def _bf(x):
    if isinstance(x, np.ndarray) and x.dtype == np.float32:
        return numtorch.from_numpy(x.copy()).to(BF)
    if isinstance(x, (list, tuple)):
        return type(x)(_bf(v) for v in x)
    if isinstance(x, dict):
        return {k: _bf(v) for k, v in x.items()}
    return to_nt(x)


def _compare(got, want, f32, info):
    if isinstance(want, tuple):
        for g, w, f in zip(got, want, f32, strict=True):
            _compare(g, w, f, info)
        return
    if not isinstance(f32, numtorch.Tensor):
        return
    if f32.dtype is not numtorch.float32:
        assert got.dtype is f32.dtype, f"{got.dtype} where float32 samples give {f32.dtype}"
        if got.dtype.is_floating_point or got.dtype.is_complex:
            return  # a float64/complex result of bfloat16 inputs: its own dtype's test covers it
        np.testing.assert_array_equal(got.numpy(), np.asarray(want))
        return
    assert got.dtype is BF, f"{got.dtype} where float32 samples give float32"
    ref = np.asarray(want).astype(np.float32).astype(ml_dtypes.bfloat16).astype(np.float64)
    rtol, atol = info.tolerance("float32")
    # one bfloat16 step: the float32 result and the reference may round to neighbours
    rtol, atol = ULP + rtol, max(atol, 1e-6)
    if info.name in _COMPOSITES:
        finite = np.abs(ref[np.isfinite(ref)])
        rtol, atol = 4 * ULP, 2 * ULP * float(finite.max(initial=1.0))
    np.testing.assert_allclose(got.float().numpy(), ref, rtol=rtol, atol=atol, equal_nan=True)


def _has(x, pred) -> bool:
    if isinstance(x, (list, tuple)):
        return any(_has(v, pred) for v in x)
    if isinstance(x, dict):
        return any(_has(v, pred) for v in x.values())
    return pred(x)


def _float_array(x) -> bool:
    return isinstance(x, np.ndarray) and x.dtype == np.float32


def _a_dtype(x) -> bool:
    return isinstance(x, (numtorch.dtype, np.dtype)) or isinstance(x, type) and x in (np.float32, np.float64, float, int)


@pytest.mark.parametrize("case", CASES)
def test_bfloat16_values_match_reference_rounded_once(case, rng):
    info, _ = case
    fn = info.resolve()
    ran = 0
    for s in info.sample_inputs("float32", rng):
        inp, args, kw = _rounded(s.input), _rounded(s.args), _rounded(s.kwargs)
        # bfloat16 must take part, and a dtype argument (factories, casts, view(dtype)) decides alone
        if not _has((inp, args, kw), _float_array) or _has((args, kw), _a_dtype):
            continue
        ins = to_nt(inp)
        f32 = fn(ins, *to_nt(args), **to_nt(kw))
        if f32 is ins:  # x.float() of a float32 tensor is x itself
            continue
        got = fn(_bf(inp), *_bf(args), **_bf(kw))
        _compare(got, info.ref(inp, *args, **kw), f32, info)
        ran += 1
    if not ran:
        pytest.skip("no sample with a float32 tensor and no dtype argument")
