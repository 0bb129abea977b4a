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


def test_planned_in_place_on_views_and_bumps_version():
    a = _g.standard_normal((6, 5))
    for _ in range(2):  # the second round runs the stored plans
        x = numtorch.tensor(a, device="cuda")
        y = numtorch.tensor(a[:-1].T.copy(), device="cuda").t()  # a transposed source
        v0 = x._version
        x[1:].add_(y, alpha=2.0)  # destination with an offset
        x.t().mul_(0.5)
        x[:, 0].add_(1)
        assert x._version == v0 + 3
        ref = a.copy()
        ref[1:] = ref[1:] + 2.0 * a[:-1]
        ref *= 0.5
        ref[:, 0] += 1
        np.testing.assert_allclose(x.cpu().numpy(), ref, rtol=1e-15)
    from numtorch.cuda import _pointwise as P

    assert any(k[2] and v for k, v in P._PLANS.items())  # in-place plans were made and used


def test_planned_call_still_checks_values_and_types():
    x = numtorch.ones(3, dtype=numtorch.int64, device="cuda")
    for _ in range(2):
        with pytest.raises(RuntimeError, match="Overflow when unpacking long"):
            x + 2**63
        with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
            x.add_(0.5)
        np.testing.assert_array_equal((x * 3).cpu().numpy(), [3, 3, 3])
    f = numtorch.ones(3, device="cuda")
    numtorch.set_default_dtype(numtorch.float64)
    try:
        assert numtorch.exp(x).dtype == numtorch.float64  # the default dtype is part of the key
    finally:
        numtorch.set_default_dtype(numtorch.float32)
    assert numtorch.exp(x).dtype == numtorch.float32
    assert (f + 1).dtype == numtorch.float32


def test_direct_launch_words_with_a_given_key(monkeypatch):
    # the real-GPU path of _launch.run (Note [Direct kernel launches]) with cuda.core's launch
    # replaced by a recorder: array words cached per array, scalars converted, configs reused
    import ctypes

    from numtorch.cuda import _launch as L

    class Dev:  # stands for numba-cuda's DeviceNDArray
        def __init__(self, n, ptr):
            self.size, self.dtype, self.shape, self.strides, self.ndim = n, np.dtype(np.float32), (n,), (4,), 1
            self.__cuda_array_interface__ = {"data": (ptr, False)}

    calls = []
    monkeypatch.setattr(L, "_DIRECT", [lambda *a: calls.append(a), lambda **kw: ("cfg", kw), "stream", Dev])
    monkeypatch.setattr(L, "_PLANS", {})
    monkeypatch.setattr(L, "_ARRAY_WORDS", {})
    monkeypatch.setattr(L, "_PTRS", {})
    kernel, a, out = object(), Dev(10, 4096), Dev(10, 8192)
    args = (10, a, 3, out, 0, np.float32(0.5))
    key = L.arg_key(kernel, args)
    f32 = (np.dtype(np.float32), 1)
    assert key == (kernel, int, f32, int, f32, int, np.float32)
    L._PLANS[key] = ("cukernel", (ctypes.c_int64, None, ctypes.c_int64, None, ctypes.c_int64, ctypes.c_float))
    for _ in range(2):
        L.run(kernel, 4, 8, args, key)
        L.run(kernel, 4, 8, args)  # the key computed by run itself is the same
    assert len(calls) == 4
    stream, cfg, cuk, *words = calls[-1]
    assert (stream, cuk, cfg[1]) == ("stream", "cukernel", {"grid": 4, "block": 8, "shmem_size": 0})
    assert words[0].value == 10 and words[1:8] == [0, 0, 10, 4, 4096, 10, 4]
    assert words[8].value == 3 and words[9:16] == [0, 0, 10, 4, 8192, 10, 4]
    assert words[16].value == 0 and words[17].value == 0.5
    L.forget_arrays()
    assert not L._ARRAY_WORDS


def test_heavy_expressions_keep_one_element_per_pass():
    from numtorch.kernels.cuda._codegen import UNROLL, unroll_of

    assert unroll_of("self + alpha * other") == unroll_of("math.exp(self)") == unroll_of("sigmoid(self)") == UNROLL
    assert unroll_of("digamma(self)") == unroll_of("np.divide(1, 1 + cexp99(-self))") == 1
    assert unroll_of("self", helpers=("def f(x):\n    return x",)) == 1  # a library op's own functions
    a = np.abs(_g.standard_normal(200)) + 0.5
    for _ in range(2):
        got = numtorch.lgamma(numtorch.tensor(a, device="cuda")).cpu().numpy()
        np.testing.assert_allclose(got, numtorch.lgamma(numtorch.tensor(a)).numpy(), rtol=1e-14)
