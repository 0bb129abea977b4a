"""numtorch.backends: the backend flags scripts set on any machine.

numtorch runs on NumPy's BLAS and Numba kernels; the CUDA, cuDNN and MPS flags are accepted and
kept (so ``torch.backends.cudnn.benchmark = True`` works unchanged) and the ``is_available()``
probes answer as PyTorch's CPU-only build does.

>>> numtorch.backends.mps.is_available(), numtorch.backends.cudnn.is_available()
(False, False)
"""

from __future__ import annotations

from . import (cpu, cuda, cudnn, cusparselt, kleidiai, miopen, mha, mkl, mkldnn, mps, nnpack, openmp,  # noqa: F401
               opt_einsum, quantized)  # fmt: skip

__all__ = ["cpu", "cuda", "cudnn", "cusparselt", "kleidiai", "miopen", "mha", "mkl", "mkldnn", "mps", "nnpack",
           "openmp", "opt_einsum", "quantized"]  # fmt: skip
