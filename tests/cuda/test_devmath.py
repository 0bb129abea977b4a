"""The device twins of NumPy calls (numtorch/kernels/cuda/devmath.py) against the CPU kernels,
run by Numba on the CPU: the simulator keeps np.gcd/np.lcm (Note [NumPy calls on the device]),
so without this only a real GPU would exercise them."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch.kernels.cuda import devmath


@pytest.mark.parametrize("dtype", [np.int64, np.int8])
def test_gcd_lcm_match_the_cpu_kernels_including_extremes(dtype):
    info = np.iinfo(dtype)
    vals = np.array([0, 1, -1, 2, -6, 12, 18, -18, 7, 100, info.max, info.min, info.min + 1], dtype)
    a, b = (v.reshape(-1) for v in np.meshgrid(vals, vals))
    ta, tb = numtorch.from_numpy(a), numtorch.from_numpy(b)
    for helper, op in ((devmath.cuda_gcd, numtorch.gcd), (devmath.cuda_lcm, numtorch.lcm)):
        # the kernel's store casts to the output dtype, wrapping as this astype does
        got = np.array([int(helper(x, y)) for x, y in zip(a, b)]).astype(dtype)
        np.testing.assert_array_equal(got, op(ta, tb).numpy(), err_msg=helper.__name__)



def test_type_generic_device_math_matches_the_cpu_ops_for_complex_and_real():
    # Note [Complex device math]: each stub's overload picks math.* for a real argument and the
    # CPU's complex algorithm for a complex one; the bodies run here as Python (cheap, no
    # compile), the real compile is checked to PTX (/work/notes/ptxcheck.py)
    from numba import types

    z = np.array([0.5 - 2j, -3 + 0.25j, 1e-3 + 1e-3j, 0j, -0.0 - 1j, 40 + 3j], np.complex128)
    t, r = numtorch.from_numpy(z), numtorch.from_numpy(np.abs(z.real))
    for stub, op in ((devmath.cuda_exp, numtorch.exp), (devmath.cuda_sqrt, numtorch.sqrt),
                     (devmath.cuda_expm1, numtorch.expm1), (devmath.cuda_log1p, numtorch.log1p)):  # fmt: skip
        typer = devmath._OVERLOADS[stub]
        cplx, real = typer(types.complex64), typer(types.float32)
        for impl in (cplx, real):  # a plain function or an @inline helper's Python body
            assert impl.__code__.co_varnames[:1] == ("x",)  # Numba requires the stub's parameter name
        got = [complex(getattr(cplx, "py_func", cplx)(v)) for v in z]
        np.testing.assert_allclose(got, op(t).numpy(), rtol=1e-14, err_msg=op.__name__)
        np.testing.assert_allclose([real(v) for v in r.numpy()], op(r).numpy(), rtol=1e-14, err_msg=op.__name__)
