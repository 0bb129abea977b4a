"""cuBLAS through ctypes for the CUDA matrix products, when the library loads; the Numba GEMM
kernels (numtorch/kernels/cuda/linalg.py) otherwise.

# Note [cuBLAS GEMM]
# The tiled Numba kernels reach a quarter of cuBLAS's float32 rate on an H200 and have no
# tensor-core path for float16. cuBLAS ships with the CUDA toolkit wheels numba-cuda already
# depends on (nvidia-cublas; cuda-pathfinder, a cuda-bindings dependency, finds it), so this
# binds its C API with ctypes instead of adding a Python binding package. Selection, once per
# process (``blas()``): $NUMTORCH_CUDA_GEMM=numba forces the Numba kernels (tests run both on a
# GPU, and it is the way out should cuBLAS misbehave); the simulator runs Numba's kernels, as its
# "device" arrays are host memory; otherwise the library from $NUMTORCH_CUBLAS_LIBRARY, else
# cuda.pathfinder's, else the loader's, and a handle. Anything that fails on the way leaves the
# Numba kernels selected, the reason in ``why()``; $NUMTORCH_CUDA_GEMM=cublas makes it an error.
# Calls follow cublas_api.h exactly: handles and device pointers are void*, enums are C ints,
# alpha/beta point to host scalars (the default host pointer mode), and every status is checked.
# cuBLAS is column-major: the row-major product C = A @ B is computed as C^T = B^T @ A^T, so
# operands swap places, and a row-major operand is a column-major one of the transposed shape
# (op N) while a transposed view (column-major in memory) is read with op T, without a copy.
# numtorch launches every kernel on the legacy default stream (handle 0, _launch.py); cuBLAS
# runs there too, so products are ordered with the kernels around them.
"""

from __future__ import annotations

import atexit
import ctypes
import ctypes.util
import os

ENV = "NUMTORCH_CUDA_GEMM"
LIB_ENV = "NUMTORCH_CUBLAS_LIBRARY"
OP_N, OP_T = 0, 1  # cublasOperation_t
_R_32F, _R_64F, _R_16F = 0, 1, 2  # cudaDataType
_COMPUTE_32F, _COMPUTE_64F, _COMPUTE_32F_FAST_TF32 = 68, 70, 77  # cublasComputeType_t
_GEMM_DEFAULT = -1  # cublasGemmAlgo_t
INT_MAX = 2**31 - 1  # m, n, k and leading dimensions are C ints
_STATUS = {0: "CUBLAS_STATUS_SUCCESS", 1: "CUBLAS_STATUS_NOT_INITIALIZED", 3: "CUBLAS_STATUS_ALLOC_FAILED",
           7: "CUBLAS_STATUS_INVALID_VALUE", 8: "CUBLAS_STATUS_ARCH_MISMATCH", 11: "CUBLAS_STATUS_MAPPING_ERROR",
           13: "CUBLAS_STATUS_EXECUTION_FAILED", 14: "CUBLAS_STATUS_INTERNAL_ERROR",
           15: "CUBLAS_STATUS_NOT_SUPPORTED", 16: "CUBLAS_STATUS_LICENSE_ERROR"}  # fmt: skip
_STATE: dict = {}


def blas():
    """The cuBLAS binding, or None where the Numba kernels run (Note [cuBLAS GEMM])."""
    if "blas" not in _STATE:
        _STATE["blas"], _STATE["why"] = _select()
        if _STATE["blas"] is None and os.environ.get(ENV, "").lower() == "cublas":
            raise RuntimeError(f"numtorch.cuda: {ENV}=cublas, but cuBLAS cannot be used: {_STATE['why']}")
    return _STATE["blas"]


def why() -> str:
    """Why ``blas()`` chose what it chose."""
    blas()
    return _STATE["why"]


def reset() -> None:
    """Forget the selection (tests; the next product selects again)."""
    _STATE.clear()


def _select():
    from . import _runtime as rt

    if os.environ.get(ENV, "").lower() == "numba":
        return None, f"{ENV}=numba"
    if rt.simulated() and not os.environ.get(LIB_ENV):
        return None, "the CUDA simulator runs the Numba kernels"
    try:
        lib = _load()
    except OSError as e:
        return None, f"no cuBLAS library: {e}"
    try:
        return Cublas(lib), f"cuBLAS from {getattr(lib, '_name', lib)}"
    except (AttributeError, OSError, RuntimeError) as e:  # a missing symbol, a failed cublasCreate
        return None, f"cuBLAS did not start: {e}"


def _load():
    path = os.environ.get(LIB_ENV)
    if path:
        return ctypes.CDLL(path)
    try:
        from cuda.pathfinder import load_nvidia_dynamic_lib

        path = getattr(load_nvidia_dynamic_lib("cublas"), "abs_path", None)
    except Exception:  # no cuda-pathfinder, or it found nothing
        path = None
    names = [path] if path else []
    names += [ctypes.util.find_library("cublas"), "libcublas.so.13", "libcublas.so.12", "libcublas.so"]
    errors = []
    for name in names:
        if name:
            try:
                return ctypes.CDLL(name)
            except OSError as e:
                errors.append(str(e))
    raise OSError("; ".join(errors) or "cuda.pathfinder and ctypes.util.find_library found no libcublas")


