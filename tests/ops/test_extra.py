"""numtorch/ops/extra.py, windows.py and tensor_extra.py against NumPy, gradcheck and PyTorch's errors."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch.autograd import gradcheck

F64 = numtorch.float64


def _r(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


@pytest.mark.parametrize("interp", ["linear", "lower", "higher", "midpoint", "nearest"])
@pytest.mark.parametrize("dim,keepdim", [(None, False), (1, False), (0, True), (None, True)])
def test_quantile_matches_numpy(interp, dim, keepdim):
    a = _r(4, 7)
    q = np.array([0.0, 0.3, 0.5, 1.0])
    got = numtorch.quantile(numtorch.tensor(a), numtorch.tensor(q), dim=dim, keepdim=keepdim, interpolation=interp)
    np.testing.assert_allclose(got.numpy(), np.quantile(a, q, axis=dim, keepdims=keepdim, method=interp), rtol=1e-12)
    a[1, 2] = np.nan
    got = numtorch.nanquantile(numtorch.tensor(a), 0.4, dim=dim, keepdim=keepdim, interpolation=interp)
    np.testing.assert_allclose(got.numpy(), np.nanquantile(a, 0.4, axis=dim, keepdims=keepdim, method=interp), rtol=1e-12)
    assert np.isnan(numtorch.quantile(numtorch.tensor(a), 0.4).item())


def test_quantile_grad_and_errors():
    x = numtorch.tensor(_r(3, 5), requires_grad=True)
    assert gradcheck(lambda t: numtorch.quantile(t, numtorch.tensor([0.2, 0.7], dtype=F64), dim=1), (x,))
    for call, text in [
        (lambda: numtorch.quantile(numtorch.ones(3), 1.5), r"q must be in the range \[0, 1\] but got 1.5"),
        (lambda: numtorch.quantile(numtorch.arange(3), 0.5), "input tensor must be either float or double dtype"),
        (lambda: numtorch.quantile(numtorch.ones(3), 0.5, interpolation="foo"), "interpolation must be one of linear"),
        (lambda: numtorch.quantile(numtorch.ones(0), 0.5), "input tensor must be non-empty"),
        (lambda: numtorch.quantile(numtorch.ones(3), numtorch.ones(2, 2)), "q must be a scalar or 1D tensor"),
    ]:
        with pytest.raises(RuntimeError, match=text):
            call()


def test_isin_unique_consecutive_combinations():
    a = np.array([1, 5, 2, 5, 9])
    assert numtorch.isin(numtorch.tensor(a), numtorch.tensor([5, 9])).tolist() == np.isin(a, [5, 9]).tolist()
    assert numtorch.isin(numtorch.tensor(a), 5, invert=True).tolist() == (a != 5).tolist()
    v, inv, cnt = numtorch.unique_consecutive(numtorch.tensor([1, 1, 2, 2, 3, 1, 1]), return_inverse=True, return_counts=True)
    assert (v.tolist(), inv.tolist(), cnt.tolist()) == ([1, 2, 3, 1], [0, 0, 1, 1, 2, 3, 3], [2, 2, 1, 2])
    m = numtorch.tensor([[1, 1, 2], [1, 1, 2]])
    assert numtorch.unique_consecutive(m, dim=1).tolist() == [[1, 2], [1, 2]]
    c = numtorch.combinations(numtorch.tensor([1, 2, 3]), r=2, with_replacement=True)
    assert c.tolist() == [[1, 1], [1, 2], [1, 3], [2, 2], [2, 3], [3, 3]]
    with pytest.raises(RuntimeError, match=r"Expect a 1D vector, but got shape \[2, 2\]"):
        numtorch.combinations(numtorch.ones(2, 2))
    x = numtorch.tensor(_r(4), requires_grad=True)
    assert gradcheck(lambda t: numtorch.combinations(t, 3), (x,))


def test_cov_corrcoef_trapezoid_polar_diagflat():
    a = _r(3, 6)
    fw, aw = np.array([1, 2, 1, 3, 1, 1]), _r(6, seed=1) ** 2
    got = numtorch.cov(numtorch.tensor(a), correction=0, fweights=numtorch.tensor(fw), aweights=numtorch.tensor(aw))
    np.testing.assert_allclose(got.numpy(), np.cov(a, ddof=0, fweights=fw, aweights=aw), rtol=1e-10)
    np.testing.assert_allclose(numtorch.corrcoef(numtorch.tensor(a)).numpy(), np.corrcoef(a), rtol=1e-10)
    with pytest.raises(RuntimeError, match="expected input to have two or fewer dimensions"):
        numtorch.cov(numtorch.ones(2, 2, 2))
    y, xs = _r(3, 5), np.sort(_r(5, seed=2))
    np.testing.assert_allclose(numtorch.trapezoid(numtorch.tensor(y), numtorch.tensor(xs)).numpy(), np.trapezoid(y, xs), rtol=1e-12)
    np.testing.assert_allclose(numtorch.trapezoid(numtorch.tensor(y), dx=0.5, dim=0).numpy(), np.trapezoid(y, dx=0.5, axis=0), rtol=1e-12)
    cum = numtorch.cumulative_trapezoid(numtorch.tensor(y)).numpy()
    np.testing.assert_allclose(cum[..., -1], np.trapezoid(y), rtol=1e-12)
    t = numtorch.tensor(y, requires_grad=True)
    assert gradcheck(lambda v: numtorch.trapezoid(v, numtorch.tensor(xs)), (t,))
    assert gradcheck(lambda v: numtorch.cov(v), (t,))
    p = numtorch.polar(numtorch.tensor([2.0]), numtorch.tensor([0.5]))
    np.testing.assert_allclose(p.numpy(), 2 * np.exp(0.5j), rtol=1e-6)
    assert numtorch.diagflat(numtorch.tensor([[1, 2]]), 1).tolist() == np.diagflat([[1, 2]], 1).tolist()


@pytest.mark.parametrize("name", ["hann", "hamming", "blackman", "bartlett", "kaiser"])
@pytest.mark.parametrize("periodic", [True, False])
def test_windows_match_numpy(name, periodic):
    n = 9
    ref = {"hann": np.hanning, "hamming": np.hamming, "blackman": np.blackman, "bartlett": np.bartlett,
           "kaiser": lambda m: np.kaiser(m, 12.0)}[name]  # fmt: skip
    want = ref(n + 1)[:n] if periodic else ref(n)
    got = getattr(numtorch, f"{name}_window")(n, periodic=periodic, dtype=F64)
    np.testing.assert_allclose(got.numpy(), want, atol=1e-12)
    assert getattr(numtorch, f"{name}_window")(1).tolist() == [1.0]
    with pytest.raises(RuntimeError, match=f"{name}_window expects floating point dtypes"):
        getattr(numtorch, f"{name}_window")(3, dtype=numtorch.int64)
    with pytest.raises(RuntimeError, match="requires non-negative window_length, got window_length=-1"):
        getattr(numtorch, f"{name}_window")(-1)


def test_inplace_functions():
    x = numtorch.tensor([1.0, 4.0])
    assert numtorch.sqrt_(x) is x and x.tolist() == [1.0, 2.0]
    assert numtorch.clamp_(x, max=1.5).tolist() == [1.0, 1.5]
    assert numtorch.exp_(numtorch.zeros(1)).tolist() == [1.0]


def test_tensor_protocol_methods():
    x = numtorch.arange(6.0).reshape(2, 3)
    assert x.get_device() == -1 and x.is_pinned() is False
    with pytest.raises(RuntimeError, match="Cannot access accelerator device when none is available."):
        x.pin_memory()
    assert 4.0 in x and 7 not in x
    with pytest.raises(RuntimeError, match="only supports Tensor or scalar, but you passed in a <class 'str'>"):
        "a" in x  # noqa: B015
    assert reversed(x).tolist() == [[3.0, 4.0, 5.0], [0.0, 1.0, 2.0]]
    w = numtorch.zeros(7, 3).fill_diagonal_(5, wrap=True)
    ref = np.zeros((7, 3))
    np.fill_diagonal(ref, 5, wrap=True)
    assert w.tolist() == ref.tolist()
    with pytest.raises(RuntimeError, match="dimensions must larger than 1"):
        numtorch.ones(3).fill_diagonal_(1)
    with pytest.raises(RuntimeError, match="all dimensions of input must be of equal length"):
        numtorch.ones(2, 3, 3).fill_diagonal_(1)
    assert numtorch.tensor([1, 2]).apply_(lambda v: v * 10).tolist() == [10, 20]
    assert numtorch.tensor([1, 2]).map_(numtorch.tensor([3]), lambda a, b: a - b).tolist() == [-2, -1]


def test_dlpack_round_trips_without_copy():
    a = np.arange(4.0)
    t = numtorch.from_dlpack(a)
    t[0] = 10
    assert a[0] == 10
    back = np.from_dlpack(t)
    back[1] = 20
    assert t[1].item() == 20
    assert t.__dlpack_device__() == (1, 0)
    assert numtorch.utils.dlpack.from_dlpack(t).tolist() == t.tolist()
    with pytest.raises(RuntimeError, match="Can't export tensors that require gradient"):
        numtorch.ones(1, requires_grad=True).__dlpack__()


def test_every_function_form_has_its_method():
    from numtorch.ops.extra import _INPLACE

    missing = [n for names in _INPLACE.values() for n in names if not hasattr(numtorch.Tensor, n)]
    assert not missing
    x = numtorch.ones(2)
    assert (numtorch.get_device(x), numtorch.is_conj(x), numtorch.is_signed(x)) == (-1, False, True)


# Note [Composite bodies are below the Python API]: these bindings have no aten op of their own,
# and a mode still sees only the call the user made
_ONE_CALL = [
    ("isin", lambda nt, x: nt.isin(x, nt.tensor([1.0, 2.0]))),
    ("quantile", lambda nt, x: nt.quantile(x, 0.5)),
    ("nanquantile", lambda nt, x: nt.nanquantile(x, 0.25)),
    ("unique_consecutive", lambda nt, x: nt.unique_consecutive(x)),
    ("polar", lambda nt, x: nt.polar(x.abs(), x)),
    ("diagflat", lambda nt, x: nt.diagflat(x)),
    ("combinations", lambda nt, x: nt.combinations(x)),
    ("trapezoid", lambda nt, x: nt.trapezoid(x)),
    ("cumulative_trapezoid", lambda nt, x: nt.cumulative_trapezoid(x)),
    ("cov", lambda nt, x: nt.cov(x.reshape(2, 2))),
    ("corrcoef", lambda nt, x: nt.corrcoef(x.reshape(2, 2))),
]


@pytest.mark.parametrize("name,call", _ONE_CALL, ids=[n for n, _ in _ONE_CALL])
def test_no_other_public_function_is_called(name, call, monkeypatch):
    # a patched (or counted) public function must see only the call the user made
    x = numtorch.tensor([1.0, 3.0, float("nan"), 4.0]) if name == "nanquantile" else numtorch.tensor([1.0, 3.0, 2.0, 4.0])
    expected = call(numtorch, x)
    called = []
    for fn in ("tensor", "full_like", "where", "complex", "cos", "sin", "diag", "empty", "clamp",
               "diagonal", "sort", "stack", "cat", "sum", "mean", "sqrt", "outer", "matmul"):
        orig = getattr(numtorch, fn)
        monkeypatch.setattr(numtorch, fn, lambda *a, _f=orig, _n=fn, **k: called.append(_n) or _f(*a, **k))
    got = call(numtorch, x)
    assert called == (["tensor"] if name == "isin" else []), called
    np.testing.assert_allclose(np.asarray(got.tolist(), dtype=complex), np.asarray(expected.tolist(), dtype=complex))


def test_polar_takes_two_floating_tensors_of_one_dtype():
    with pytest.raises(RuntimeError, match="Expected both inputs to be Half, Float or Double tensors but got Char and Int"):
        numtorch.polar(numtorch.tensor([5], dtype=numtorch.int8), numtorch.tensor([9], dtype=numtorch.int32))
    with pytest.raises(RuntimeError, match="Expected object of scalar type Float but got scalar type Double for second argument"):
        numtorch.polar(numtorch.tensor([1.0]), numtorch.tensor([1.0], dtype=numtorch.float64))
