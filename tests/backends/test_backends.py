"""numtorch.backends flags: settable, with PyTorch's CPU-only answers."""

from __future__ import annotations

import pytest

import numtorch


def test_availability_probes():
    b = numtorch.backends
    assert b.mps.is_available() is False and b.mps.is_built() is False
    assert b.cudnn.is_available() is False and b.cudnn.version() is None
    assert b.cuda.is_built() is False
    assert b.mkldnn.is_available() is False
    assert isinstance(b.mkl.is_available(), bool)
    assert b.openmp.is_available() is True
    assert b.cpu.get_cpu_capability() in ("AVX512", "AVX2", "DEFAULT")


def test_flags_are_settable_and_read_back():
    b = numtorch.backends
    old = (b.cudnn.benchmark, b.cudnn.deterministic, b.cuda.matmul.allow_tf32)
    try:
        b.cudnn.benchmark = True
        b.cudnn.deterministic = True
        b.cuda.matmul.allow_tf32 = True
        assert (b.cudnn.benchmark, b.cudnn.deterministic, b.cuda.matmul.allow_tf32) == (True, True, True)
    finally:
        b.cudnn.benchmark, b.cudnn.deterministic, b.cuda.matmul.allow_tf32 = old


def test_unknown_matmul_flag_raises():
    with pytest.raises(AttributeError, match="Unknown attribute foo"):
        numtorch.backends.cuda.matmul.foo  # noqa: B018
    with pytest.raises(AttributeError, match="Unknown attribute foo"):
        numtorch.backends.cuda.matmul.foo = 1


def test_cudnn_flags_context_restores():
    before = numtorch.backends.cudnn.benchmark
    with numtorch.backends.cudnn.flags(enabled=True, benchmark=not before):
        assert numtorch.backends.cudnn.benchmark is (not before)
    assert numtorch.backends.cudnn.benchmark is before


def test_opt_einsum_flags():
    oe = numtorch.backends.opt_einsum
    assert oe.enabled is True
    assert isinstance(oe.is_available(), bool)


def test_more_backend_probes_and_flags():
    b = numtorch.backends
    assert not b.nnpack.is_available() and not b.kleidiai.is_available() and not b.cusparselt.is_available()
    assert b.cusparselt.version() is None and b.cusparselt.get_max_alg_id() is None
    with b.nnpack.flags(enabled=False):
        assert b.nnpack.set_flags(True) == (False,)
    assert b.nnpack.set_flags(True) == (True,)
    with b.miopen.flags(immediate=True):
        assert b.miopen.immediate is True
    assert b.miopen.immediate is False
    assert b.mha.get_fastpath_enabled()
    b.mha.set_fastpath_enabled(False)
    assert not b.mha.get_fastpath_enabled()
    b.mha.set_fastpath_enabled(True)


def test_quantized_engine_is_none_only():
    q = numtorch.backends.quantized
    assert q.engine == "none" and q.supported_engines == ["none"]
    q.engine = "none"
    with pytest.raises(RuntimeError, match="quantized engine FBGEMM is not supported"):
        q.engine = "fbgemm"
    with pytest.raises(RuntimeError, match="bogus is not a valid value for quantized engine"):
        q.engine = "bogus"
    with pytest.raises(RuntimeError, match="Assignment not supported"):
        q.supported_engines = []
