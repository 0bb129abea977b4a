"""Note [Small products through np.dot]: 1-D and 2-D products of one floating dtype run np.dot
where BLAS takes them as they are; product's values must stay np.matmul's bit for bit (every
layout, empty and k=1 products), and neither
an overflow nor a NaN may warn (Note [Quiet floating-point flags])."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops._quiet import IGNORE, quiet, restore
from numtorch.ops.linalg._contract import product


def _layouts(rng, shape, dt):
    a = rng.standard_normal(shape).astype(dt)
    if dt.kind == "c":
        a = a + 1j * rng.standard_normal(shape).astype(dt)
    yield a
    if a.ndim == 2:
        yield np.asfortranarray(a)
        yield rng.standard_normal(shape[::-1]).astype(dt).T
        yield np.repeat(a, 2, axis=0)[::2]
        yield a[::-1, ::-1]
    else:
        yield np.repeat(a, 3)[::3]
        yield a[::-1]


SHAPES = [((2, 3), (3, 4)), ((1, 5), (5, 1)), ((7, 64), (64, 9)), ((3, 1), (1, 3)), ((130, 70), (70, 3)),
          ((0, 3), (3, 2)), ((4, 0), (0, 2)), ((2, 3), (3,)), ((3,), (3, 4)), ((5,), (5,)), ((0,), (0,))]  # fmt: skip


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.complex64, np.complex128])
def test_product_is_matmul_bit_for_bit(dt):
    rng = np.random.default_rng(0)
    dt = np.dtype(dt)
    for sa, sb in SHAPES:
        for a in _layouts(rng, sa, dt):
            for b in _layouts(rng, sb, dt):
                r = product(a, b)
                # k = 1 between matrices: product's broadcast multiply, as before
                want = a * b if a.ndim == b.ndim == 2 and a.shape[1] == 1 else np.matmul(a, b)
                assert r.shape == want.shape and r.dtype == want.dtype and r.flags.c_contiguous
                assert np.array_equal(r, want), (sa, sb, a.strides, b.strides)


def test_products_do_not_warn():
    big = torch.full((2, 3), 1e30)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert torch.isinf(torch.mm(big, big.t())).all()
        assert torch.isinf(torch.mv(big, big[0])).all() and torch.isinf(torch.dot(big[0], big[0]))
        assert torch.isinf(big @ big.t()).all() and torch.isinf(torch.matmul(big[0], big.t())).all()
        n = torch.full((2, 2), float("nan"), dtype=torch.float64)
        assert torch.isnan(torch.mm(n, n)).all()


def test_quiet_restores_the_callers_state():
    with np.errstate(over="raise"):
        tok = quiet(IGNORE)
        assert np.geterr()["over"] == "ignore"
        restore(tok)
        assert np.geterr()["over"] == "raise"
        with pytest.raises(FloatingPointError):
            np.float32(1e30) * np.float32(1e30)


PAIRS = [((2, 3), (3, 4)), ((2, 3), (3,)), ((3,), (3, 4)), ((5,), (5,)), ((0, 3), (3, 2)), ((4, 0), (0, 2)),
         ((0,), (0,)), ((2, 2, 3), (3, 4)), ((0, 2, 3), (3, 4)), ((3, 1), (1, 2)), ((2, 3), (4, 2)),
         ((2, 3, 4), (2, 4, 5)), ((3,), (4,)), ((2, 3), (3, 4, 1)), ((2, 3, 0), (0, 4)), ((0, 2, 3), (3, 4))]  # fmt: skip
FNS = {"mm": torch.mm, "mv": torch.mv, "dot": torch.dot, "vdot": torch.vdot, "matmul": torch.matmul,
       "@": lambda a, b: a @ b, "Tensor.mm": lambda a, b: a.mm(b), "Tensor.matmul": lambda a, b: a.matmul(b)}  # fmt: skip


def _outcome(fn, *args):
    try:
        return fn(*args)
    except Exception as e:  # noqa: BLE001  (both routes must raise alike)
        return (type(e), str(e))


def _body_of(name):
    from numtorch.ops._registry import BINDINGS

    module, _, fname = name.rpartition(".")
    (b,) = [b for b in BINDINGS if b.module == (module or "torch") and b.name == fname]
    assert b.fast is not None, "no fast call installed"
    return (lambda x, y: b.body(x, y, None)) if not module else b.body


@pytest.mark.parametrize(
    "name", ["mm", "mv", "dot", "vdot", "matmul", "Tensor.mm", "Tensor.matmul"]
)
def test_fast_calls_match_the_body(name):
    body = _body_of(name)
    fn = FNS[name.rpartition(".")[2]] if "." not in name else FNS[name]
    rng = np.random.default_rng(1)
    for dt in (torch.float32, torch.float64, torch.int64, torch.complex64):
        for sa, sb in PAIRS:
            for t in (False, True):
                a = torch.tensor(rng.standard_normal(sa)).to(dt)
                b = torch.tensor(rng.standard_normal(sb)).to(dt)
                if t and a.dim() == 2:
                    a = a.t().contiguous().t()  # Fortran order
                r, want = _outcome(fn, a, b), _outcome(body, a, b)
                if isinstance(want, tuple):
                    assert r == want
                    continue
                assert (
                    r.shape == want.shape and r.dtype == want.dtype and r.stride() == want.stride()
                )
                assert np.array_equal(r.numpy(), want.numpy())
    a64 = torch.ones(2, 3, dtype=torch.float64)
    assert _outcome(fn, torch.ones(2, 3), a64) == _outcome(body, torch.ones(2, 3), a64)


def test_plain_products_take_the_fast_route(monkeypatch):
    def spy(*a):
        raise AssertionError("the body ran")

    for f in (torch.mm, torch.mv, torch.dot, torch.vdot, torch.matmul, torch.Tensor.mm, torch.Tensor.__matmul__,
              torch.bmm, torch.Tensor.bmm, torch.addmm, torch.Tensor.addmm, torch.baddbmm):  # fmt: skip
        monkeypatch.setitem(f.__globals__, "_body", spy)
    a, b = torch.ones(2, 3), torch.ones(3, 4)
    assert torch.mm(a, b).shape == (2, 4) and torch.mv(a, b[:, 0]).shape == (2,)
    assert torch.dot(b[:, 0], b[:, 1]).item() == 3 and torch.vdot(b[:, 0], b[:, 1]).item() == 3
    assert torch.matmul(torch.ones(2, 2, 3), b).shape == (2, 2, 4) and (a @ b).shape == (2, 4)
    assert a.mm(b).shape == (2, 4)
    s, t = torch.ones(2, 2, 3), torch.ones(2, 3, 4)
    assert torch.bmm(s, t).shape == s.bmm(t).shape == (2, 2, 4)  # these call op.fast
    assert (
        torch.addmm(torch.zeros(4), a, b, beta=0, alpha=2).shape
        == torch.zeros(2, 4).addmm(a, b).shape
    )
    assert torch.baddbmm(torch.zeros(2, 2, 4), s, t).shape == (2, 2, 4)
    with pytest.raises(AssertionError, match="the body ran"):  # the spy is live
        torch.mm(a, b, out=torch.empty(2, 4))


def test_grad_and_modes_take_the_op():
    from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs

    a = torch.ones(2, 3, dtype=torch.float64, requires_grad=True)
    b = torch.ones(3, 4, dtype=torch.float64)
    assert torch.autograd.gradcheck(lambda x: torch.mm(x, b), (a,))
    assert torch.autograd.gradcheck(lambda x: x @ b, (a,)) and (a @ b).grad_fn is not None
    with capture_logs(is_mode=True) as logs, LoggingTensorMode():
        torch.mm(b.t(), b), torch.mv(b, b[0]), torch.dot(b[0], b[0])
    seen = " ".join(logs)
    assert "aten.mm" in seen and "aten.mv" in seen and "aten.dot" in seen


def test_autocast_region_takes_the_op():
    a, b = torch.ones(2, 3), torch.ones(3, 4)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        assert torch.mm(a, b).dtype is torch.bfloat16 and (a @ b).dtype is torch.bfloat16
    assert torch.mm(a, b).dtype is torch.float32
