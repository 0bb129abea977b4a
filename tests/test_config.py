"""numtorch._config: threads, default device, determinism and matmul-precision switches."""

from __future__ import annotations

import math

import pytest

import numtorch


def test_constants_and_layout():
    assert (numtorch.pi, numtorch.e) == (math.pi, math.e)
    assert numtorch.inf == math.inf and math.isnan(numtorch.nan)
    assert repr(numtorch.strided) == "torch.strided"
    assert isinstance(numtorch.strided, numtorch.layout)
    assert numtorch.ones(2).layout is numtorch.strided
    assert numtorch.ones(2).is_sparse is False


def test_num_threads_drive_numba():
    import numba

    before = numtorch.get_num_threads()
    try:
        numtorch.set_num_threads(1)
        assert numtorch.get_num_threads() == 1 == numba.get_num_threads()
    finally:
        numtorch.set_num_threads(before)
    with pytest.raises(RuntimeError, match="Number of threads must be positive"):
        numtorch.set_num_threads(0)
    with pytest.raises(TypeError, match="must be int"):
        numtorch.set_num_threads(1.5)


def test_default_device():
    numtorch.set_default_device("cpu")
    assert numtorch.get_default_device() == numtorch.device("cpu")
    numtorch.set_default_device(None)
    with pytest.raises(NotImplementedError, match="supports 'cpu' and 'cuda'"):
        numtorch.set_default_device("meta")


def test_deterministic_flags():
    try:
        numtorch.use_deterministic_algorithms(True, warn_only=True)
        assert numtorch.are_deterministic_algorithms_enabled()
        assert numtorch.is_deterministic_algorithms_warn_only_enabled()
        assert numtorch.get_deterministic_debug_mode() == 1
        numtorch.set_deterministic_debug_mode("error")
        assert numtorch.get_deterministic_debug_mode() == 2
    finally:
        numtorch.use_deterministic_algorithms(False)
    with pytest.raises(RuntimeError, match="invalid value of debug_mode"):
        numtorch.set_deterministic_debug_mode("loud")


def test_matmul_precision():
    try:
        numtorch.set_float32_matmul_precision("medium")
        assert numtorch.get_float32_matmul_precision() == "medium"
    finally:
        numtorch.set_float32_matmul_precision("highest")
    with pytest.raises(RuntimeError, match="Invalid precision"):
        numtorch.set_float32_matmul_precision("low")


def test_accelerator_answers_none():
    acc = numtorch.accelerator
    assert acc.is_available() is False and acc.current_accelerator() is None and acc.device_count() == 0
    with pytest.raises(RuntimeError, match="Cannot access accelerator device when none is available."):
        acc.synchronize()
    with acc.device_index(None):
        pass


def test_py_typed_marker_ships():
    import pathlib

    assert (pathlib.Path(numtorch.__file__).parent / "py.typed").exists()
