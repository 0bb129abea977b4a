"""Note [Addprod fast calls]: bmm, addmm, addmv, baddbmm, addbmm and F.linear's fast calls give
their bodies' results (values, dtype, shape, strides, errors); plain calls take the fast route,
and modes, gradients, forward AD, autocast, out= and subclasses take the op."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
import numtorch.autograd.forward_ad as fwAD
import numtorch.nn.functional as NF
from numtorch.ops.linalg import core as LC
from numtorch.ops.nn import layers as NL
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs

from .._fastcall import binding as _binding
from .._fastcall import outcome as _outcome
from .._fastcall import same as _same

_RNG = np.random.default_rng(15)


def _t(*shape, dtype=torch.float32, special=False):
    a = _RNG.standard_normal(shape) * 10.0 ** _RNG.integers(-3, 4, shape)
    if special and a.size:
        a.flat[: min(3, a.size)] = [np.nan, np.inf, -0.0][: min(3, a.size)]
    return torch.tensor(a).to(dtype)


_F64 = torch.float64


def _bmm_cases():
    yield _t(2, 2, 3), _t(2, 3, 4)
    yield _t(3, 4, 5, dtype=_F64), _t(3, 5, 2, dtype=_F64, special=True)
    yield _t(2, 3, 2).transpose(1, 2), _t(2, 2, 4)  # strided: the same matmul
    yield _t(3, 2, 2).transpose(0, 1), _t(2, 2, 3)
    yield _t(3, 2, 2).permute(2, 1, 0), _t(4, 3, 2, dtype=torch.float32).permute(2, 1, 0)  # Fortran order
    yield _t(2, 2, 1), _t(2, 1, 4)  # k = 1: the op
    yield _t(2, 0, 3), _t(2, 3, 4)  # empty: the op
    yield _t(2, 2, 3), _t(2, 3, 4, dtype=_F64)  # dtypes differ: the op's error
    yield _t(2, 2, 3), _t(3, 3, 4)  # batch sizes differ
    yield _t(2, 3), _t(3, 4)  # 2-D
    yield _t(2, 2, 3, dtype=torch.int64), _t(2, 3, 4, dtype=torch.int64)
    yield _t(2, 2, 3, dtype=torch.float16), _t(2, 3, 4, dtype=torch.float16)


def _check(name, cases, module="torch", star=None):
    """Public call, method and the fast call itself against the body, over ``cases``."""
    b = _binding(name, module)
    fn = getattr(torch, name) if module == "torch" else getattr(NF, name)
    m = _binding(name, "Tensor") if module == "torch" else None
    for args, kw in cases:
        want = (
            _outcome(b.body, *args, *kw.values(), None)
            if module == "torch"
            else _outcome(b.body, *args)
        )
        _same(_outcome(lambda *a, kw=kw: fn(*a, **kw), *args), want)
        _same(_outcome(b.fast[0], *args, *kw.values()), want)
        if m is not None:
            _same(_outcome(lambda s, *a, kw=kw: getattr(s, name)(*a, **kw), *args), want)
            _same(_outcome(m.fast[0], *args, *kw.values()), want)


def test_bmm_fast_call_matches_body():
    _check("bmm", [((x, y), {}) for x, y in _bmm_cases()])


def test_baddbmm_fast_call_matches_body():
    cases = []
    for x, y in _bmm_cases():
        shape = (x.shape[0], x.shape[1], y.shape[-1]) if x.ndim == 3 and y.ndim == 3 else (2, 2)
        cases.append(((_t(*shape, dtype=y.dtype, special=True), x, y), {"beta": 1, "alpha": 1}))
    x, y = _t(2, 2, 3), _t(2, 3, 4)
    for s in (_t(2, 2, 4), _t(4), _t(2, 1, 4), _t(2, 4, 2).transpose(1, 2)):
        for beta, alpha in ((1, 1), (2, 1), (1, 0.5), (1.0, 1), (True, 1), (0, 1)):
            cases.append(((s, x, y), {"beta": beta, "alpha": alpha}))
    cases.append(((_t(2, 2, 4, dtype=_F64), x, y), {"beta": 1, "alpha": 1}))
    _check("baddbmm", cases)


def test_bmm_result_in_another_layout_is_recomputed_in_the_bodys(monkeypatch):
    # Note [Dot's own result]: np.matmul's own result is C-ordered for these operands; were it
    # not, the fast call computes into a C-ordered array as the body does (same strides, bits)
    from numtorch.ops.linalg import _fast_products as FP

    real, seen = np.matmul, []

    def fortran_first(x, y, *a, **k):
        if a or k:
            return real(x, y, *a, **k)
        seen.append(1)
        return np.asfortranarray(real(x, y) + 1)  # wrong values in another layout

    monkeypatch.setattr(FP, "_matmul", fortran_first)
    _check("bmm", [((x, y), {}) for x, y in list(_bmm_cases())[:4]])
    assert seen


def _mm_pairs():
    yield _t(2, 3), _t(3, 4)
    yield _t(4, 5, dtype=_F64, special=True), _t(5, 2, dtype=_F64)
    yield _t(3, 2).t(), _t(4, 3).t()  # Fortran order: np.dot takes it as it is
    yield _t(2, 6)[:, ::2], _t(3, 4)  # strided: the op (np.matmul)
    yield _t(2, 1), _t(1, 4)  # k = 1: the op
    yield _t(0, 3), _t(3, 4)
    yield _t(2, 3), _t(3, 4, dtype=_F64)
    yield _t(2, 3), _t(2, 4)
    yield _t(2, 3, dtype=torch.int32), _t(3, 4, dtype=torch.int32)


def test_addmm_fast_call_matches_body():
    cases = []
    for x, y in _mm_pairs():
        n, m = x.shape[0], y.shape[-1]
        for s in (_t(n, m, dtype=y.dtype, special=True), _t(m, dtype=y.dtype), _t(1, m, dtype=y.dtype), _t(n, 1, dtype=y.dtype),
                  _t(dtype=y.dtype), _t(m, n, dtype=y.dtype).t()):  # fmt: skip
            cases.append(((s, x, y), {"beta": 1, "alpha": 1}))
    x, y, s = _t(2, 3), _t(3, 4), _t(2, 4)
    for beta, alpha in ((2, 1), (1, 3), (1.0, 1), (1, True), (0, 1)):
        cases.append(((s, x, y), {"beta": beta, "alpha": alpha}))
    cases.append(((_t(2, 4, dtype=_F64), x, y), {"beta": 1, "alpha": 1}))
    cases.append(((_t(3, 4), x, y), {"beta": 1, "alpha": 1}))
    _check("addmm", cases)


def test_addmv_fast_call_matches_body():
    cases = []
    for a, v in ((_t(2, 3), _t(3)), (_t(4, 5, dtype=_F64, special=True), _t(5, dtype=_F64)), (_t(3, 2).t(), _t(3)),
                 (_t(2, 3), _t(6)[::2]), (_t(2, 1), _t(1)), (_t(0, 3), _t(3)), (_t(2, 3), _t(3, dtype=_F64)),
                 (_t(2, 3), _t(4)), (_t(2, 3, 3), _t(3))):  # fmt: skip
        for s in (
            _t(a.shape[0], dtype=v.dtype),
            _t(1, dtype=v.dtype),
            _t(dtype=v.dtype),
            _t(4, dtype=v.dtype)[::2],
        ):
            cases.append(((s, a, v), {"beta": 1, "alpha": 1}))
    a, v, s = _t(2, 3), _t(3), _t(2)
    for beta, alpha in ((2, 1), (1, 0.5), (0, 1), (1, 1.0)):
        cases.append(((s, a, v), {"beta": beta, "alpha": alpha}))
    _check("addmv", cases)


def test_addbmm_fast_call_matches_body():
    cases = []
    for x, y in _bmm_cases():
        shape = (x.shape[1], y.shape[-1]) if x.ndim == 3 and y.ndim == 3 else (2, 4)
        for s in (_t(*shape, dtype=y.dtype, special=True), _t(shape[-1], dtype=y.dtype)):
            cases.append(((s, x, y), {"beta": 1, "alpha": 1}))
    x, y = _t(3, 2, 3), _t(3, 3, 4)
    cases.append(((_t(2, 4), _t(3, 3, 2).transpose(1, 2), y), {"beta": 1, "alpha": 1}))
    cases.append(((_t(2, 4), x, _t(3, 4, 3).transpose(1, 2)), {"beta": 1, "alpha": 1}))
    for beta, alpha in ((2, 1), (1, 0.5), (0, 1)):
        cases.append(((_t(2, 4), x, y), {"beta": beta, "alpha": alpha}))
    _check("addbmm", cases)


def test_linear_fast_call_matches_body():
    cases = []
    for x, w in ((_t(3, 4), _t(2, 4)), (_t(5, 3, dtype=_F64, special=True), _t(4, 3, dtype=_F64)), (_t(4, 3).t(), _t(2, 3)),
                 (_t(3, 8)[:, ::2], _t(2, 4)), (_t(3, 1), _t(2, 1)), (_t(0, 4), _t(2, 4)), (_t(3, 4), _t(2, 4, dtype=_F64)),
                 (_t(3, 4), _t(2, 5)), (_t(2, 3, 4), _t(2, 4)), (_t(4), _t(2, 4))):  # fmt: skip
        for bias in (_t(w.shape[0], dtype=w.dtype), _t(x.shape[0], w.shape[0], dtype=w.dtype), _t(1, dtype=w.dtype), None,
                     _t(3, dtype=w.dtype)):  # fmt: skip
            cases.append(((x, w, bias), {}))
    _check("linear", cases, module="torch.nn.functional")


def test_bilinear_fast_call_matches_body():
    cases = []
    for x1, x2, w in ((_t(3, 2), _t(3, 3), _t(4, 2, 3)), (_t(5, 3, dtype=_F64, special=True), _t(5, 2, dtype=_F64), _t(2, 3, 2, dtype=_F64)),
                      (_t(2, 3).t(), _t(3, 4)[:, ::2], _t(2, 2, 2)), (_t(3, 1), _t(3, 1), _t(2, 1, 1)), (_t(1, 2), _t(1, 3), _t(1, 2, 3)),
                      (_t(0, 2), _t(0, 3), _t(4, 2, 3)), (_t(3, 2), _t(3, 3), _t(4, 2, 3, dtype=_F64)), (_t(3, 2), _t(4, 3), _t(4, 2, 3)),
                      (_t(3, 2), _t(3, 3), _t(4, 3, 3)), (_t(2, 3, 2), _t(2, 3, 3), _t(4, 2, 3)), (_t(2), _t(3), _t(4, 2, 3)),
                      (_t(3, 2), _t(3, 3), _t(4, 2, 3, 1))):  # fmt: skip
        for bias in (_t(w.shape[0], dtype=w.dtype, special=True), None, _t(1, dtype=w.dtype), _t(3, w.shape[0], dtype=w.dtype),
                     _t(w.shape[0], dtype=torch.float64 if w.dtype is torch.float32 else torch.float32)):  # fmt: skip
            cases.append(((x1, x2, w, bias), {}))
    _check("bilinear", cases, module="torch.nn.functional")
    _check("bilinear", cases[:3], module="torch.nn.functional")
    r = NF.bilinear(_t(3, 2), _t(3, 3), _t(4, 2, 3), _t(4))
    assert r._base is None and r.is_contiguous()  # as PyTorch's: not a view


def _spy(*a, **k):
    raise AssertionError("the op ran")


_OPS = {"bmm": LC._BMM[0], "addmm": LC._ADDMM[0], "addmv": LC._ADDMV[0], "baddbmm": LC._BADDBMM[0],
        "addbmm": LC._ADDBMM[0], "linear": NL.linear, "bilinear": NL.bilinear}  # fmt: skip


def _calls():
    return {
        "bmm": lambda: (torch.bmm(_t(2, 2, 3), _t(2, 3, 4)), _t(2, 2, 3).bmm(_t(2, 3, 4))),
        "addmm": lambda: (
            torch.addmm(_t(4), _t(2, 3), _t(3, 4)),
            _t(2, 4).addmm(_t(2, 3), _t(3, 4)),
        ),
        "addmv": lambda: (torch.addmv(_t(2), _t(2, 3), _t(3)), _t(2).addmv(_t(2, 3), _t(3))),
        "baddbmm": lambda: torch.baddbmm(_t(2, 2, 4), _t(2, 2, 3), _t(2, 3, 4)),
        "addbmm": lambda: torch.addbmm(_t(2, 4), _t(3, 2, 3), _t(3, 3, 4)),
        "linear": lambda: NF.linear(_t(3, 4, dtype=_F64), _t(2, 4, dtype=_F64), _t(2, dtype=_F64)),
        "bilinear": lambda: (NF.bilinear(_t(3, 2), _t(3, 3), _t(4, 2, 3), _t(4)),
                             torch.bilinear(_t(3, 2, dtype=_F64), _t(3, 3, dtype=_F64), _t(4, 2, 3, dtype=_F64), _t(4, dtype=_F64))),
    }


@pytest.mark.parametrize("name", sorted(_OPS))
def test_plain_calls_take_the_fast_route(monkeypatch, name):
    call = _calls()[name]
    monkeypatch.setattr(_OPS[name], "fast", _spy)
    call()  # no AssertionError: the op's fast path did not run
    with pytest.raises(AssertionError, match="the op ran"):  # the spy is live
        with torch.autocast("cpu", dtype=torch.bfloat16):
            call()


@pytest.mark.parametrize("name", sorted(_OPS))
def test_modes_grad_forward_ad_autocast_and_subclasses_take_the_op(name):
    call = _calls()[name]
    with capture_logs(is_mode=True) as logs, LoggingTensorMode():
        call()
    assert "aten." in " ".join(logs)
    # unit-scale values (a generator of the test's own: gradcheck's finite differences)
    rng = np.random.default_rng(16)
    shapes = {"bmm": ((2, 2, 3), (2, 3, 4)), "addmm": ((2, 4), (2, 3), (3, 4)), "addmv": ((2,), (2, 3), (3,)),
              "baddbmm": ((2, 2, 4), (2, 2, 3), (2, 3, 4)), "addbmm": ((2, 4), (3, 2, 3), (3, 3, 4)),
              "linear": ((3, 4), (2, 4), (2,)), "bilinear": ((3, 2), (3, 3), (4, 2, 3), (4,))}[name]  # fmt: skip
    args = tuple(torch.tensor(rng.standard_normal(sh)) for sh in shapes)
    fn = getattr(NF, name) if name in ("linear", "bilinear") else getattr(torch, name)
    for i in range(len(args)):  # gradients, and gradcheck of each operand through the public call
        leaves = [a.clone().requires_grad_(j == i) for j, a in enumerate(args)]
        assert fn(*leaves).grad_fn is not None
        assert torch.autograd.gradcheck(lambda a, i=i, leaves=leaves: fn(*leaves[:i], a, *leaves[i + 1 :]),
                                        (leaves[i],))  # fmt: skip
    with fwAD.dual_level():
        d = fwAD.make_dual(args[1], torch.ones_like(args[1]))
        t = fwAD.unpack_dual(fn(args[0], d, *args[2:])).tangent
        assert t is not None and float(t.abs().sum()) > 0
    with torch.autocast("cpu", dtype=torch.bfloat16):
        r = fn(*(a.float() for a in args))
    # the autocast key's cast (addmv has no CPU autocast rule; bilinear's float32 mul promotes
    # its matmul's bfloat16; test_plain_calls_take_the_fast_route sees the op run): the op ran
    assert r.dtype is (torch.float32 if name in ("addmv", "bilinear") else torch.bfloat16)

    class Sub(torch.Tensor):
        pass

    assert type(fn(args[0].as_subclass(Sub), *args[1:])) is Sub


@pytest.mark.parametrize("name", ["bmm", "addmm", "addmv", "baddbmm", "addbmm"])
def test_out_takes_the_op(name):
    call = {"bmm": (_t(2, 2, 3), _t(2, 3, 4)), "addmm": (_t(4), _t(2, 3), _t(3, 4)), "addmv": (_t(2), _t(2, 3), _t(3)),
            "baddbmm": (_t(2, 2, 4), _t(2, 2, 3), _t(2, 3, 4)), "addbmm": (_t(2, 4), _t(3, 2, 3), _t(3, 3, 4))}[name]  # fmt: skip
    fn = getattr(torch, name)
    out = torch.empty(0)
    assert fn(*call, out=out) is out
    _same(out, fn(*call))


def test_matrix_power_fast_call_matches_body(monkeypatch):
    for name, module in (("matrix_power", "torch"), ("matrix_power", "torch.linalg")):
        b = _binding(name, module)
        fn = getattr(torch, name) if module == "torch" else torch.linalg.matrix_power
        for x in (_t(3, 3), _t(4, 4, dtype=_F64, special=True), _t(3, 3).t(), _t(6, 6)[::2, ::2], _t(1, 1), _t(2, 3, 3),
                  _t(2, 3), _t(3, 3, dtype=torch.int64), _t(0, 0)):  # fmt: skip
            for n in (2, 3, 4, 5, 7, 8, 1, 0, -2, True):
                want = _outcome(b.body, x, n, None)
                _same(_outcome(fn, x, n), want)
                _same(_outcome(b.fast[0], x, n), want)
    op = LC.OPS["aten::linalg_matrix_power"]
    monkeypatch.setattr(op, "fast", _spy)
    x = _t(3, 3)
    torch.linalg.matrix_power(x, 3)
    for a, n in ((x, -1), (x.requires_grad_(), 2), (_t(2, 3, 3), 2)):
        with pytest.raises(AssertionError, match="the op ran"):
            torch.linalg.matrix_power(a, n)
