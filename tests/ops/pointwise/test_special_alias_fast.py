"""torch.special's aliases of torch functions (special.erf, expit, gammaln, ...: extra.py's
_special_alias) call the target's op directly for plain Tensors (Note [Binding fast call]), as
numtorch.<target> does: the same values, dtype and errors as the body; out=, a dispatch mode, a
gradient to record and forward AD still take the body."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops._registry import BINDINGS
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs

ALIASES = {"erf": "erf", "erfc": "erfc", "exp2": "exp2", "expm1": "expm1", "log1p": "log1p", "expit": "sigmoid",
           "gammaln": "lgamma", "digamma": "digamma", "psi": "digamma", "erfinv": "erfinv", "sinc": "sinc",
           "logit": "logit"}  # fmt: skip


def _binding(name):
    (b,) = [b for b in BINDINGS if b.module == "torch.special" and b.name == name]
    return b


def _outcome(fn, *args, **kw):
    try:
        return fn(*args, **kw)
    except Exception as e:  # noqa: BLE001  (both routes must raise alike)
        return (type(e), str(e))


def _inputs():
    yield torch.tensor([0.25, 0.5, 0.75, 1.5])
    yield torch.tensor([[0.1, 0.2], [0.3, 0.4]], dtype=torch.float64).t()  # non-contiguous
    yield torch.tensor(0.5)
    yield torch.tensor([1, 2, 3])  # integer: promoted
    yield torch.zeros(0, 3)
    yield torch.tensor([True, False])


@pytest.mark.parametrize("name", sorted(ALIASES))
def test_fast_call_installed_and_matches_body(name):
    b = _binding(name)
    assert b.fast is not None  # the route exists
    fn = getattr(torch.special, name)
    extra = (None,) if name == "logit" else ()
    for x in _inputs():
        r, want = _outcome(fn, x), _outcome(b.body, x, *extra, None)
        if isinstance(want, tuple):
            assert r == want
            continue
        assert r.dtype == want.dtype and r.shape == want.shape and r.stride() == want.stride()
        np.testing.assert_array_equal(r.numpy(), want.numpy())
        np.testing.assert_array_equal(r.numpy(), getattr(torch, ALIASES[name])(x).numpy())


@pytest.mark.parametrize("name", sorted(ALIASES))
def test_bad_arguments_raise_as_the_body(name):
    fn = getattr(torch.special, name)
    r = _outcome(fn, [0.5])
    assert r[0] is TypeError and "must be Tensor" in r[1]


def test_out_mode_grad_and_forward_ad_take_the_body():
    x = torch.tensor([0.25, 0.5], dtype=torch.float64)
    out = torch.empty(2, dtype=torch.float64)
    assert torch.special.erf(x, out=out) is out
    np.testing.assert_array_equal(out.numpy(), torch.erf(x).numpy())
    with capture_logs(is_mode=True) as logs, LoggingTensorMode():
        torch.special.expit(x), torch.special.gammaln(x)
    seen = " ".join(logs)
    assert "aten.sigmoid" in seen and "aten.lgamma" in seen
    w = x.clone().requires_grad_(True)
    for name in sorted(ALIASES):
        f = getattr(torch.special, name)
        assert f(w).grad_fn is not None
        assert torch.autograd.gradcheck(f, (w,))
    import numtorch.autograd.forward_ad as fwAD

    with fwAD.dual_level():
        d = fwAD.make_dual(x, torch.ones(2, dtype=torch.float64))
        t = fwAD.unpack_dual(torch.special.erf(d)).tangent
    np.testing.assert_allclose(t.numpy(), 2 / np.sqrt(np.pi) * np.exp(-x.numpy() ** 2), rtol=1e-14)
