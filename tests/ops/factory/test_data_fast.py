"""Note [Tensor data fast call]: torch.tensor/as_tensor/Tensor.new_tensor of lists of Python
floats and ints skip the body and give what it gives (bits, dtype, shape, strides, a fresh leaf);
other data, dtypes and arguments, modes and forward AD take the body, with its errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import numtorch as torch
import numtorch.autograd.forward_ad as fwAD
from numtorch.ops.factory import core, data_fast
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs

L2 = [[8.5, -2.25, 7.0], [-4.0, 1e300, float("nan")]]


@pytest.fixture
def bodies(monkeypatch):
    calls = []
    real = core.data_to_array

    def spy(*a, **k):
        calls.append(a)
        return real(*a, **k)

    monkeypatch.setattr(core, "data_to_array", spy)
    return calls


FAST = [
    ("float32", lambda: torch.tensor(L2, dtype=torch.float32)),
    ("float64", lambda: torch.tensor(L2, dtype=torch.float64)),
    ("inferred float", lambda: torch.tensor([1, 2.5, -0.0])),
    ("inferred int64", lambda: torch.tensor([[1, -2], [3, 2**62]])),
    ("ints into float32", lambda: torch.tensor([1, 2**70, -3], dtype=torch.float32)),
    ("tuples", lambda: torch.tensor(((1.0, 2.0), (3.0, 4))), ),
    ("mixed rows", lambda: torch.tensor([(1.0, 2.0), [3.0, 4.0]], dtype=torch.float64)),
    ("empty with dtype", lambda: torch.tensor([], dtype=torch.float32)),
    ("empty rows", lambda: torch.tensor([[], []], dtype=torch.float64)),
    ("as_tensor", lambda: torch.as_tensor(L2, dtype=torch.float32)),
    ("as_tensor inferred", lambda: torch.as_tensor([0.5, 1.5])),
    ("new_tensor", lambda: torch.zeros(2, dtype=torch.float64).new_tensor([[1, 2], [3, 4]])),
    ("new_tensor dtype", lambda: torch.zeros(2, dtype=torch.int32).new_tensor([1.5, 2.5], dtype=torch.float32)),
    ("cpu", lambda: torch.tensor([1.5, 2.0], device="cpu")),
    ("cpu device", lambda: torch.tensor([[1, 2]], device=torch.zeros(1).device)),
]  # fmt: skip
BODY = [
    ("bool", lambda: torch.tensor([True, 1.0])), ("complex", lambda: torch.tensor([1.0, 2j])),
    ("complex into float", lambda: torch.tensor([1.0, 2j], dtype=torch.float32)),
    ("numpy scalar", lambda: torch.tensor([np.float32(1.5), 2.0])), ("tensor rows", lambda: torch.tensor([torch.ones(2)])),
    ("three levels", lambda: torch.tensor([[[1.0]]])), ("ragged", lambda: torch.tensor([[1.0, 2.0], [3.0]])),
    ("scalar then row", lambda: torch.tensor([1.0, [2.0]])), ("int too big", lambda: torch.tensor([2**64])),
    ("int too big for float", lambda: torch.tensor([10**400], dtype=torch.float32)),
    ("int32", lambda: torch.tensor([1, 2], dtype=torch.int32)), ("float to int64", lambda: torch.tensor([1.5], dtype=torch.int64)),
    ("python dtype", lambda: torch.tensor([1.5], dtype=float)), ("bad dtype", lambda: torch.tensor([1.5], dtype=[1])),
    ("requires_grad", lambda: torch.tensor([1.5], requires_grad=True)), ("device", lambda: torch.tensor([1.5], device="meta")),
    ("string", lambda: torch.tensor(["1.5"])), ("None", lambda: torch.tensor([None, 1.0], dtype=torch.float32)),
    ("no numbers", lambda: torch.tensor([])), ("scalar", lambda: torch.tensor(1.5)),
    ("float16", lambda: torch.tensor([1.5], dtype=torch.float16)),
    ("new_tensor int", lambda: torch.zeros(2, dtype=torch.int32).new_tensor([1, 2])),
    ("new_tensor grad", lambda: torch.zeros(2).new_tensor([1.0], requires_grad=True)),
    ("new_tensor meta", lambda: torch.zeros(2, device="meta").new_tensor([1.0])),
    ("as_tensor device", lambda: torch.as_tensor([1.0], device="cpu")),
]  # fmt: skip


def _run(fn):
    try:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            r = fn()
        return r, [str(x.message) for x in w]
    except Exception as e:  # noqa: BLE001
        return (type(e), str(e)), []


def _body(monkeypatch, fn):
    with monkeypatch.context() as m:
        m.setattr(data_fast, "array", lambda data, dt: None)
        return _run(fn)


def _same(a, b):
    if isinstance(a, tuple):
        assert a == b
        return
    assert a.dtype is b.dtype and a.shape == b.shape and a.stride() == b.stride() and a.device == b.device
    assert a.requires_grad == b.requires_grad and a.is_leaf and a._base is None and a._vc == [0]
    if not a.is_meta:
        assert a.detach().numpy().tobytes() == b.detach().numpy().tobytes()


@pytest.mark.parametrize("call", FAST, ids=[c[0] for c in FAST])
def test_plain_data_takes_the_fast_route(bodies, monkeypatch, call):
    got, gw = _run(call[1])
    assert bodies == [], "the body ran"
    want, ww = _body(monkeypatch, call[1])
    assert bodies, "the body did not run"
    _same(got, want)
    assert gw == ww == []
    assert got.numpy().flags.c_contiguous and got.numpy().flags.owndata


@pytest.mark.parametrize("call", BODY, ids=[c[0] for c in BODY])
def test_other_data_takes_the_body(bodies, monkeypatch, call):
    got, gw = _run(call[1])
    assert bodies or isinstance(got, tuple), "the fast call did not decline"
    want, ww = _body(monkeypatch, call[1])
    _same(got, want)
    assert gw == ww


def test_default_dtype_float64_and_float16(bodies, monkeypatch):
    old = torch.get_default_dtype()
    try:
        torch.set_default_dtype(torch.float64)
        got = torch.tensor([1.0, 2])
        assert got.dtype is torch.float64 and bodies == []
        torch.set_default_dtype(torch.float16)
        got = torch.tensor([1.0, 2])
        assert got.dtype is torch.float16 and bodies  # (float16 default: the body)
    finally:
        torch.set_default_dtype(old)


def test_modes_and_forward_ad_take_the_body(bodies):
    with capture_logs(is_mode=True) as logs, LoggingTensorMode():
        torch.tensor([1.0, 2.0])
    assert bodies and any("lift_fresh" in ln for ln in logs)
    bodies.clear()
    with fwAD.dual_level():
        torch.tensor([1.0, 2.0])
    assert bodies
