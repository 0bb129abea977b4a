"""float32 -> float16 kernels (numtorch/kernels/cpu/half.py): the fptrunc kernel's NaN pass
(Note [float16 by fptrunc]) writes NumPy's NaN bits wherever the NaNs are, and only there."""

from __future__ import annotations

import numpy as np
import pytest

from numtorch.kernels.cpu import half


def _numpy_bits(x):
    with np.errstate(all="ignore"):
        return x.astype(np.float16).view(np.uint16)


@pytest.mark.skipif(not half.fptrunc_is_an_instruction(), reason="no float32 -> half instruction")
@pytest.mark.parametrize("where", ["none", "first", "last", "all"])
def test_fptrunc_kernel_nan_pass(where):
    rng = np.random.default_rng(3)
    x = (rng.standard_normal(1000) * np.exp2(rng.integers(-26, 17, 1000))).astype(np.float32)
    payloads = np.array([0x7F800001, 0xFFC00000, 0x7FBFFFFF, 0x7F802000], np.uint32).view(
        np.float32
    )
    if where == "first":
        x[:4] = payloads
    elif where == "last":
        x[-4:] = payloads
    elif where == "all":
        x = np.resize(payloads, 1000)
    out = np.full(x.size, 0xABCD, np.uint16)
    half.f32_to_f16_fptrunc(x, out)
    np.testing.assert_array_equal(out, _numpy_bits(x))
