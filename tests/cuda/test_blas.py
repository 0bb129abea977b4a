"""The CUDA matrix products through cuBLAS (Note [cuBLAS GEMM]): the selection and its
fallbacks, then products against the CPU, on a real GPU through the real cuBLAS (and the Numba
kernels, selected in-process), and under the simulator through fake_cublas.c, a host-memory
stand-in with cuBLAS's C signatures and argument rules."""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess

import numpy as np
import pytest

import numtorch
from numtorch.cuda import _cublas

from ._sim import requires_cuda

rng = np.random.default_rng(3)


@pytest.fixture
def selection(monkeypatch):
    """A fresh selection under the test's environment, the process's own one restored after."""
    saved = dict(_cublas._STATE)
    _cublas.reset()
    yield monkeypatch
    _cublas.reset()
    _cublas._STATE.update(saved)


def test_forced_numba_kernels(selection):
    selection.setenv(_cublas.ENV, "numba")
    assert _cublas.blas() is None and "numba" in _cublas.why()


def test_a_missing_library_falls_back_to_the_numba_kernels(selection, tmp_path):
    selection.delenv(_cublas.ENV, raising=False)
    selection.setenv(_cublas.LIB_ENV, str(tmp_path / "libcublas_missing.so"))
    assert _cublas.blas() is None
    assert "no cuBLAS library" in _cublas.why()


def test_a_library_without_cublas_symbols_falls_back(selection):
    import ctypes.util

    libm = ctypes.util.find_library("m")
    if libm is None:
        pytest.skip("no libm to stand for a wrong library")
    selection.delenv(_cublas.ENV, raising=False)
    selection.setenv(_cublas.LIB_ENV, libm)
    assert _cublas.blas() is None
    assert "did not start" in _cublas.why() and "cublasCreate_v2" in _cublas.why()


def test_required_cublas_that_cannot_load_raises(selection, tmp_path):
    selection.setenv(_cublas.ENV, "cublas")
    selection.setenv(_cublas.LIB_ENV, str(tmp_path / "nothing.so"))
    with pytest.raises(RuntimeError, match="NUMTORCH_CUDA_GEMM=cublas, but cuBLAS cannot be used"):
        _cublas.blas()


# ---- products against the CPU ------------------------------------------------------------------
def _t(shape, dtype):
    return numtorch.from_numpy(rng.standard_normal(shape).astype(dtype))


def _cases(dtype):
    """(name, fn, CPU operands) covering each cuBLAS call and operand layout."""
    a, b = _t((5, 3), dtype), _t((3, 4), dtype)
    big = _t((6, 7), dtype)
    return [
        ("mm", lambda x, y: x @ y, (a, b)),
        ("mm a transposed", lambda x, y: x.t() @ y, (_t((3, 5), dtype), b)),
        ("mm b transposed (linear)", lambda x, y: numtorch.nn.functional.linear(x, y), (a, _t((4, 3), dtype))),
        ("mm both transposed", lambda x, y: x.t() @ y.t(), (_t((3, 5), dtype), _t((4, 3), dtype))),
        ("mm of slices (offset, ld > cols)", lambda x, y: x[1:6, 2:5] @ y[:3, 1:5], (big, big)),
        ("mm non-contiguous columns", lambda x, y: x[:, ::2] @ y, (_t((5, 6), dtype), b)),
        ("bmm", lambda x, y: numtorch.bmm(x, y), (_t((2, 5, 3), dtype), _t((2, 3, 4), dtype))),
        ("bmm b transposed", lambda x, y: x @ y.transpose(1, 2), (_t((2, 5, 3), dtype), _t((2, 4, 3), dtype))),
        ("4-d permuted batch", lambda x, y: x.permute(1, 0, 2, 3) @ y, (_t((3, 2, 5, 3), dtype), _t((2, 3, 3, 4), dtype))),
        ("broadcast batch", lambda x, y: x @ y, (_t((2, 5, 3), dtype), b)),
        ("mv", lambda x, y: x @ y, (a, _t((3,), dtype))),
        ("vector @ matrix", lambda x, y: x @ y, (_t((3,), dtype), b)),
        ("dot", lambda x, y: x @ y, (_t((3,), dtype), _t((3,), dtype))),
        ("addmm", lambda x, y, c: numtorch.addmm(c, x, y, beta=0.5, alpha=2.0), (a, b, _t((4,), dtype))),
        ("addmm k == 0", lambda x, y, c: numtorch.addmm(c, x, y, beta=2), (_t((5, 0), dtype), _t((0, 4), dtype), b[0])),
        ("baddbmm", lambda x, y: numtorch.baddbmm(numtorch.ones(2, 5, 4, dtype=x.dtype, device=x.device), x, y),
         (_t((2, 5, 3), dtype), _t((2, 3, 4), dtype))),
        ("linear with bias, 3-d input", lambda x, w, c: numtorch.nn.functional.linear(x, w, c),
         (_t((2, 5, 3), dtype), _t((4, 3), dtype), _t((4,), dtype))),
        ("addmm beta 0 ignores NaN", lambda x, y, c: numtorch.addmm(c, x, y, beta=0), (a, b, _t((5, 4), dtype) * np.nan)),
        ("baddbmm alpha, beta", lambda x, y, c: numtorch.baddbmm(c, x, y, beta=-1.5, alpha=0.25),
         (_t((2, 5, 3), dtype), _t((2, 3, 4), dtype), _t((5, 1), dtype))),
        ("k == 0", lambda x, y: x @ y, (_t((5, 0), dtype), _t((0, 4), dtype))),
        # both operands copied: the first copy's block must stay held while the second is made
        ("mm both operands copied", lambda x, y: x[:, ::2] @ y[::2, ::2], (_t((5, 6), dtype), _t((6, 8), dtype))),
        ("addmm both operands copied", lambda x, y, c: numtorch.addmm(c, x[:, ::2], y[::2, ::2]),
         (_t((5, 6), dtype), _t((6, 8), dtype), _t((4,), dtype))),
        ("bmm both operands copied", lambda x, y: x[..., ::2] @ y[:, ::2, ::2],
         (_t((2, 5, 6), dtype), _t((2, 6, 8), dtype))),
    ]  # fmt: skip


