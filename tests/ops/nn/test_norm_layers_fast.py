"""F.layer_norm's binding fast call (Note [Layer norm binding fast call]) against its body: the
same bits, dtype, shape and strides, or the same error; other arguments, gradients and modes take
the body."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
import numtorch.nn.functional as F
from numtorch.ops.nn import norm_layers_fast
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs

from .._fastcall import binding, outcome, same


def _t(shape, dtype=np.float32, seed=0):
    x = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return torch.from_numpy(x)


def _as_under_a_mode(call, *args):
    # the outcome (result or error) of call(*args) is the one under a mode, where only the body runs
    r = outcome(call, *args)
    with LoggingTensorMode():
        want = outcome(call, *args)
    if isinstance(r, tuple):
        assert r == want
    else:
        same(r, want)


def _fast_as_body(fn, body, cases):
    for args in cases:
        n = norm_layers_fast.COUNT[0]
        r = fn(*args)
        assert norm_layers_fast.COUNT[0] == n + 1
        same(r, body(*args))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fast_call_matches_the_body(dtype):
    x = _t((3, 4, 5), dtype)
    x._data[0, 0, :] = 7.0  # a constant row: variance 0
    w, b = _t((4, 5), dtype, 1), _t((4, 5), dtype, 2)
    w5, b5 = _t((5,), dtype, 3), _t((5,), dtype, 4)
    _fast_as_body(F.layer_norm, binding("layer_norm", "torch.nn.functional").body,
                  ((x, (5,), w5, b5, 1e-5), (x, 5, None, None, 1e-5), (x, [4, 5], w, None, 1e-3),
                   (x, (4, 5), None, b, 0.5), (x, (3, 4, 5), None, None, 1e-5), (x[0].contiguous(), (5,), w5, b5, 1e-5)))  # fmt: skip


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_group_norm_fast_call_matches_the_body(dtype):
    x = _t((2, 6, 2, 2), dtype)
    x._data[0, :3] = 2.0  # a constant group
    w, b = _t((6,), dtype, 1), _t((6,), dtype, 2)
    _fast_as_body(F.group_norm, binding("group_norm", "torch.nn.functional").body,
                  ((x, 3, None, None, 1e-5), (x, 2, w, b, 1e-5), (x, 6, w, None, 0.1), (x, 1, None, b, 1e-5),
                   (x[:, :, 0].contiguous(), 3, w, b, 1e-5), (x.reshape(2, 6, 4, 1), 3, None, None, 1e-5)))  # fmt: skip


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_batch_norm_fast_call_matches_the_body(dtype):
    x = _t((2, 3, 2, 2), dtype)
    x._data[:, 1] = 3.0  # a constant channel
    w, b = _t((3,), dtype, 1), _t((3,), dtype, 2)
    rv0 = np.abs(_t((3,), dtype, 4).numpy()) + 0.5
    body = norm_layers_fast.BN_BODY[0]
    for training, momentum, eps, stats, wb, xx in (
        (True, 0.1, 1e-5, False, False, x), (True, 0.3, 1e-3, True, True, x), (False, 0.1, 1e-5, True, True, x),
        (False, 0.1, 0.5, True, False, x), (True, 0.1, 1e-5, False, True, x[:, :, 0].contiguous()),
        (True, 0.1, 1e-5, True, False, x[:, :, 0, 0].contiguous()),
    ):
        a1, a2 = (
            (xx, _t((3,), dtype, 3) if stats else None, torch.from_numpy(rv0.copy()) if stats else None,
             w if wb else None, b if wb else None, training, momentum, eps)
            for _ in range(2)
        )  # fmt: skip
        n = norm_layers_fast.COUNT[0]
        r = F.batch_norm(*a1)
        assert norm_layers_fast.COUNT[0] == n + 1
        same(r, body(*a2))
        if stats:
            same(a1[1], a2[1])
            same(a1[2], a2[2])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_instance_norm_fast_call_matches_the_body(dtype):
    x = _t((2, 3, 2, 2), dtype)
    x._data[1, 2] = 5.0
    w, b = _t((3,), dtype, 1), _t((3,), dtype, 2)
    body = binding("instance_norm", "torch.nn.functional").body
    for args in ((x, None, None, None, None, True, 0.1, 1e-5), (x, None, None, w, b, True, 0.1, 1e-3),
                 (x[:, :, 0].contiguous(), None, None, None, b, True, 0.1, 1e-5)):  # fmt: skip
        n = norm_layers_fast.COUNT[0]
        r = F.instance_norm(*args)
        assert norm_layers_fast.COUNT[0] == n + 1
        want = body(*args)
        same(r, want)
        assert r._base is not None and want._base is not None and r._base.shape == want._base.shape
        assert r._vc is r._base._vc


def test_batch_norm_declines():
    x = _t((2, 3, 2, 2))
    n = norm_layers_fast.COUNT[0]
    rm = torch.zeros(3)
    for call in (lambda: F.batch_norm(x, None, None), lambda: F.batch_norm(x, rm, None),
                 lambda: F.batch_norm(x[:1, :, :1, :1], None, None, training=True),
                 lambda: F.batch_norm(x, rm.double(), torch.ones(3, dtype=torch.float64), training=True),
                 lambda: F.batch_norm(x, None, None, torch.ones(2), training=True),
                 lambda: F.batch_norm(x.transpose(2, 3), None, None, training=True),
                 lambda: F.batch_norm(x, None, None, training=True, momentum=1),
                 lambda: F.batch_norm(x, None, None, training=True, eps=0)):  # fmt: skip
        _as_under_a_mode(call)
    g = x.double().requires_grad_(True)
    assert F.batch_norm(g, None, None, training=True).grad_fn is not None
    with pytest.raises(RuntimeError, match="not differentiable with respect to argument 'running_mean'"):
        F.batch_norm(x, torch.zeros(3, requires_grad=True), torch.ones(3), training=True)

    class Sub(torch.Tensor):
        pass

    assert type(F.batch_norm(x.as_subclass(Sub), None, None, training=True)) is Sub
    for call in (lambda: F.instance_norm(x[:, :, :1, :1]), lambda: F.instance_norm(x[0, 0]),
                 lambda: F.instance_norm(x, torch.zeros(3), torch.ones(3)),
                 lambda: F.instance_norm(x, use_input_stats=False), lambda: F.instance_norm(x, weight=torch.ones(2))):  # fmt: skip
        _as_under_a_mode(call)
    assert F.instance_norm(g).grad_fn is not None
    assert norm_layers_fast.COUNT[0] == n


@pytest.mark.parametrize(
    "call",
    [
        lambda x: F.group_norm(x, 4),
        lambda x: F.group_norm(x, 0),
        lambda x: F.group_norm(x[0:1, :1], 1),
        lambda x: F.group_norm(x[0], 1),
        lambda x: F.group_norm(x, 2, torch.ones(4)),
        lambda x: F.group_norm(x, 2, None, torch.ones(3, dtype=torch.float64)),
        lambda x: F.group_norm(x, 2.0),
        lambda x: F.group_norm(x.transpose(0, 1), 2),
        lambda x: F.group_norm(x.to(torch.int64), 3),
        lambda x: F.group_norm(x[:0], 3),
    ],
)
def test_group_norm_errors_and_other_inputs_are_the_bodies(call):
    x = _t((2, 3, 4))
    _as_under_a_mode(call, x)


@pytest.mark.parametrize(
    "call",
    [
        lambda x: F.layer_norm(x, (4,)),
        lambda x: F.layer_norm(x, (6, 5)),
        lambda x: F.layer_norm(x, ()),
        lambda x: F.layer_norm(x, (5,), torch.ones(4)),
        lambda x: F.layer_norm(x, (5,), None, torch.ones(5, dtype=torch.float64)),
        lambda x: F.layer_norm(x, (5.0,)),
        lambda x: F.layer_norm(x.transpose(0, 2), (3,)),
        lambda x: F.layer_norm(x[:0], (5,)),
        lambda x: F.layer_norm(x.to(torch.int64), (5,)),
        lambda x: F.layer_norm(x, (5,), eps=1),
        lambda x: F.layer_norm(x.half(), (5,)),
    ],
)
def test_errors_and_other_inputs_are_the_bodies(call):
    x = _t((3, 4, 5))
    _as_under_a_mode(call, x)


def test_grad_modes_and_large_inputs_take_the_body():
    x = _t((3, 4, 5))
    n = norm_layers_fast.COUNT[0]
    with capture_logs(is_mode=True) as logs, LoggingTensorMode():
        F.layer_norm(x, (5,))
    assert "native_layer_norm" in " ".join(logs)
    xg = x.double().requires_grad_(True)
    w = _t((5,), np.float64, 1).requires_grad_(True)
    assert F.layer_norm(xg, (5,)).grad_fn is not None
    assert F.layer_norm(x.double(), (5,), w).grad_fn is not None
    assert torch.autograd.gradcheck(lambda v, u: F.layer_norm(v, (5,), u), (xg, w))
    n2 = norm_layers_fast.COUNT[0]  # gradcheck's numerical side runs without grad: fast
    F.layer_norm(_t((1024, 300)), (300,))
    assert norm_layers_fast.COUNT[0] == n2
    assert n2 >= n
    n3 = norm_layers_fast.COUNT[0]
    g = _t((2, 4, 3), np.float64).requires_grad_(True)
    assert F.group_norm(g, 2).grad_fn is not None and norm_layers_fast.COUNT[0] == n3
    with torch.inference_mode():
        assert F.layer_norm(x, (5,)).is_inference() and F.group_norm(x, 2).is_inference()
