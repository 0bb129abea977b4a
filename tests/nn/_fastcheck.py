"""Helpers of the nn fast-call tests (test_adaptive_fast, test_unpool_fast, test_lp_pool_fast,
test_shuffle_fast, test_embedding_bag_fast): a call's outcome (a result or (exception type,
text)) and the comparison of a fast call's outcome with its body's, view-ness included."""

from __future__ import annotations


def outcome(fn, *args, **kw):
    try:
        return fn(*args, **kw)
    except Exception as e:  # noqa: BLE001  (both routes must raise alike)
        return (type(e), str(e))


def same(r, want):
    """The same exception, or results alike in class, shape, dtype, strides, view-ness (and
    the base's shape) and bits; a tuple of tensors item by item."""
    if isinstance(want, tuple) and want and isinstance(want[0], type):
        assert r == want
        return
    if isinstance(want, tuple):
        assert type(r) is tuple and len(r) == len(want)
        for u, v in zip(r, want, strict=True):
            same(u, v)
        return
    assert type(r) is type(want) and r.shape == want.shape and r.dtype == want.dtype
    assert r.stride() == want.stride() and r._is_view() == want._is_view()
    if want._is_view():
        assert r._base.shape == want._base.shape and r._base.stride() == want._base.stride()
    assert r.numpy().tobytes() == want.numpy().tobytes()


def grad_and_modes_take_the_body(fn, x, *args):
    """``fn(x, *args)`` records a graph that backward runs through when x requires grad, and a
    dispatch mode sees its aten calls; returns the mode's log lines."""
    from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs

    xg = x.clone().requires_grad_(True)
    r = fn(xg, *args)
    assert r.grad_fn is not None
    r.sum().backward()
    assert xg.grad is not None
    with capture_logs() as logs, LoggingTensorMode():
        fn(x, *args)
    assert logs
    return logs
