"""CUDA matrix products whose operands are read through their own metadata (no broadcast): unit
dims with any stride, sliced, transposed and batch-of-one operands, against the CPU, through the
Numba kernels and through cuBLAS's argument rules (fake_cublas.c under the simulator)."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch.cuda import _cublas

from ._sim import requires_cuda
from .test_blas import fake_library, selection  # noqa: F401 (fixtures)

pytestmark = requires_cuda
rng = np.random.default_rng(5)


def _cases(dev):
    g = np.random.default_rng(9)
    big = numtorch.tensor(g.standard_normal((3, 6, 5)), device=dev)
    return [
        (big[0, :, :1], big[1, :1, :]),  # (6, 1) @ (1, 5): unit dims with the parent's strides
        (big[:1], big[1:2].transpose(1, 2)),  # batches of one, a transposed operand
        (big[:, 1:4, 2:], big[:, :3, :2]),  # sliced (offset, row stride past the width)
        (big.transpose(1, 2)[:, :, :1], big[:, :1, :4]),  # column of a transpose
        (big[2, :1, :].unsqueeze(0), big[:1, :5, :2]),
        (big[0], big[1, :5, :]),
    ]


def _check():
    for (a, b), (ca, cb) in zip(_cases("cuda"), _cases("cpu"), strict=True):
        for f in (numtorch.matmul, lambda x, y: numtorch.baddbmm(numtorch.zeros(1, dtype=x.dtype, device=x.device), x, y)
                  if x.dim() == 3 else numtorch.addmm(numtorch.zeros(1, dtype=x.dtype, device=x.device), x, y)):  # fmt: skip
            np.testing.assert_allclose(f(a, b).cpu().numpy(), f(ca, cb).numpy(), rtol=1e-12, atol=1e-12)


def test_numba_kernels(selection):  # noqa: F811
    selection.setenv(_cublas.ENV, "numba")
    assert _cublas.blas() is None
    _check()


@pytest.mark.skipif(not numtorch.cuda.is_available() or not numtorch.cuda._rt.simulated(), reason="simulator")
def test_cublas_argument_rules(selection, fake_library):  # noqa: F811
    selection.delenv(_cublas.ENV, raising=False)
    selection.setenv(_cublas.LIB_ENV, fake_library)
    assert _cublas.blas() is not None, _cublas.why()
    _check()
