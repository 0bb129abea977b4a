"""Note [Linear fast call]: F.linear's fast call gives its composite's results (values, dtype,
strides, views, errors) and, where grad mode records, the composite's graph, saved tensors and
gradients bit for bit; plain and recorded calls take it, and modes, anomaly mode, saved-tensor
hooks, forward AD, subclasses and kernel overrides take the composite."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
import numtorch.autograd.forward_ad as fwAD
import numtorch.nn.functional as NF
from numtorch.ops.nn import layers as NL

from .._fastcall import BodyMode
from .._fastcall import binding as _binding
from .._fastcall import outcome as _outcome
from .._fastcall import same as _same

_RNG = np.random.default_rng(20)
_F64 = torch.float64


def _t(*shape, dtype=torch.float32, special=False):
    a = _RNG.standard_normal(shape) * 10.0 ** _RNG.integers(-3, 4, shape)
    if special and a.size:
        a.flat[: min(3, a.size)] = [np.nan, np.inf, -0.0][: min(3, a.size)]
    return torch.tensor(a).to(dtype)


def _spy(*a, **k):
    raise AssertionError("the composite ran")


def _cases():
    for dt in (torch.float32, _F64):
        yield _t(2, 3, 4, dtype=dt, special=True), _t(5, 4, dtype=dt), _t(5, dtype=dt)
        yield _t(2, 1, 3, 4, dtype=dt), _t(2, 4, dtype=dt), _t(2, dtype=dt, special=True)
        yield _t(3, 4, dtype=dt), _t(2, 4, dtype=dt), _t(3, 2, dtype=dt)  # 2-D: a full bias too
        yield _t(4, 3, dtype=dt).t(), _t(2, 3, dtype=dt), _t(2, dtype=dt)  # 2-D Fortran order
        yield _t(2, 3, 4, dtype=dt), _t(4, 5, dtype=dt).t(), _t(5, dtype=dt)  # a transposed weight
    yield _t(2, 4, 3).transpose(1, 2), _t(2, 4), _t(2)  # N-d strided: the composite's matmul
    yield _t(2, 3, 8)[..., ::2], _t(2, 4), _t(2)
    yield _t(2, 3, 1), _t(2, 1), _t(2)  # k = 1
    yield _t(2, 0, 4), _t(2, 4), _t(2)  # empty
    yield _t(2, 3, 4), _t(0, 4), _t(0)
    yield _t(2, 3, 4), _t(2, 4), _t(3, 2)  # a bias of another shape: addmm's broadcast error
    yield _t(2, 3, 4), _t(2, 4), _t(1)
    yield _t(2, 3, 4), _t(2, 4), _t(2, dtype=_F64)  # dtypes differ
    yield _t(2, 3, 4), _t(2, 5), _t(2)  # inner sizes differ
    yield _t(2, 3, 4), _t(3, 2, 4), _t(3)  # a 3-D weight
    yield _t(4), _t(2, 4), _t(2)
    yield _t(2, 3, 4), _t(2, 4), None
    for dt in (torch.float16, torch.bfloat16, torch.int64, torch.complex64, torch.bool):
        yield _t(2, 3, 4).to(dt), _t(2, 4).to(dt), _t(2).to(dt)


def test_fast_call_matches_the_composite_without_grad():
    b = _binding("linear", "torch.nn.functional")
    for args in _cases():
        want = _outcome(b.body, *args)
        for r in (_outcome(NF.linear, *args), _outcome(b.fast[0], *args)):
            _same(r, want)
            if not isinstance(want, tuple):
                assert r._is_view() is want._is_view()  # an N-d result is a view, as PyTorch's
                if r._is_view():
                    assert r._base._data.shape == want._base._data.shape
                    assert r._version == r._base._version


def _graph(n):
    if n is None:
        return None
    return (n.name(), tuple(_graph(f) for f, _ in n.next_functions))


def _run(fn, args, grads, g):
    leaves = [
        None if a is None else a.clone().requires_grad_(r) for a, r in zip(args, grads, strict=True)
    ]
    x, w, b = leaves
    w = torch.nn.Parameter(w.detach(), requires_grad=grads[1])  # modules pass Parameters
    y = fn(x, w, b)
    node = y.grad_fn
    inner = node.next_functions[0][0] if node.name() == "ViewBackward0" else node
    saved = {**node._saved, **{"addmm " + k: v for k, v in inner._saved.items()}}
    for k, v in saved.items():  # a saved tensor: what unpacking it gives
        if v.__class__.__name__ == "SavedTensor":
            t = v.unpack(inner)
            saved[k] = (t.shape, t.stride(), t.requires_grad, t._data.tobytes())
    y.backward(g)
    gs = [None if t is None or t.grad is None else t.grad._data.tobytes() for t in (x, w, b)]
    return y, _graph(node), saved, gs


@pytest.mark.parametrize("grads", [(True, True, True), (True, False, False), (False, True, False),
                                   (False, False, True), (False, True, True)])  # fmt: skip
@pytest.mark.parametrize("shape", [(2, 3, 4), (2, 1, 3, 4), (3, 4)])
@pytest.mark.parametrize("dtype", [torch.float32, _F64])
def test_recorded_call_matches_the_composite(monkeypatch, grads, shape, dtype):
    args = (_t(*shape, dtype=dtype, special=True), _t(5, 4, dtype=dtype), _t(5, dtype=dtype))
    g = _t(*shape[:-1], 5, dtype=dtype)
    with BodyMode():
        want = _run(NF.linear, args, grads, g)
    monkeypatch.setattr(NL.linear, "fast", _spy)
    got = _run(NF.linear, args, grads, g)
    _same(got[0], want[0])
    assert got[1] == want[1]
    assert got[1][0] == ("ViewBackward0" if len(shape) > 2 else "AddmmBackward0")
    assert got[2] == want[2] and "addmm mat1" in got[2]
    assert got[3] == want[3]
    y = got[0]
    assert y._is_view() is (len(shape) > 2) and y.requires_grad


def test_recorded_call_differentiates_twice():
    x, w, b = (
        torch.tensor(_RNG.standard_normal(s), requires_grad=True) for s in ((2, 3, 4), (5, 4), (5,))
    )
    assert torch.autograd.gradcheck(NF.linear, (x, w, b))
    assert torch.autograd.gradgradcheck(NF.linear, (x, w, b))


def test_grad_mode_decliners_take_the_composite(monkeypatch):
    args = (_t(2, 3, 4).requires_grad_(), _t(5, 4).requires_grad_(), _t(5).requires_grad_())
    monkeypatch.setattr(NL.linear, "fast", _spy)
    NF.linear(*args)  # the spy is not reached by the fast call
    with pytest.raises(AssertionError, match="composite ran"):
        with torch.autograd.detect_anomaly():
            NF.linear(*args)
    with pytest.raises(AssertionError, match="composite ran"):
        with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            NF.linear(*args)
    with pytest.raises(AssertionError, match="composite ran"):
        with fwAD.dual_level():
            NF.linear(fwAD.make_dual(args[0].detach(), torch.ones(2, 3, 4)), *args[1:])
    with pytest.raises(AssertionError, match="composite ran"):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            NF.linear(*args)

    class Sub(torch.Tensor):
        pass

    monkeypatch.undo()
    assert type(NF.linear(args[0].as_subclass(Sub), *args[1:])) is Sub


def test_a_kernel_registered_over_addmm_is_called():
    x, w, b = _t(2, 3, 4).requires_grad_(), _t(5, 4).requires_grad_(), _t(5).requires_grad_()
    want = NF.linear(x, w, b)
    seen = []
    lib = torch.library.Library("aten", "IMPL")

    def kernel(*args, **kwargs):
        seen.append(len(args))
        return torch.zeros(6, 5)

    lib.impl("addmm", kernel, "CPU")
    try:
        with torch.no_grad():
            assert NF.linear(x, w, b).abs().sum().item() == 0
        assert NF.linear(x, w, b).abs().sum().item() == 0
        assert len(seen) == 2
    finally:
        lib._destroy()
    _same(NF.linear(x, w, b), want)
    assert len(seen) == 2


def test_plain_nd_and_2d_calls_skip_the_composite(monkeypatch):
    monkeypatch.setattr(NL.linear, "fast", _spy)
    for x in (_t(2, 3, 4), _t(2, 1, 3, 4, dtype=_F64), _t(3, 4)):
        w, b = _t(5, 4, dtype=x.dtype), _t(5, dtype=x.dtype)
        NF.linear(x, w, b)
        NF.linear(x.requires_grad_(), w, b)
    with pytest.raises(AssertionError, match="composite ran"):  # the spy is live
        NF.linear(_t(2, 4, 3).transpose(1, 2), _t(5, 4), _t(5))
