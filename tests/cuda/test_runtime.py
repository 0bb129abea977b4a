"""numtorch.cuda's runtime API on a CUDA device (or Numba's CUDA simulator)."""

from __future__ import annotations

import gc

import pytest

import numtorch

from ._sim import requires_cuda

pytestmark = requires_cuda


def test_device_queries():
    assert numtorch.cuda.is_available() is True
    assert numtorch.cuda.device_count() >= 1
    assert numtorch.cuda.current_device() == 0
    assert numtorch.cuda.is_initialized()
    name = numtorch.cuda.get_device_name(0)
    assert isinstance(name, str) and name
    major, minor = numtorch.cuda.get_device_capability()
    props = numtorch.cuda.get_device_properties(0)
    assert (props.major, props.minor) == (major, minor) and props.name == name
    assert props.total_memory > 0 and props.multi_processor_count >= 1
    assert numtorch.cuda.is_bf16_supported() is False


def test_set_device_and_the_device_context():
    numtorch.cuda.set_device(0)
    numtorch.cuda.set_device("cuda:0")
    with numtorch.cuda.device(0):
        assert numtorch.cuda.current_device() == 0
    with numtorch.cuda.device(None):  # a no-op, as PyTorch's
        pass
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        numtorch.cuda.set_device(numtorch.cuda.device_count())
    with numtorch.cuda.device_of(numtorch.ones(1, device="cuda")):
        assert numtorch.cuda.current_device() == 0


def test_synchronize_and_seeding():
    numtorch.cuda.synchronize()
    numtorch.cuda.manual_seed(3)
    assert numtorch.cuda.initial_seed() == 3
    numtorch.cuda.manual_seed_all(4)
    assert numtorch.cuda.initial_seed() == 4


def test_event_elapsed_time_in_milliseconds():
    start = numtorch.cuda.Event(enable_timing=True)
    end = numtorch.cuda.Event(enable_timing=True)
    start.record()
    numtorch.ones(4, device="cuda").add(1)
    end.record()
    end.synchronize()
    ms = start.elapsed_time(end)
    assert isinstance(ms, float) and ms >= 0.0


def test_event_errors_are_pytorchs():
    a, b = numtorch.cuda.Event(), numtorch.cuda.Event()
    a.record()
    b.record()
    with pytest.raises(RuntimeError, match="enable_timing=True"):
        a.elapsed_time(b)
    c, d = numtorch.cuda.Event(enable_timing=True), numtorch.cuda.Event(enable_timing=True)
    with pytest.raises(RuntimeError, match="must be recorded"):
        c.elapsed_time(d)


def test_streams():
    s = numtorch.cuda.Stream()
    with numtorch.cuda.stream(s):
        numtorch.ones(2, device="cuda").mul(2)
    s.synchronize()
    assert s.query() is True
    assert numtorch.cuda.current_stream() == numtorch.cuda.current_stream()
    ev = s.record_event()
    assert isinstance(ev, numtorch.cuda.Event)
    with numtorch.cuda.stream(None):
        pass


def test_caching_allocator_counts_live_and_cached_blocks():
    gc.collect()
    numtorch.cuda.empty_cache()
    base = numtorch.cuda.memory_allocated()
    numtorch.cuda.reset_peak_memory_stats()
    t = numtorch.empty(1000, device="cuda")  # 4000 bytes, rounded up to 512-byte blocks
    assert numtorch.cuda.memory_allocated() - base == 4096
    assert numtorch.cuda.max_memory_allocated() - base == 4096
    assert numtorch.cuda.memory_reserved() >= numtorch.cuda.memory_allocated()
    del t
    gc.collect()
    assert numtorch.cuda.memory_allocated() == base
    assert numtorch.cuda.max_memory_allocated() - base == 4096
    reserved = numtorch.cuda.memory_reserved()
    u = numtorch.empty(1000, device="cuda")  # served from the cache: nothing new reserved
    assert numtorch.cuda.memory_reserved() == reserved
    del u
    gc.collect()
    numtorch.cuda.empty_cache()
    assert numtorch.cuda.memory_reserved() == numtorch.cuda.memory_allocated()
    numtorch.cuda.reset_peak_memory_stats()
    assert numtorch.cuda.max_memory_allocated() == numtorch.cuda.memory_allocated()


def test_views_keep_their_storage_alive():
    gc.collect()
    base = numtorch.cuda.memory_allocated()
    t = numtorch.arange(6.0, device="cuda")
    v = t[2:]
    del t
    gc.collect()
    assert numtorch.cuda.memory_allocated() > base
    assert v.cpu().tolist() == [2.0, 3.0, 4.0, 5.0]
