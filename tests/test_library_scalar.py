"""numtorch.library's scalar-function routes beyond first order: double backward of
``elementwise`` and the ``reduction`` counterpart."""

from __future__ import annotations

import math
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import numtorch
from numtorch.autograd import gradcheck, gradgradcheck
from numtorch.library import elementwise, opcheck, reduction
from numtorch.utils._python_dispatch import TorchDispatchMode

from . import _library_ops as L

_COUNTER = [0]


def _ns() -> str:
    _COUNTER[0] += 1
    return f"libscalar{_COUNTER[0]}"


def _f64(*shape):
    return numtorch.randn(*shape, dtype=numtorch.float64, requires_grad=True)


# ---- elementwise: double backward ---------------------------------------------------------------
def test_elementwise_gradgradcheck_one_operand():
    sp = elementwise(f"{_ns()}::softplus", L.softplus, derivative=L.dsoftplus, second_derivative=L.d2softplus)
    x = _f64(6)
    assert gradcheck(lambda t: sp(t, 1.5), (x,))
    assert gradgradcheck(lambda t: sp(t, 1.5), (x,))
    # the second derivative's values against NumPy: d/dx (dsoftplus(x) * g) with g = 1
    (g,) = numtorch.autograd.grad(sp(x).sum(), x, create_graph=True)
    (h,) = numtorch.autograd.grad(g.sum(), x)
    s = 1 / (1 + np.exp(-x.detach().numpy()))
    np.testing.assert_allclose(h.numpy(), s * (1 - s))


def test_elementwise_gradgradcheck_two_operands_with_broadcasting():
    ms = elementwise(f"{_ns()}::mulsin", L.mulsin, derivative={"a": L.dmulsin_a, "b": L.dmulsin_b},
                     second_derivative={("a", "a"): L.zero2, ("a", "b"): L.d2mulsin_ab, "b": L.d2mulsin_bb})  # fmt: skip
    a, b = _f64(3, 1), _f64(4)
    np.testing.assert_allclose(ms(a, b).detach().numpy(), a.detach().numpy() * np.sin(b.detach().numpy()))
    assert gradcheck(ms, (a, b))
    assert gradgradcheck(ms, (a, b))


def test_elementwise_second_order_errors():
    ns = _ns()
    sp = elementwise(f"{ns}::softplus", L.softplus, derivative=L.dsoftplus)
    x = _f64(3)
    (g,) = numtorch.autograd.grad(sp(x).sum(), x, create_graph=True)
    with pytest.raises(RuntimeError, match=rf"{ns}::softplus: no second derivative was given for \(x, x\)"):
        g.sum().backward()
    sp2 = elementwise(f"{ns}::softplus2", L.softplus, derivative=L.dsoftplus, second_derivative=L.d2softplus)
    (g,) = numtorch.autograd.grad(sp2(x).sum(), x, create_graph=True)
    (h,) = numtorch.autograd.grad(g.sum(), x, create_graph=True)
    with pytest.raises(RuntimeError, match="differentiates a scalar function at most twice"):
        h.sum().backward()
    with pytest.raises(ValueError, match="not a pair of operands"):
        elementwise(f"{ns}::bad2", L.softplus, derivative=L.dsoftplus, second_derivative={("x", "y"): L.d2softplus})
    with pytest.raises(ValueError, match="second_derivative needs derivative="):
        elementwise(f"{ns}::bad3", L.softplus, second_derivative=L.d2softplus)


# ---- reduction ----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def absmax():
    return reduction(f"{_ns()}::absmax", L.absmax, identity=0.0)


@pytest.fixture(scope="module")
def lse():
    return reduction(f"{_ns()}::lse", L.logaddexp, identity=-math.inf, backward=lambda x, r, g: g * (x - r).exp())


def _np_absmax(a, axis=None, keepdims=False):
    return np.abs(a).max(axis=axis, keepdims=keepdims)


@pytest.mark.parametrize("dim", [None, 0, 1, -1, [0, 2], (2, 0, 1), []])
@pytest.mark.parametrize("keepdim", [False, True])
def test_reduction_dims_against_numpy(absmax, dim, keepdim):
    x = numtorch.randn(3, 4, 5, dtype=numtorch.float64)
    axis = None if dim is None or dim == [] else tuple(dim) if isinstance(dim, (list, tuple)) else dim
    r = absmax(x, dim, keepdim) if dim is not None else absmax(x, keepdim=keepdim)
    np.testing.assert_array_equal(r.numpy(), _np_absmax(x.numpy(), axis, keepdim))
    assert r.dtype == numtorch.float64


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "int16", "uint8", "float16"])
def test_reduction_keeps_the_input_dtype(absmax, dtype):
    x = numtorch.tensor([[1, 7, 0], [2, 0, 5]]).to(getattr(numtorch, dtype))
    r = absmax(x, 1)
    assert r.dtype == x.dtype and r.tolist() == [7, 5]


