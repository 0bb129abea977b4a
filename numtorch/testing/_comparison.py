"""numtorch.testing.assert_close, mirroring torch.testing.assert_close (messages included)."""

from __future__ import annotations

import collections.abc as cabc
import math

import numpy as np

_TOL = {"float16": (1e-3, 1e-5), "float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7),
        "complex64": (1.3e-6, 1e-5), "complex128": (1e-7, 1e-7)}  # fmt: skip
_NUMBER_TOL = {float: (1e-7, 1e-7), complex: (1e-7, 1e-7)}


def _fail(msg, default: str, where: str):
    text = default + (f"\n\nThe failure occurred for item {where}" if where else "")
    if callable(msg):
        text = msg(text)
    elif msg is not None:
        text = msg
    raise AssertionError(text)


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False, msg=None):  # fmt: skip
    """Raise AssertionError unless ``actual`` and ``expected`` match in shape, dtype and values.

    Tensors, Python numbers and (nested) sequences and mappings of them are compared as
    ``torch.testing.assert_close`` does, with its default tolerances per dtype.

    >>> numtorch.testing.assert_close(numtorch.tensor([1.0]), numtorch.tensor([1.0 + 1e-9]))
    """
    if (rtol is None) ^ (atol is None):
        raise ValueError(
            f"Both 'rtol' and 'atol' must be either specified or omitted, but got no {'rtol' if rtol is None else 'atol'}."
        )
    opts = dict(allow_subclasses=allow_subclasses, rtol=rtol, atol=atol, equal_nan=equal_nan,
                check_device=check_device, check_dtype=check_dtype, check_layout=check_layout,
                check_stride=check_stride, msg=msg)  # fmt: skip
    _compare(actual, expected, opts, "")


def _compare(actual, expected, opts, where: str) -> None:
    from .._tensor import Tensor

    if isinstance(actual, cabc.Mapping) and isinstance(expected, cabc.Mapping):
        if set(actual) != set(expected):
            _fail(opts["msg"], f"The keys of the mappings do not match:\n{sorted(map(repr, actual))} != {sorted(map(repr, expected))}", where)  # fmt: skip
        for k in actual:
            _compare(actual[k], expected[k], opts, f"{where}[{k!r}]")
        return
    seq = (cabc.Sequence,)
    if isinstance(actual, seq) and isinstance(expected, seq) and not isinstance(actual, str):
        if len(actual) != len(expected):
            _fail(opts["msg"], f"The length of the sequences mismatch: {len(actual)} != {len(expected)}", where)
        for i, (a, e) in enumerate(zip(actual, expected)):
            _compare(a, e, opts, f"{where}[{i}]")
        return
    if isinstance(actual, Tensor) and isinstance(expected, Tensor):
        if not opts["allow_subclasses"] and type(actual) is not type(expected):
            raise TypeError(f"No comparison pair was able to handle inputs of type {type(actual)} and {type(expected)}.")
        return _compare_tensors(actual, expected, opts, where)
    number = (int, float, complex, bool)
    if isinstance(actual, number) and isinstance(expected, number):
        return _compare_numbers(actual, expected, opts, where)
    raise TypeError(f"No comparison pair was able to handle inputs of type {type(actual)} and {type(expected)}.")


def _compare_numbers(a, e, opts, where: str) -> None:
    if opts["check_dtype"] and type(a) is not type(e):
        _fail(opts["msg"], f"The (d)types do not match: {type(a)} != {type(e)}.", where)
    rtol, atol = (opts["rtol"], opts["atol"]) if opts["rtol"] is not None else _NUMBER_TOL.get(type(a), (0.0, 0.0))
    if a == e or (opts["equal_nan"] and _isnan(a) and _isnan(e)):
        return
    if not (_isnan(a) or _isnan(e)) and abs(a - e) <= atol + rtol * abs(e):
        return
    kind = "close" if isinstance(a, (float, complex)) or isinstance(e, (float, complex)) else "equal"
    diff = abs(a - e)
    rel = diff / abs(e) if e != 0 else math.inf
    _fail(opts["msg"], f"Scalars are not {kind}!\n\nExpected {e} but got {a}.\nAbsolute difference: {diff}"
          f"{f' (up to {atol} allowed)' if kind == 'close' else ''}\nRelative difference: {rel}"
          f"{f' (up to {rtol} allowed)' if kind == 'close' else ''}", where)  # fmt: skip