def _check(status: int, fn: str) -> None:
    if status != 0:
        raise RuntimeError(f"numtorch.cuda: {fn} failed with {_STATUS.get(status, 'cublasStatus_t')} ({status})")


class Cublas:
    """One cuBLAS handle per device, and the GEMM calls numtorch makes."""

    def __init__(self, lib):
        c_int, vp, ll = ctypes.c_int, ctypes.c_void_p, ctypes.c_longlong
        self._handles: dict = {}
        self._create = self._fn(lib, "cublasCreate_v2", [ctypes.POINTER(vp)])
        self._destroy = self._fn(lib, "cublasDestroy_v2", [vp])
        self._set_stream = self._fn(lib, "cublasSetStream_v2", [vp, vp])
        head = [vp, c_int, c_int, c_int, c_int, c_int]  # handle, transa, transb, m, n, k
        self._sgemm = self._fn(lib, "cublasSgemm_v2", [*head, vp, vp, c_int, vp, c_int, vp, vp, c_int])
        self._dgemm = self._fn(lib, "cublasDgemm_v2", [*head, vp, vp, c_int, vp, c_int, vp, vp, c_int])
        self._gemm_ex = self._fn(lib, "cublasGemmEx", [*head, vp, vp, c_int, c_int, vp, c_int, c_int, vp,
                                                       vp, c_int, c_int, c_int, c_int])  # fmt: skip
        self._gemm_batched = self._fn(lib, "cublasGemmStridedBatchedEx",
                                      [*head, vp, vp, c_int, c_int, ll, vp, c_int, c_int, ll, vp,
                                       vp, c_int, c_int, ll, c_int, c_int, c_int])  # fmt: skip
        self.handle()  # a library that cannot make a handle is not selected
        # handles were never destroyed: at exit, while the CUDA context that owns them lives
        atexit.register(self.close)

    @staticmethod
    def _fn(lib, name, argtypes):
        f = getattr(lib, name)  # AttributeError: not a cuBLAS this binding knows
        f.argtypes = argtypes
        f.restype = ctypes.c_int  # cublasStatus_t
        return f

    def handle(self):
        from . import _runtime as rt

        dev = rt.current()
        h = self._handles.get(dev)
        if h is None:
            h = ctypes.c_void_p()
            _check(self._create(ctypes.byref(h)), "cublasCreate_v2")
            _check(self._set_stream(h, None), "cublasSetStream_v2")  # the legacy default stream
            self._handles[dev] = h
        return h

    def close(self) -> None:
        """Destroy every handle this binding made (at exit; a later product makes new ones)."""
        handles, self._handles = self._handles, {}
        for h in handles.values():
            try:
                self._destroy(h)
            except Exception:  # at exit: nothing left to report to
                pass

    def matmul(self, npdt, m, n, k, a, b, c, batch=1, alpha=1.0, beta=0.0, tf32=False) -> None:
        """C = alpha * A @ B + beta * C, row-major, on ``batch`` matrices. ``a``/``b``: (device
        pointer, op, leading dimension, batch stride in elements) of the row-major m x k and
        k x n operands (op T: the operand is stored column-major); ``c``: (pointer, batch
        stride) of the contiguous m x n result. ``tf32``: float32 on TF32 tensor cores
        (PyTorch's ``allow_tf32``/``set_float32_matmul_precision("high")``)."""
        (pa, opa, lda, sa), (pb, opb, ldb, sb), (pc, sc) = a, b, c
        kind = npdt.char
        wide = kind == "d"
        scalar = ctypes.c_double if wide else ctypes.c_float  # the compute type's scalars
        al, be = ctypes.byref(scalar(alpha)), ctypes.byref(scalar(beta))
        h = self.handle()
        # C^T (n x m, column-major, ldc n) = op(B)^T @ op(A)^T: B's pointer first
        head = (h, opb, opa, n, m, k, al)
        tf32 = tf32 and kind == "f"
        if batch == 1 and kind in "fd" and not tf32:
            fn, name = (self._dgemm, "cublasDgemm_v2") if wide else (self._sgemm, "cublasSgemm_v2")
            _check(fn(*head, pb, ldb, pa, lda, be, pc, n), name)
            return
        dt = {"f": _R_32F, "d": _R_64F, "e": _R_16F}[kind]
        # float16: float accumulation, as PyTorch's
        ct = _COMPUTE_64F if wide else _COMPUTE_32F_FAST_TF32 if tf32 else _COMPUTE_32F
        if batch == 1:
            _check(self._gemm_ex(*head, pb, dt, ldb, pa, dt, lda, be, pc, dt, n, ct, _GEMM_DEFAULT), "cublasGemmEx")
            return
        _check(self._gemm_batched(*head, pb, dt, ldb, sb, pa, dt, lda, sa, be, pc, dt, n, sc, batch, ct,
                                  _GEMM_DEFAULT), "cublasGemmStridedBatchedEx")  # fmt: skip