def _compare(dtype):
    tol = {np.float16: 2e-3, np.float32: 1e-5, np.float64: 1e-12}[dtype]
    for name, fn, ops in _cases(dtype):
        want = fn(*[o.float() if dtype == np.float16 else o for o in ops])
        got = fn(*[o.cuda() for o in ops])
        assert got.device.type == "cuda" and got.shape == want.shape, name
        np.testing.assert_allclose(got.cpu().double().numpy(), want.double().numpy(), rtol=tol, atol=tol, err_msg=name)


on_gpu = pytest.mark.skipif(not numtorch.cuda.is_available() or numtorch.cuda._rt.simulated(), reason="needs a GPU")


@requires_cuda
@on_gpu
def test_cublas_is_selected_on_a_gpu_with_the_library():
    _cublas.reset()
    if os.environ.get(_cublas.ENV, "").lower() == "numba":
        pytest.skip(f"{_cublas.ENV}=numba")
    try:
        _cublas._load()
    except OSError:
        pytest.skip("no cuBLAS on this machine")
    assert _cublas.blas() is not None, _cublas.why()


@requires_cuda
@on_gpu
@pytest.mark.parametrize("kernels", ["cublas", "numba"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_products_match_the_cpu_on_a_gpu(selection, kernels, dtype):
    selection.setenv(_cublas.ENV, kernels)
    if kernels == "cublas":
        try:
            _cublas._load()
        except OSError:
            pytest.skip("no cuBLAS on this machine")
    _compare(dtype)


@requires_cuda
@on_gpu
def test_tf32_products_on_a_gpu(selection):
    try:
        _cublas._load()
    except OSError:
        pytest.skip("no cuBLAS on this machine")
    a, b = _t((3, 96, 80), np.float32), _t((80, 72), np.float32)
    numtorch.backends.cuda.matmul.allow_tf32 = True
    try:
        got = [(a.cuda() @ b.cuda()).cpu(), (a[0].cuda() @ b.cuda()).cpu()]  # strided-batched and 2-d GemmEx
    finally:
        numtorch.backends.cuda.matmul.allow_tf32 = False
    for g, w in zip(got, [a @ b, a[0] @ b]):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=2e-2, atol=5e-2)  # TF32: 10-bit mantissas


@pytest.fixture(scope="module")
def fake_library(tmp_path_factory):
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler for fake_cublas.c")
    out = tmp_path_factory.mktemp("fake_cublas") / "libfakecublas.so"
    src = os.path.join(os.path.dirname(__file__), "fake_cublas.c")
    subprocess.run([cc, "-O1", "-shared", "-fPIC", "-o", str(out), src], check=True, capture_output=True)
    return str(out)


@requires_cuda
@pytest.mark.skipif(not numtorch.cuda.is_available() or not numtorch.cuda._rt.simulated(),
                    reason="the fake library computes on host memory: the simulator's")  # fmt: skip
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_cublas_path_against_a_host_reference_under_the_simulator(selection, fake_library, dtype):
    selection.delenv(_cublas.ENV, raising=False)
    selection.setenv(_cublas.LIB_ENV, fake_library)
    assert _cublas.blas() is not None, _cublas.why()
    lib = ctypes.CDLL(fake_library)
    calls = (ctypes.c_int * 4).in_dll(lib, "fake_calls")
    before = list(calls)
    _compare(dtype)
    made = [c - b for c, b in zip(calls, before)]
    # float32/float64 2-d products: Sgemm/Dgemm; float16: GemmEx; batched: GemmStridedBatchedEx
    if dtype == np.float16:
        assert made[0] == made[1] == 0 and made[2] > 0 and made[3] > 0
    else:
        assert made[0 if dtype == np.float32 else 1] > 0 and made[2] == 0 and made[3] > 0
    # a transposed view is read in place with op T: linear's weight is cuBLAS's first operand
    ops = (ctypes.c_int * 2).in_dll(lib, "fake_last_ops")
    x, w = _t((5, 3), dtype).cuda(), _t((4, 3), dtype).cuda()
    numtorch.nn.functional.linear(x, w)
    assert list(ops) == [_cublas.OP_T, _cublas.OP_N]


@requires_cuda
@pytest.mark.skipif(not numtorch.cuda.is_available() or not numtorch.cuda._rt.simulated(), reason="simulator")
def test_allow_tf32_takes_gemm_ex_with_the_tf32_compute_type(selection, fake_library):
    selection.setenv(_cublas.LIB_ENV, fake_library)
    assert _cublas.blas() is not None
    calls = (ctypes.c_int * 4).in_dll(ctypes.CDLL(fake_library), "fake_calls")
    a, b = _t((5, 3), np.float32), _t((3, 4), np.float32)
    before = list(calls)
    numtorch.backends.cuda.matmul.allow_tf32 = True
    try:
        got = a.cuda() @ b.cuda()
    finally:
        numtorch.backends.cuda.matmul.allow_tf32 = False
    assert [c - x for c, x in zip(calls, before)] == [0, 0, 1, 0]  # GemmEx
    assert ctypes.c_int.in_dll(ctypes.CDLL(fake_library), "fake_last_compute").value == 77  # ..._FAST_TF32
    np.testing.assert_allclose(got.cpu().numpy(), (a @ b).numpy(), rtol=1e-5, atol=1e-6)


@requires_cuda
@pytest.mark.skipif(not numtorch.cuda.is_available() or not numtorch.cuda._rt.simulated(), reason="simulator")
def test_cublas_errors_are_raised_by_name(selection, fake_library):
    selection.setenv(_cublas.LIB_ENV, fake_library)
    blas = _cublas.blas()
    bad = (0, _cublas.OP_N, 1, 0)  # leading dimension 1 < 4 columns: CUBLAS_STATUS_INVALID_VALUE
    with pytest.raises(RuntimeError, match=r"cublasSgemm_v2 failed with CUBLAS_STATUS_INVALID_VALUE \(7\)"):
        blas.matmul(np.dtype(np.float32), 2, 4, 3, bad, bad, (0, 8))


@requires_cuda
@pytest.mark.skipif(not numtorch.cuda.is_available() or not numtorch.cuda._rt.simulated(), reason="simulator")
def test_a_matrix_times_a_batch_is_read_with_batch_stride_zero(selection, fake_library):
    selection.setenv(_cublas.LIB_ENV, fake_library)
    assert _cublas.blas() is not None
    lib = ctypes.CDLL(fake_library)
    calls, strides = (ctypes.c_int * 4).in_dll(lib, "fake_calls"), (ctypes.c_longlong * 2).in_dll(lib, "fake_last_batch_strides")
    a, b = _t((2, 5, 3), np.float32), _t((3, 4), np.float32)
    # (a batch times a matrix folds the batch into the rows: one 2-d GEMM)
    # (an explicitly expanded 3-d operand reaches the CUDA product as a contiguous copy)
    for x, y, want in ((b.t(), a.transpose(1, 2), [15, 0]),):  # cuBLAS's A is numtorch's second operand
        before = calls[3]
        got = x.cuda() @ y.cuda()
        assert calls[3] == before + 1 and list(strides) == want
        np.testing.assert_allclose(got.cpu().numpy(), (x @ y).numpy(), rtol=1e-5, atol=1e-6)
    # broadcast over one batch dim of two: still one stride only after a copy
    got = _t((2, 3, 5, 3), np.float32)
    y = _t((3, 3, 4), np.float32)
    np.testing.assert_allclose((got.cuda() @ y.cuda()).cpu().numpy(), (got @ y).numpy(), rtol=1e-5, atol=1e-6)


@requires_cuda
@pytest.mark.skipif(not numtorch.cuda.is_available() or not numtorch.cuda._rt.simulated(), reason="simulator")
def test_handles_are_destroyed_by_close_which_runs_at_exit(selection, fake_library):
    selection.setenv(_cublas.LIB_ENV, fake_library)
    blas = _cublas.blas()
    destroyed = ctypes.c_int.in_dll(ctypes.CDLL(fake_library), "fake_destroyed")
    before = destroyed.value
    blas.close()
    assert destroyed.value == before + 1 and not blas._handles
    a, b = _t((5, 3), np.float32), _t((3, 4), np.float32)
    np.testing.assert_allclose((a.cuda() @ b.cuda()).cpu().numpy(), (a @ b).numpy(), rtol=1e-5)  # a new handle
    blas.close()
    assert destroyed.value == before + 2