def _isnan(x) -> bool:
    return isinstance(x, (float, complex)) and x != x


def _attr_check(name: str, a, e, opts, where: str) -> None:
    if a != e:
        _fail(opts["msg"], f"The values for attribute '{name}' do not match: {a} != {e}.", where)


def _compare_tensors(actual, expected, opts, where: str) -> None:
    _attr_check("shape", actual.shape, expected.shape, opts, where)
    if opts["check_device"]:
        _attr_check("device", actual.device, expected.device, opts, where)
    if opts["check_dtype"]:
        _attr_check("dtype", actual.dtype, expected.dtype, opts, where)
    if opts["check_layout"]:
        _attr_check("layout", getattr(actual, "layout", None), getattr(expected, "layout", None), opts, where)
    if opts["check_stride"]:
        _attr_check("stride()", actual.stride(), expected.stride(), opts, where)
    a = actual.detach()._host() if hasattr(actual, "detach") else actual._host()
    e = expected.detach()._host() if hasattr(expected, "detach") else expected._host()
    if a.dtype != e.dtype:
        common = np.promote_types(a.dtype, e.dtype)
        a, e = a.astype(common), e.astype(common)
    rtol, atol = opts["rtol"], opts["atol"]
    if rtol is None:
        t1 = _TOL.get(actual.dtype.name, (0.0, 0.0))
        t2 = _TOL.get(expected.dtype.name, (0.0, 0.0))
        rtol, atol = max(t1[0], t2[0]), max(t1[1], t2[1])
    inexact = a.dtype.kind in "fc"
    if inexact:
        ok = np.isclose(a, e, rtol=rtol, atol=atol, equal_nan=opts["equal_nan"])
    else:
        ok = a == e
    if np.all(ok):
        return
    _fail(opts["msg"], _mismatch_text(a, e, ok, rtol, atol, inexact and (rtol or atol)), where)


def _mismatch_text(a, e, ok, rtol, atol, close) -> str:
    bad = int(ok.size - np.count_nonzero(ok))
    wide = np.complex128 if a.dtype.kind == "c" else np.float64
    diff = np.abs(a.astype(wide) - e.astype(wide)).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = diff / np.abs(e.astype(wide)).astype(np.float64)
    masked_d = np.where(ok, 0, np.nan_to_num(diff, nan=np.inf)) if diff.ndim else diff
    i_abs = np.unravel_index(int(np.argmax(masked_d)), a.shape) if a.ndim else ()
    masked_r = np.where(ok, 0, np.nan_to_num(rel, nan=np.inf)) if rel.ndim else rel
    i_rel = np.unravel_index(int(np.argmax(masked_r)), a.shape) if a.ndim else ()
    d, r = diff[i_abs], rel[i_rel]
    if a.dtype.kind not in "fc":
        d = int(d) if math.isfinite(d) else d
    kind = "close" if close else "equal"
    idx_a = f" at index {tuple(int(i) for i in i_abs)}" if a.ndim else ""
    idx_r = f" at index {tuple(int(i) for i in i_rel)}" if a.ndim else ""
    tail_a = f" (up to {atol} allowed)" if close else ""
    tail_r = f" (up to {rtol} allowed)" if close else ""
    return (
        f"Tensor-likes are not {kind}!\n\nMismatched elements: {bad} / {a.size} ({100 * bad / a.size:.1f}%)\n"
        f"Greatest absolute difference: {d}{idx_a}{tail_a}\nGreatest relative difference: {r}{idx_r}{tail_r}"
    )


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """Deprecated alias kept for old test code: ``assert_close`` without dtype checks."""
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_dtype=False, msg=msg or None)
