"""Note [Small linalg fast calls]: kron, trace, cross, block_diag, cdist and pinv's fast calls give their
bodies' results (values, dtype, shape, strides, errors); cross's kernel is np.cross bit for bit;
plain calls take the fast route, and modes, gradients, forward AD, out= and subclasses take the
body."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
import numtorch.autograd.forward_ad as fwAD
from numtorch.ops.linalg import _fast_small as FS
from numtorch.ops.linalg import core as LC
from numtorch.ops.linalg import cross as LX
from numtorch.ops.linalg import decomp as LD
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs

from .._fastcall import binding as _binding
from .._fastcall import outcome as _outcome
from .._fastcall import same as _same


def _t(*shape, dtype=torch.float32, start=0):
    n = int(np.prod(shape)) if shape else 1
    return (torch.arange(start, start + n, dtype=torch.float64).reshape(shape) * 0.37 - 1).to(dtype)


@pytest.mark.parametrize(
    "dt", [np.float32, np.float64, np.float16, np.int64, np.int32, np.complex64]
)
def test_cross_kernel_is_np_cross_bit_for_bit(dt):
    rng = np.random.default_rng(0)
    for sa, sb, d in [((5, 3), (5, 3), 1), ((4, 1, 3), (4, 2, 3), 2), ((3, 4), (3, 4), 0), ((2, 3, 5), (1, 3, 5), 1),
                      ((3,), (3,), 0), ((0, 3), (0, 3), 1)]:  # fmt: skip
        a = (rng.standard_normal(sa) * 1e3).astype(dt)
        b = (rng.standard_normal(sb) * 1e3).astype(dt)
        if dt == np.complex64:
            a = a + 1j * (rng.standard_normal(sa) * 1e3).astype(np.float32)
        with np.errstate(all="ignore"):
            want = np.ascontiguousarray(np.cross(a, b, axis=d))
            got = LX._cross3(a, b, d, np.broadcast_shapes(sa, sb))
        assert got.dtype == want.dtype and got.shape == want.shape and got.flags.c_contiguous
        assert got.tobytes() == want.tobytes()
    big = np.array([[2**40, 3, 2**41]], dtype=np.int64)  # integer products wrap, as before
    with np.errstate(all="ignore"):
        assert (
            LX._cross3(big, big[:, ::-1].copy(), 1, (1, 3)).tobytes()
            == np.cross(big, big[:, ::-1], axis=1).tobytes()
        )


def _pairs():
    yield _t(2, 3), _t(3, 2, start=5)
    yield _t(3), _t(2, 2, start=1)
    yield _t(2, 3, dtype=torch.float64), _t(2, 2, dtype=torch.float64)
    yield _t(3, 2).t(), _t(2, 2)  # non-contiguous
    yield _t(2, 3), _t(2, 2, dtype=torch.float64)  # promotion: the op
    yield _t(2, 2, dtype=torch.int64), _t(2, dtype=torch.int64)
    yield _t(0, 2), _t(2, 2)
    yield _t(), _t(2)
    yield _t(2, 1, 2), _t(3)
    yield _t(130, 2), _t(70, 2)  # past _SMALL: the op


def test_kron_fast_call_matches_body():
    for name, module in (("kron", "torch"), ("kron", "Tensor")):
        b = _binding(name, module)
        fn = torch.kron if module == "torch" else torch.Tensor.kron
        for x, y in _pairs():
            want = _outcome(b.body, x, y, None) if module == "torch" else _outcome(b.body, x, y)
            _same(_outcome(fn, x, y), want)
            _same(_outcome(b.fast[0], x, y), want)


def test_trace_fast_call_matches_body():
    b = _binding("trace")
    for x in (_t(3, 3), _t(2, 4, dtype=torch.float64), _t(4, 2).t(), _t(3, 3, dtype=torch.int32), _t(3), _t(0, 2),
              _t(2, 2, dtype=torch.float16), _t(3, 3) > 0, _t(8, 9), _t(9, 8, dtype=torch.float64), _t(0, 0),
              torch.tensor([[3e38, 0.0], [1.0, 3e38]]), torch.tensor([[-0.0, 1.0], [2.0, -0.0]]),
              torch.tensor([[float("inf"), 0.0], [0.0, float("-inf")]]), torch.tensor([[float("nan"), 1.0], [0.0, 1.0]]),
              torch.tensor([[1e16, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, -1e16]], dtype=torch.float64)):  # fmt: skip
        want = _outcome(b.body, x)
        _same(_outcome(torch.trace, x), want)
        _same(_outcome(x.trace), want)
        _same(_outcome(b.fast[0], x), want)


def test_cross_fast_call_matches_body():
    b, lb = _binding("cross"), _binding("cross", "torch.linalg")
    for x, y, d in [(_t(3, 2), _t(3, 2, start=4), 0), (_t(4, 1, 3), _t(4, 2, 3), -1), (_t(3, 2), _t(3, 2), 1),
                    (_t(3, 2), _t(3, 2, dtype=torch.float64), 0), (_t(2, 3, dtype=torch.int64), _t(2, 3, dtype=torch.int64), 1),
                    (_t(3), _t(1, 3), 0), (_t(3, 2) > 0, _t(3, 2) > 1, 0), (_t(3, 2), _t(3, 2), 5), (_t(3, 2), _t(3, 2), None)]:  # fmt: skip
        want = _outcome(b.body, x, y, d, None)
        _same(_outcome(torch.cross, x, y, d), want)
        if d is not None:
            _same(_outcome(b.fast[0], x, y, d), want)
            _same(
                _outcome(lambda a, c, d=d: torch.linalg.cross(a, c, dim=d), x, y),
                _outcome(lb.body, x, y, d, None),
            )


def test_block_diag_fast_call_matches_body():
    b = _binding("block_diag")
    cases = [(_t(2, 3), _t(1, 2)), (_t(2, 3),), (_t(3), _t(), _t(2, 2)), (_t(2, 2, dtype=torch.int64), _t(1, dtype=torch.int64)),
             (_t(2, 3), _t(2, dtype=torch.float64)), (_t(0, 2), _t(2, 0)), (_t(3, 2).t(), _t(2)), (_t(2, 2, 2),),
             (_t(2, 2) > 0, _t(1) > 0), (_t(2, 2, dtype=torch.bfloat16),), ()]  # fmt: skip
    ran = 0
    for ts in cases:
        want = _outcome(b.body, ts)
        _same(_outcome(torch.block_diag, *ts), want)
        r = FS.block_diag(ts)
        if r is not None:
            ran += 1
            _same(r, want)
    assert ran >= 6


def test_plain_calls_take_the_fast_route(monkeypatch):
    def spy(*a, **k):
        raise AssertionError("the body ran")

    for m in (LC, LX, LD):
        monkeypatch.setattr(m, "dispatch", spy)
    x, y = _t(2, 3), _t(2, 3, start=1)
    assert torch.kron(x, y).shape == (4, 9) and x.kron(y).shape == (4, 9)
    assert torch.trace(_t(3, 3)).ndim == 0 and _t(3, 3).trace().ndim == 0
    assert torch.block_diag(x, y).shape == (4, 6) and torch.cdist(
        _t(2, 3, 2), _t(1, 4, 2)
    ).shape == (2, 3, 4)
    assert torch.linalg.pinv(_t(2, 3, 2) ** 2).shape == (2, 2, 3)
    assert torch.cross(_t(3, 2), _t(3, 2), 0).shape == (3, 2) and torch.linalg.cross(
        _t(2, 3), _t(2, 3)
    ).shape == (2, 3)
    with pytest.raises(AssertionError, match="the body ran"):  # the spies are live
        torch.cross(_t(3, 2), _t(3, 2))
    with pytest.raises(AssertionError, match="the body ran"):
        torch.kron(x, y, out=torch.empty(0))


def test_modes_grad_forward_ad_out_and_subclasses_take_the_body():
    x, y = _t(3, 3, dtype=torch.float64), _t(3, 3, dtype=torch.float64, start=2)
    with capture_logs(is_mode=True) as logs, LoggingTensorMode():
        torch.kron(x, y), torch.trace(x), torch.block_diag(x, y), torch.cross(x, y, 0)
    seen = " ".join(logs)
    assert all(f"aten.{n}" in seen for n in ("mul", "trace", "block_diag", "linalg_cross"))
    w = x.clone().requires_grad_(True)
    for r in (torch.kron(w, y), torch.trace(w), torch.block_diag(w, y), torch.cross(w, y, 0)):
        assert r.grad_fn is not None
    with fwAD.dual_level():
        d = fwAD.make_dual(x, torch.ones_like(x))
        assert fwAD.unpack_dual(torch.trace(d)).tangent.item() == 3.0
        _same(fwAD.unpack_dual(torch.kron(d, y)).tangent, torch.kron(torch.ones_like(x), y))
        assert fwAD.unpack_dual(torch.block_diag(d, y)).tangent is not None
    out = torch.empty(0, dtype=torch.float64)
    assert torch.kron(x, y, out=out) is out
    _same(out, torch.kron(x, y))

    class Sub(torch.Tensor):
        pass

    s = x.as_subclass(Sub)
    assert (
        type(torch.kron(s, y)) is Sub
        and type(torch.trace(s)) is Sub
        and type(torch.block_diag(y, s)) is Sub
    )
    assert FS.block_diag([s, y]) is None


def test_cross_without_dim_warns_through_the_body():
    with pytest.warns(
        UserWarning, match="Using torch.cross without specifying the dim arg is deprecated"
    ):
        r = torch.cross(_t(3, 2), _t(3, 2, start=1))
    assert r.shape == (3, 2)


@pytest.mark.parametrize("dt", [torch.float32, torch.float64])
def test_outer_kernel_is_np_multiply_outer_bit_for_bit(dt):
    rng = np.random.default_rng(1)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-310, 3e38, 1.7e308])
    for n, m in ((5000, 4), (4, 5000), (70, 70), (3, 3)):
        a = np.concatenate([specials, rng.standard_normal(n)])
        b = np.concatenate([specials, rng.standard_normal(m)])
        with np.errstate(all="ignore"):
            x, y = torch.tensor(a, dtype=dt), torch.tensor(b, dtype=dt)
            want = np.multiply.outer(x.numpy(), y.numpy())
        for f in (torch.outer, torch.ger, lambda p, q: torch.outer(p[::2], q[::2])):
            got = f(x, y).numpy()
            w = want if got.shape == want.shape else want[::2, ::2]
            assert got.dtype == w.dtype and got.tobytes() == np.ascontiguousarray(w).tobytes()


def test_cdist_fast_call_matches_body():
    b = _binding("cdist")
    x, y = _t(2, 3, 2), _t(1, 4, 2, start=3)
    cases = [(x, y, 2.0), (x, y, 1), (x, y, 0.0), (x, y, float("inf")), (x, y, 3.5), (x, y, -1.0), (_t(3, 2), _t(4, 2), 2.0),
             (x.double(), y.double(), 2.0), (x, y.double(), 2.0), (_t(2, 3, 2), _t(3, 4, 2), 2.0), (_t(3, 2), _t(4, 3), 2.0),
             (_t(0, 2), _t(4, 2), 2.0), (_t(2), _t(4, 2), 2.0), (x.transpose(0, 1), _t(4, 2), 2.0),
             (_t(3, 2, dtype=torch.int64), _t(3, 2, dtype=torch.int64), 2.0), (_t(200, 2), _t(100, 2), 2.0)]  # fmt: skip
    for a, c, p in cases:
        for mode in ("use_mm_for_euclid_dist_if_necessary", "donot_use_mm_for_euclid_dist", "bad"):
            want = _outcome(b.body, a, c, p, mode)
            _same(_outcome(torch.cdist, a, c, p, mode), want)
            _same(_outcome(b.fast[0], a, c, p, mode), want)
    w = x.double().requires_grad_(True)
    assert torch.cdist(w, y.double()).grad_fn is not None
    with capture_logs(is_mode=True) as logs, LoggingTensorMode():
        torch.cdist(x, y)
    assert any("aten.cdist" in ln for ln in logs)  # its own op since Note [cdist's own node]


@pytest.mark.parametrize("dt", [torch.float32, torch.float64])
def test_pinv_fast_call_matches_body(dt):
    b = _binding("pinv", "torch.linalg")
    rng = np.random.default_rng(2)
    mats = [rng.standard_normal(s) for s in ((3, 3), (2, 2, 3), (4, 2), (3, 5, 4), (1, 1), (6, 6))]
    low = rng.standard_normal((5, 2)) @ rng.standard_normal(
        (2, 4)
    )  # rank 2: small singular values cut
    mats += [low, np.stack([low, low * 1e-30]), np.zeros((3, 2)), np.diag([1.0, 1e-7, 1e-9])]
    cases = [
        (None, None),
        (0.5, None),
        (None, 1e-3),
        (0.0, 0.0),
        (1e-8, 1e-2),
        (2, None),
        (None, 0),
    ]
    ran = 0
    for m in mats:
        A = torch.tensor(m, dtype=dt)
        for atol, rtol in cases:
            want = _outcome(b.body, A, None, False, atol, rtol, None)
            _same(
                _outcome(
                    lambda A=A, atol=atol, rtol=rtol: torch.linalg.pinv(A, atol=atol, rtol=rtol)
                ),
                want,
            )
            _same(_outcome(b.fast[0], A, None, False, atol, rtol), want)
            ran += 1
    for A, kw in ((torch.tensor(mats[0], dtype=dt), {"hermitian": True}), (torch.tensor(mats[0], dtype=dt), {"rcond": 1e-3}),
                  (torch.zeros(0, 3, dtype=dt), {}), (torch.ones(3, dtype=dt), {}), (torch.ones(2, 2, dtype=torch.int64), {}),
                  (torch.tensor(mats[1], dtype=dt), {"atol": torch.tensor(0.1)})):  # fmt: skip
        want = _outcome(
            b.body,
            A,
            kw.get("rcond"),
            kw.get("hermitian", False),
            kw.get("atol"),
            kw.get("rtol"),
            None,
        )
        _same(_outcome(lambda A=A, kw=kw: torch.linalg.pinv(A, **kw)), want)
    assert ran > 50
    w = torch.tensor(mats[0], dtype=dt, requires_grad=True)
    assert torch.linalg.pinv(w).grad_fn is not None
    with capture_logs(is_mode=True) as logs, LoggingTensorMode():
        torch.linalg.pinv(torch.tensor(mats[0], dtype=dt))
    # PyTorch's linalg_pinv is CompositeExplicitAutograd: a mode sees the op, not its svd
    assert any("aten.linalg_pinv" in ln for ln in logs)
    assert not any("aten.linalg_svd" in ln for ln in logs)


def test_pinv_cdist_and_kron_under_forward_ad_and_out_take_the_body():
    x = _t(3, 3, dtype=torch.float64) ** 2 + torch.eye(3, dtype=torch.float64)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, torch.ones_like(x))
        assert fwAD.unpack_dual(torch.linalg.pinv(d)).tangent is not None
        assert fwAD.unpack_dual(torch.cdist(d, x)).tangent is not None
        assert fwAD.unpack_dual(torch.inner(d, x)).tangent is not None
    out = torch.empty(0, dtype=torch.float64)
    assert torch.linalg.pinv(x, out=out) is out
    _same(out, torch.linalg.pinv(x))
    with pytest.raises(RuntimeError, match="rcond and rtol cannot be passed together"):
        torch.linalg.pinv(x, rcond=1e-3, rtol=1e-3)
    with pytest.raises(RuntimeError, match="cdist only supports non-negative p values"):
        torch.cdist(x, x, p=-1.0)


def test_cross_fast_call_skips_the_op(monkeypatch):
    # Note [Small linalg fast calls]: linalg.cross and torch.cross with a dim run the kernel on
    # the arrays; broadcasting, other dtypes and bad arguments go to the op (its errors)
    def spy(*a, **k):
        raise AssertionError("the op ran")

    x, y = _t(4, 1, 3), _t(4, 2, 3, start=7)
    want = torch.linalg.cross(x, y)
    monkeypatch.setattr(LX._LCROSS[0], "fast", spy)
    _same(torch.linalg.cross(x, y), want)
    _same(torch.cross(x, y, dim=-1), want)
    _same(x.cross(y, 2), want)
    for a, c, d in [(x, y.double(), -1), (_t(3, 3), _t(3, 1, 3), -1), (x > 0, y > 0, -1), (x, y, 0), (x, y, 3),
                    (_t(2, 3, dtype=torch.float16), _t(2, 3, dtype=torch.float16), 1), (x, _t(3, 2, 3), -1)]:  # fmt: skip
        with pytest.raises(AssertionError, match="the op ran"):
            torch.linalg.cross(a, c, dim=d)
    with pytest.raises(AssertionError, match="the op ran"):
        torch.linalg.cross(x.requires_grad_(), y)


def test_cross_fast_call_matches_the_op_over_layouts_and_dtypes():
    lb = _binding("cross", "torch.linalg")
    rng = np.random.default_rng(3)
    for dt in (torch.float32, torch.float64, torch.int32, torch.int64):
        for sa, sb, d in [((5, 3), (5, 3), 1), ((4, 1, 3), (4, 2, 3), -1), ((3, 4), (3, 1), 0), ((2, 3, 5), (1, 3, 5), 1),
                          ((3,), (3,), 0), ((0, 3), (0, 3), 1), ((3, 2), (3, 2), -2)]:  # fmt: skip
            a = torch.tensor(rng.standard_normal(sa) * 1e3).to(dt)
            c = torch.tensor(rng.standard_normal(sb) * 1e3).to(dt)
            for p, q in ((a, c), (a.mT.contiguous().mT if a.ndim > 1 else a, c)):
                want = _outcome(lb.body, p, q, d, None)
                _same(_outcome(lb.fast[0], p, q, d), want)
                _same(_outcome(lambda u, v, d=d: torch.cross(u, v, dim=d), p, q), want)


def test_outer_fast_call_matches_the_op_and_skips_it(monkeypatch):
    for name in ("outer", "ger"):
        b, m = _binding(name), _binding(name, "Tensor")
        for x, y in [(_t(3), _t(4, start=2)), (_t(5, dtype=torch.float64), _t(2, dtype=torch.float64)), (_t(6)[::2], _t(3)),
                     (_t(3), _t(4, dtype=torch.float64)), (_t(3, dtype=torch.int64), _t(2, dtype=torch.int64)), (_t(0), _t(3)),
                     (_t(2, 2), _t(3)), (_t(3), _t()), (_t(64), _t(64)), (_t(70), _t(70))]:  # fmt: skip
            want = _outcome(b.body, x, y, None)
            _same(_outcome(getattr(torch, name), x, y), want)
            _same(_outcome(b.fast[0], x, y), want)
            _same(_outcome(m.fast[0], x, y), want)
            _same(_outcome(lambda p, q, name=name: getattr(p, name)(q), x, y), want)
    x = torch.tensor([1e30, -0.0, float("nan")])
    _same(torch.outer(x, x), _binding("outer").body(x, x, None))

    def spy(*a, **k):
        raise AssertionError("the op ran")

    monkeypatch.setattr(LC._OUTER[0], "fast", spy)
    assert torch.outer(_t(3), _t(4)).shape == (3, 4) and _t(3).outer(_t(4)).shape == (3, 4)
    for a, c in ((_t(3), _t(4, dtype=torch.float64)), (_t(3).requires_grad_(), _t(4)), (_t(70), _t(70))):
        with pytest.raises(AssertionError, match="the op ran"):
            torch.outer(a, c)
    with pytest.raises(AssertionError, match="the op ran"), LoggingTensorMode():
        torch.outer(_t(3), _t(4))


def test_small_trace_adds_the_diagonal_without_np_trace(monkeypatch):
    import types

    def spy(*a, **k):
        raise AssertionError("np.trace's route ran")

    monkeypatch.setattr(FS, "np", types.SimpleNamespace(array=np.array, asarray=spy))
    assert torch.trace(_t(3, 3)).item() == _t(3, 3).numpy().trace()
    assert torch.trace(_t(7, 9, dtype=torch.float64)).dtype is torch.float64
    for x in (_t(8, 8), torch.tensor([[float("nan"), 0.0], [0.0, 1.0]])):  # 8 values, a NaN: np.trace
        with pytest.raises(AssertionError, match="np.trace's route ran"):
            torch.trace(x)
