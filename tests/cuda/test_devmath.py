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
