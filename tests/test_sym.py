"""numtorch/_sym.py, numtorch/_globals.py and numtorch/cpu.py: symbolic-shape helpers on plain
numbers, build flags, deprecated setters, eager control flow."""

from __future__ import annotations

import pytest

import numtorch


def test_sym_helpers_on_plain_numbers():
    assert numtorch.sym_int(-2.7) == -2 and numtorch.sym_float(3) == 3.0
    assert numtorch.sym_max(1, 2) == 2 and type(numtorch.sym_max(1, 0.5)) is float
    assert numtorch.sym_min(1, 2.0) == 1.0 and numtorch.sym_not(False) is True
    assert numtorch.sym_sqrt(9) == 3.0 and numtorch.sym_ite(True, 1, 2) == 1
    assert numtorch.sym_sum([1, 2, 3]) == numtorch.sym_sum(1, 2, 3) == 6
    assert numtorch.sym_fresh_size(4) == 4 and not isinstance(3, numtorch.SymInt)
    with pytest.raises(AssertionError, match="type mismatch"):
        numtorch.sym_ite(True, 1, 2.0)
    with pytest.raises(AssertionError):
        numtorch.sym_max("a", 1)
    numtorch.sym_constrain_range(3, min=0, max=5)
    with pytest.raises(RuntimeError, match=r"Invalid value range for 3 between \[0, 2\]."):
        numtorch.sym_constrain_range(3, min=0, max=2)
    with pytest.raises(RuntimeError, match=r"Invalid value range for -1 between \[0, 9223372036854775807\]."):
        numtorch.sym_constrain_range_for_size(-1)


def test_flags_and_deprecated_setters():
    assert numtorch.has_lapack and numtorch.has_spectral and not numtorch.has_mkl
    assert numtorch.set_flush_denormal(False) is True and numtorch.set_flush_denormal(True) is False
    assert numtorch.get_device_module() is numtorch.cpu and numtorch.get_device_module("cuda") is numtorch.cuda
    with pytest.raises(RuntimeError, match="Invalid value of device '3'"):
        numtorch.get_device_module(3)
    with pytest.warns(UserWarning, match="set_default_tensor_type\\(\\) is deprecated"):
        numtorch.set_default_tensor_type(numtorch.DoubleTensor)
    try:
        assert numtorch.tensor([1.0]).dtype is numtorch.float64
    finally:
        numtorch.set_default_dtype(numtorch.float32)
    with pytest.raises(TypeError, match="only floating-point types are supported as the default type"):
        numtorch.set_default_tensor_type(numtorch.LongTensor)
    with pytest.warns(DeprecationWarning, match="get_autocast_cpu_dtype"):
        assert numtorch.get_autocast_cpu_dtype() is numtorch.amp.autocast_mode.get_autocast_dtype("cpu")
    with pytest.warns(DeprecationWarning):
        assert numtorch.is_autocast_cpu_enabled() is False


def test_cond_and_while_loop_run_eagerly():
    x = numtorch.ones(2)
    assert numtorch.cond(numtorch.tensor(False), lambda v: v + 1, lambda v: v - 1, (x,)).tolist() == [0.0, 0.0]
    with pytest.raises(RuntimeError, match="Expected pred to be bool or tensor, but got a."):
        numtorch.cond("a", lambda v: v, lambda v: v, (x,))
    i, y = numtorch.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * 2), (numtorch.tensor(0), x))
    assert i.item() == 3 and y.tolist() == [8.0, 8.0]


def test_cpu_device_module():
    c = numtorch.cpu
    assert c.is_available() and c.device_count() == 1 and c.current_device() == "cpu"
    assert c.current_stream().query() and c.Event().query()
    with c.stream(c.current_stream()):
        c.synchronize()
