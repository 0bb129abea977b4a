"""bfloat16 on CUDA is refused by name (its kernels have no bfloat16 variant), never a crash
deep in a kernel."""

from __future__ import annotations

import pytest

import numtorch

from ._sim import requires_cuda

pytestmark = requires_cuda


@pytest.mark.parametrize("make", [
    lambda: numtorch.ones(3, dtype=numtorch.bfloat16, device="cuda"),
    lambda: numtorch.ones(3, dtype=numtorch.bfloat16).cuda(),
    lambda: numtorch.ones(3, device="cuda").bfloat16(),
    lambda: numtorch.empty(2, device="cuda").to(numtorch.bfloat16),
])  # fmt: skip
def test_bfloat16_on_cuda_is_refused_by_name(make):
    assert numtorch.cuda.is_bf16_supported() is False
    with pytest.raises(NotImplementedError, match="bfloat16 tensors are not supported on CUDA"):
        make()
