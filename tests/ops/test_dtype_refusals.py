"""Every op refuses a dtype it has no kernel for with PyTorch's kind of error, never Numba's."""

from __future__ import annotations

import numpy as np
import pytest

from numtorch.testing._opinfo import op_db

from ._harness import to_nt

_INFOS = [i for i in op_db if "float32" in i.dtypes]


def _recast(x, np_dtype):
    if isinstance(x, np.ndarray) and x.dtype.kind == "f":
        return x.astype(np_dtype)
    if isinstance(x, (list, tuple)):
        return type(x)(_recast(v, np_dtype) for v in x)
    return x


@pytest.mark.parametrize("np_dtype", [np.complex64, np.bool_], ids=["complex64", "bool"])
@pytest.mark.parametrize("info", _INFOS, ids=lambda i: i.name)
def test_unsupported_dtypes_never_leak_numba_errors(info, np_dtype, rng):
    fn = info.resolve()
    samples = list(info.sample_inputs("float32", rng))[:2]
    for s in samples:
        args = [_recast(a, np_dtype) for a in s.args]
        try:
            fn(to_nt(_recast(s.input, np_dtype)), *to_nt(args), **to_nt(s.kwargs))
        except Exception as e:  # noqa: BLE001 - the test is about which kind of error escapes
            mod = type(e).__module__ or ""
            assert not mod.startswith("numba"), f"{info.name}: Numba error reached the user: {e}"
            assert "nopython" not in str(e), f"{info.name}: Numba message reached the user: {e}"
