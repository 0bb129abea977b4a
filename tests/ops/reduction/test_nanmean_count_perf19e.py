"""Note [nanmean's count with a graph], session 19: a recording nanmean counts its non-NaN
values in NumPy instead of isnan, logical_not_ and sum; the result, its graph and its gradient
are the composite's, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
from numtorch.autograd import gradcheck, gradgradcheck
from numtorch.ops.reduction import stats
from numtorch.utils._python_dispatch import TorchDispatchMode


@pytest.fixture
def spy(monkeypatch):
    calls = []
    real = stats.nanmean_count
    monkeypatch.setattr(stats, "nanmean_count", lambda *a: calls.append(real(*a)) or calls[-1])
    return calls


def _run(a, kw, g):
    x = torch.from_numpy(a.copy()).requires_grad_()
    y = torch.nanmean(x, **kw)
    y.backward(torch.from_numpy(g(y.shape)))
    return (
        y.detach(),
        x.grad,
        [type(y.grad_fn).__name__, type(y.grad_fn.next_functions[0][0]).__name__],
    )


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kw", [{}, {"dim": 1}, {"dim": (0, 2), "keepdim": True}, {"dim": []}, {"dim": -1},
                                {"dim": 1, "dtype": torch.float64}])  # fmt: skip
def test_count_gives_the_composites_bits(kw, dtype, rng, spy, monkeypatch):
    a = rng.standard_normal((2, 3, 4)).astype(dtype)
    a.reshape(-1)[[0, 5, 6, 7]] = np.nan  # a whole column of NaN: 0 / 0

    def g(s):
        return (
            np.linspace(-1, 2, int(np.prod(s)))
            .reshape(s)
            .astype(dtype if "dtype" not in kw else np.float64)
        )

    got = _run(a, kw, g)
    assert len(spy) == 1 and spy[0] is not None and spy[0].dtype == torch.int64
    with monkeypatch.context() as m:
        m.setattr(stats, "nanmean_count", lambda *a: None)  # the composite's ops
        want = _run(a, kw, g)
    assert got[2] == want[2] == ["DivBackward0", "NansumBackward0"]
    for r, w in zip(got[:2], want[:2], strict=True):
        assert r.dtype == w.dtype and r.shape == w.shape and r.stride() == w.stride()
        assert r.numpy().tobytes() == w.numpy().tobytes()


def test_declines_and_errors(rng, spy):
    x = torch.randn(3, 4, requires_grad=True)
    torch.nanmean(torch.randn((), requires_grad=True))  # 0-d
    torch.nanmean(x.half())  # float16
    assert spy == [None, None]
    with pytest.raises(IndexError, match="Dimension out of range"):
        torch.nanmean(x, 2)
    with pytest.raises(IndexError, match="Dimension out of range"):
        torch.nanmean(x.detach().double().requires_grad_()[None].squeeze(0), 5)


def test_a_mode_sees_the_composites_ops():
    seen = []

    class Log(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))

    x = torch.randn(3, 4, requires_grad=True)
    with Log():
        torch.nanmean(x, 1)
    assert "aten.isnan.default" in seen and "aten.logical_not_.default" in seen, seen


def test_gradients():
    x = torch.randn(3, 4, dtype=torch.float64)
    x[1, 2] = float("nan")
    x.requires_grad_()
    assert gradcheck(lambda t: torch.nanmean(t, 1).nan_to_num(), (x,))
    assert gradgradcheck(lambda t: torch.nanmean(t, 0, True).nan_to_num(), (x,))


def test_a_kernel_registered_over_isnan_is_called(spy):
    # Note [Fast calls under kernel overrides]: the composite's ops run while one is registered
    seen = []
    lib = torch.library.Library("aten", "IMPL")
    lib.impl("isnan", lambda t: seen.append(1) or torch.zeros(t.shape, dtype=torch.bool), "CPU")
    try:
        x = torch.tensor([[1.0, float("nan")], [2.0, 3.0]], requires_grad=True)
        r = torch.nanmean(x, 1)
    finally:
        del lib
    assert seen == [1] and spy == [None]
    assert r.grad_fn is not None and r.tolist() == [0.5, 2.5]  # nansum over a count of 2
    assert torch.nanmean(x, 1).tolist() == [1.0, 2.5]  # removed: the count again


def test_a_kernel_registered_over_isnan_is_called_without_grad():
    # nanmean_plain (Note [nanmean without the composite's ops]) declines likewise
    seen = []
    lib = torch.library.Library("aten", "IMPL")
    lib.impl("isnan", lambda t: seen.append(1) or torch.zeros(t.shape, dtype=torch.bool), "CPU")
    try:
        r = torch.nanmean(torch.tensor([[1.0, float("nan")], [2.0, 3.0]]), 1)
    finally:
        del lib
    assert seen == [1] and r.tolist() == [0.5, 2.5]


def test_large_inputs_take_the_ops(spy):
    x = torch.randn(100, 100, requires_grad=True)  # above _COUNT_MAX: NumPy's count was slower
    torch.nanmean(x, 1).sum().backward()
    assert spy == [None]
