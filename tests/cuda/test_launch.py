"""The host path of CUDA elementwise ops: the unrolled grid-stride contiguous kernels (Note
[Unrolled elementwise kernels]) and the cached launch plans (Note [Elementwise launch plans]).
Under the simulator the grid is capped at 2 blocks of 8 threads, so a pass covers 64 elements:
the sizes below take several passes and end in a partial chunk."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch

from ._sim import requires_cuda

pytestmark = requires_cuda
_g = np.random.default_rng(1)


@pytest.mark.parametrize("n", [1, 63, 64, 65, 200])
def test_unrolled_add_covers_every_element(n):
    a = _g.standard_normal(n).astype(np.float32)
    b = _g.standard_normal(n).astype(np.float32)
    got = (numtorch.tensor(a, device="cuda") + numtorch.tensor(b, device="cuda")).cpu().numpy()
    np.testing.assert_array_equal(got, a + b)


def test_unrolled_half_number_offset_operand_and_out():
    a = _g.standard_normal(300).astype(np.float16)
    x = numtorch.tensor(a, device="cuda")
    np.testing.assert_array_equal((x[7:] * 2).cpu().numpy(), a[7:] * np.float16(2))
    out = numtorch.empty(293, dtype=numtorch.float16, device="cuda")
    numtorch.exp(x[7:], out=out)
    np.testing.assert_array_equal(out.cpu().numpy(), numtorch.tensor(a[7:]).exp().numpy())


def test_unrolled_in_place_reads_before_writes():
    a = _g.standard_normal(150)
    x = numtorch.tensor(a, device="cuda")
    x.mul_(x)
    x.add_(1.5)
    np.testing.assert_array_equal(x.cpu().numpy(), a * a + 1.5)


def test_repeated_calls_reuse_plan_and_stay_correct():
    # the same (op, dtypes, shapes) again with other values, then another shape and a view
    for k in range(3):
        a = _g.standard_normal((4, 5)).astype(np.float32)
        x = numtorch.tensor(a, device="cuda")
        np.testing.assert_array_equal((x + x).cpu().numpy(), a + a)
        np.testing.assert_array_equal((x.t() + k).cpu().numpy(), a.T + np.float32(k))
        np.testing.assert_array_equal((x[:, 1:] * x[:, :-1]).cpu().numpy(), a[:, 1:] * a[:, :-1])
