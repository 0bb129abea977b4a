"""numtorch.utils' small helpers: swap_tensors, set_module, ThroughputBenchmark, deterministic,
backcompat, cpp_backtrace and the PrivateUse1 registration entry points."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch import utils


def test_swap_tensors_swaps_content_keeps_identity():
    a = numtorch.zeros(2)
    b = numtorch.ones(3, dtype=numtorch.float64, requires_grad=True)
    b.tag = "b"
    ida, idb = id(a), id(b)
    utils.swap_tensors(a, b)
    assert id(a) == ida and id(b) == idb
    assert a.shape == (3,) and a.dtype == numtorch.float64 and a.requires_grad and a.tag == "b"
    assert b.shape == (2,) and not b.requires_grad and not hasattr(b, "tag")
    np.testing.assert_array_equal(a.detach().numpy(), [1.0, 1.0, 1.0])


def test_swap_tensors_poisons_a_leaf_already_in_a_graph():
    w = numtorch.ones(2, requires_grad=True)
    y = (w * 2).sum()
    utils.swap_tensors(w, numtorch.zeros(2, requires_grad=True))
    with pytest.raises(RuntimeError, match="poisoned by swap_tensors"):
        y.backward()


def test_swap_tensors_refuses_weakrefs_and_different_slots():
    import weakref

    class Sub(numtorch.Tensor):
        __slots__ = ("extra",)

    a, b = numtorch.zeros(1), numtorch.zeros(1)
    r = weakref.ref(a)  # noqa: F841
    with pytest.raises(RuntimeError, match="Cannot swap t1 because it has weakref associated with it"):
        utils.swap_tensors(a, b)
    with pytest.raises(RuntimeError, match="different slots"):
        utils.swap_tensors(b, Sub(numtorch.zeros(1)))


def test_set_module():
    def f():
        pass

    utils.set_module(f, "numtorch.nn")
    assert f.__module__ == "numtorch.nn"
    with pytest.raises(TypeError, match="The mod argument should be a string"):
        utils.set_module(f, 3)


def test_throughput_benchmark_runs_stored_inputs_from_threads():
    calls = []

    def model(x, scale=1):
        calls.append(scale)
        return x * scale

    bench = utils.ThroughputBenchmark(model)
    with pytest.raises(RuntimeError, match="forget to call add_input"):
        bench.benchmark()
    bench.add_input(numtorch.ones(2), scale=3)
    assert bench.run_once(numtorch.ones(1), scale=2).item() == 2.0
    stats = bench.benchmark(num_calling_threads=2, num_warmup_iters=2, num_iters=10)
    assert stats.num_iters == 10 and len(calls) == 1 + 2 * 2 + 10
    assert stats.latency_avg_ms > 0 and stats.iters_per_second > 0
    assert "Total number of iterations: 10" in str(stats)


def test_deterministic_fill_uninitialized_memory():
    det = utils.deterministic
    assert det.fill_uninitialized_memory is True
    try:
        numtorch.use_deterministic_algorithms(True)
        assert np.isnan(numtorch.empty(4).numpy()).all()
        assert (numtorch.empty(2, dtype=numtorch.int64).numpy() == np.iinfo(np.int64).max).all()
        det.fill_uninitialized_memory = False
        assert det.fill_uninitialized_memory is False
        with pytest.raises(TypeError, match="expected a bool"):
            det.fill_uninitialized_memory = 1
    finally:
        det.fill_uninitialized_memory = True
        numtorch.use_deterministic_algorithms(False)
    from numtorch._factory_utils import FILL_UNINITIALIZED

    assert FILL_UNINITIALIZED == [False]


def test_backcompat_switches_and_cpp_backtrace():
    w = utils.backcompat.broadcast_warning
    assert w.enabled is False
    w.enabled = True
    assert w.get_enabled() is True
    w.enabled = False
    assert utils.backcompat.keepdim_warning.enabled is False
    assert utils.get_cpp_backtrace() == ""


def test_privateuse1_registration_says_what_to_use_instead():
    with pytest.raises(NotImplementedError, match="numtorch has no PrivateUse1 dispatch key.*Tensor subclass"):
        utils.rename_privateuse1_backend("foo")
    with pytest.raises(TypeError, match="must be str"):
        utils.rename_privateuse1_backend(3)
    with pytest.raises(NotImplementedError, match="generate_methods_for_privateuse1_backend"):
        utils.generate_methods_for_privateuse1_backend()
