"""numtorch.testing.assert_close, mirroring torch.testing.assert_close."""

from __future__ import annotations

import numpy as np

_TOL = {"float16": (1e-3, 1e-5), "float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7),
        "complex64": (1.3e-6, 1e-5), "complex128": (1e-7, 1e-7)}  # fmt: skip


def _as_array(x):
    from .._tensor import Tensor

    if isinstance(x, Tensor):
        return x.detach()._host() if hasattr(x, "detach") else x._host(), x.dtype.name
    a = np.asarray(x)
    return a, a.dtype.name


def assert_close(actual, expected, *, rtol=None, atol=None, equal_nan=False, check_dtype=True, msg=None):
    """Raise AssertionError unless ``actual`` and ``expected`` match in shape, dtype and values.

    >>> numtorch.testing.assert_close(numtorch.tensor([1.0]), numtorch.tensor([1.0 + 1e-9]))
    """
    if isinstance(actual, (list, tuple)) and isinstance(expected, (list, tuple)):
        assert len(actual) == len(expected), f"length mismatch: {len(actual)} != {len(expected)}"
        for a, e in zip(actual, expected):
            assert_close(a, e, rtol=rtol, atol=atol, equal_nan=equal_nan, check_dtype=check_dtype, msg=msg)
        return
    a, adt = _as_array(actual)
    e, edt = _as_array(expected)
    if check_dtype and adt != edt:
        raise AssertionError(msg or f"The values for attribute 'dtype' do not match: {adt} != {edt}.")
    if a.shape != e.shape:
        raise AssertionError(msg or f"The values for attribute 'shape' do not match: {a.shape} != {e.shape}.")
    if rtol is None or atol is None:
        rtol, atol = _TOL.get(adt, (0.0, 0.0))
    if a.dtype.kind in "fc" or e.dtype.kind in "fc":
        ok = np.isclose(a, e, rtol=rtol, atol=atol, equal_nan=equal_nan)
    else:
        ok = a == e
    if not np.all(ok):
        bad = int(np.size(ok) - np.count_nonzero(ok))
        diff = np.abs(a.astype(np.complex128) - e.astype(np.complex128)) if a.size else np.zeros(0)
        raise AssertionError(
            msg
            or f"Tensor-likes are not close!\n\nMismatched elements: {bad} / {a.size}\n"
            f"Greatest absolute difference: {np.nanmax(diff) if diff.size else 0}\n"
            f"actual: {a!r}\nexpected: {e!r}"
        )