def test_reduction_strided_large_and_out(absmax):
    x = numtorch.randn(6, 8, dtype=numtorch.float64)
    for v in (x.t(), x[:, ::3], x[::2].t()):
        np.testing.assert_array_equal(absmax(v, 0).numpy(), _np_absmax(v.numpy(), 0))
    big = numtorch.randn(1 << 20)  # above the parallel threshold: the parallel kernels
    assert absmax(big).item() == _np_absmax(big.numpy())
    cols = numtorch.randn(512, 2048)
    np.testing.assert_array_equal(absmax(cols, 0).numpy(), _np_absmax(cols.numpy(), 0))
    out = numtorch.empty(6)
    assert absmax(x.float(), 1, out=out) is out
    np.testing.assert_array_equal(out.numpy(), _np_absmax(x.float().numpy(), 1))
    with pytest.raises(RuntimeError, match="Expected the dtype for input and out to match, but got Double"):
        absmax(x, 1, out=numtorch.empty(6))


def test_reduction_empty_uses_the_identity_or_refuses(absmax, lse):
    assert absmax(numtorch.empty(0, 3), 0).tolist() == [0.0, 0.0, 0.0]
    assert lse(numtorch.empty(2, 0), 1).tolist() == [-math.inf, -math.inf]
    ns = _ns()
    noid = reduction(f"{ns}::amx", L.absmax)
    with pytest.raises(IndexError, match=r"amx\(\): Expected reduction dim 1 to have non-zero size."):
        noid(numtorch.empty(2, 0), 1)
    with pytest.raises(IndexError, match="Expected reduction dim to be specified for input.numel\\(\\) == 0"):
        noid(numtorch.empty(0))
    assert noid(numtorch.empty(0, 2), 1).shape == (0,)


def test_reduction_gradcheck_and_gradgradcheck(lse):
    y = numtorch.randn(3, 4, 5, dtype=numtorch.float64, requires_grad=True)
    ref = np.log(np.exp(y.detach().numpy()).sum(axis=(0, 2)))
    np.testing.assert_allclose(lse(y, [0, 2]).detach().numpy(), ref, rtol=1e-12)
    assert gradcheck(lambda t: lse(t, [0, 2]), (y,))
    assert gradcheck(lambda t: lse(t), (y,))
    assert gradgradcheck(lambda t: lse(t, 1, True), (y,))


def test_reduction_without_backward_raises_at_backward(absmax):
    x = numtorch.randn(3, requires_grad=True)
    r = absmax(x)
    assert r.requires_grad
    with pytest.raises(RuntimeError, match="absmax: no backward was given; pass backward="):
        r.backward()
    absmax2 = reduction(f"{_ns()}::absmax", L.absmax, identity=0.0)
    absmax2.register_autograd(lambda x, r, g: g * (x.abs() == r) * x.sign())
    absmax2(x).backward()
    assert x.grad.abs().sum().item() == 1.0


def test_reduction_bad_declarations_and_typing_error():
    ns = _ns()
    with pytest.raises(TypeError, match="exactly two accumulators"):
        reduction(f"{ns}::a", L.softplus)
    with pytest.raises(TypeError, match="identity must be an int, float, bool or None"):
        reduction(f"{ns}::b", L.absmax, identity="0")
    with pytest.raises(ValueError, match="namespace::name"):
        reduction("noname", L.absmax)
    bad = reduction(f"{ns}::bad", L.bad_combine, identity=0)
    with pytest.raises(RuntimeError, match=rf"{ns}::bad: the combine function 'bad_combine' failed to compile for inputs of dtype Float"):
        bad(numtorch.ones(2))


def test_reduction_is_an_op_modes_see(absmax):
    seen = []

    class Log(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))

    with Log():
        absmax(numtorch.ones(2), 0)
    assert seen[-1].endswith("absmax.default")
    assert numtorch.Tag.reduction in absmax.default.tags


def test_reduction_kernels_hit_disk_cache_in_second_process(tmp_path):
    script = textwrap.dedent(
        """
        import sys
        sys.path.insert(0, %r)
        import numtorch
        from tests import _library_ops as L
        am = numtorch.library.reduction("cachetest::absmax", L.absmax, identity=0.0)
        am(numtorch.ones(3))
        k = am.default.impls["cpu"].comb.module().row
        print(sum(k.stats.cache_hits.values()), sum(k.stats.cache_misses.values()))
        """
    ) % os.getcwd()
    env = {**os.environ, "NUMTORCH_KERNEL_CACHE": str(tmp_path / "k"), "NUMBA_CACHE_DIR": str(tmp_path / "n")}
    runs = [subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=os.getcwd()) for _ in range(2)]
    for r in runs:
        assert r.returncode == 0, r.stderr
    first, second = (tuple(map(int, r.stdout.split())) for r in runs)
    assert first == (0, 1) and second == (1, 0), (first, second)


def test_scalar_routes_run_on_the_meta_device(absmax):
    sp = elementwise(f"{_ns()}::softplus", L.softplus, derivative=L.dsoftplus)
    m = numtorch.empty(3, 1, device="meta")
    r = sp(m, 2.0)
    assert r.device.type == "meta" and r.shape == (3, 1) and r.dtype == numtorch.float32
    assert sp(numtorch.empty(2, device="meta", dtype=numtorch.int64)).dtype == numtorch.float32
    o = numtorch.empty(0, device="meta")
    assert sp(m, out=o) is o and o.shape == (3, 1)
    assert sp.inplace(m) is m
    assert sp.backward_ops["x"](numtorch.empty(4, device="meta"), m).shape == (3, 4)
    x = numtorch.empty(3, 4, device="meta", dtype=numtorch.float64)
    assert absmax(x, 1).shape == (3,) and absmax(x, [0, 1], True).shape == (1, 1)
    assert absmax(x, 1).dtype == numtorch.float64 and absmax(x, 1).device.type == "meta"
    o = numtorch.empty(0, device="meta", dtype=numtorch.float64)
    assert absmax(x, 0, out=o) is o and o.shape == (4,)
    noid = reduction(f"{_ns()}::amx", L.absmax)
    with pytest.raises(IndexError, match=r"amx\(\): Expected reduction dim 1 to have non-zero size."):
        noid(numtorch.empty(3, 0, device="meta"), 1)


def test_reduction_plain_sum_gets_the_vectorised_leaf():
    add = reduction(f"{_ns()}::add", L.add, identity=0)
    assert add.default.impls["cpu"].comb.comb == "a + b"  # the built-in sum's reassoc leaf
    assert reduction(f"{_ns()}::absmax", L.absmax).default.impls["cpu"].comb.comb.endswith("(a, b)")
    ones = numtorch.ones(10_000_000)  # float32: pairwise leaves keep the sum exact
    assert add(ones).item() == 10_000_000.0
    for dt in ("int16", "uint8", "bool", "float16", "int32"):
        x = numtorch.tensor([[1, 3, 0], [2, 0, 1]]).to(getattr(numtorch, dt))
        ref = x.numpy().astype(np.int64).sum(1).astype(x.numpy().dtype)
        assert add(x, 1).dtype == x.dtype and add(x, 1).tolist() == ref.tolist()


def test_opcheck_accepts_the_scalar_routes(lse):
    sp = elementwise(f"{_ns()}::softplus", L.softplus, derivative=L.dsoftplus)
    x = _f64(3, 4)
    assert set(opcheck(sp, (x, 2.0)).values()) == {"SUCCESS"}
    assert set(opcheck(lse, (x, 1, True)).values()) == {"SUCCESS"}
    assert set(opcheck(lse.default, (x,)).values()) == {"SUCCESS"}
    noback = reduction(f"{_ns()}::absmax", L.absmax)
    res = opcheck(noback, (x, 1), raise_exception=False)
    assert "no autograd formula was registered" in str(res["test_autograd_registration"])
    assert res["test_faketensor"] == "SUCCESS"


# ---- Note [User math is vectorized as the built-ins'] ----------------------------------------
def _vm_softplus(x, beta=1.0):
    return math.log1p(math.exp(beta * x)) / beta + np.tanh(x) * math.asin(0.5)


def _vm_kept(x):
    y = math.log(x, 2.0) + math.sqrt(x)  # two-argument log, and sqrt (no helper): unchanged
    return y


def _vm_shadow(x, math=2.0):
    return x * math


def test_user_math_calls_the_vectorizable_helpers():
    from numtorch.kernels._codegen_user import user_function_source

    src, _ = user_function_source(_vm_softplus, "u", vector_math=True)
    assert "vlog1p(vexp(beta * x)) / beta + vtanh(x) * varcsin(0.5)" in src
    assert "math.exp" in user_function_source(_vm_softplus, "u")[0]  # the reduction route's default
    kept, _ = user_function_source(_vm_kept, "u", vector_math=True)
    assert "math.log(x, 2.0) + math.sqrt(x)" in kept
    assert "x * math" in user_function_source(_vm_shadow, "u", vector_math=True)[0]


def test_user_math_vectorized_values():
    # float64 only: the helpers' float32 accuracy is the built-ins' (tests/ops), compiling costs
    op = elementwise(f"{_ns()}::vm_softplus", _vm_softplus)
    x = numtorch.linspace(-30, 30, 101, dtype=numtorch.float64)
    a = x.numpy()
    ref = np.log1p(np.exp(a)) + np.tanh(a) * math.asin(0.5)
    np.testing.assert_allclose(op(x).numpy(), ref, rtol=1e-14, atol=1e-14)
