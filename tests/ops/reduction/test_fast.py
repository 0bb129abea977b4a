"""Note [Reduction fast path]: ``x.sum()``, ``x.mean()``, ``x.amax()``, ``x.max()``,
``x.all()`` ... of plain tensors skip the dispatcher; they must give exactly what it gives
(values, dtypes, NaN, 0-d results, errors, gradients) and modes must still see the aten ops."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import numtorch as torch
from numtorch.kernels import PARALLEL_THRESHOLD
from numtorch.utils._python_dispatch import TorchDispatchMode

OPS = ["sum", "mean", "prod", "amax", "amin", "max", "min", "all", "any"]
_NP = {"sum": np.sum, "mean": np.mean, "prod": np.prod, "amax": np.max, "amin": np.min,
       "max": np.max, "min": np.min, "all": np.all, "any": np.any}  # fmt: skip
DTYPES = [np.bool_, np.uint8, np.int8, np.int32, np.int64, np.float16, np.float32, np.float64]


def _expected_dtype(op, dt):
    # PyTorch's rules: integer and bool sums / products -> int64, all/any -> bool (uint8 stays)
    if op in ("sum", "prod") and dt.kind in "biu":
        return np.dtype(np.int64)
    if op in ("all", "any"):
        return np.dtype(np.uint8 if dt == np.uint8 else np.bool_)
    return dt


def _values(dt, n=8):
    v = np.array([3, 1, 0, 2, 5, 1, 4, 2, 1, 3][:n] * (n // 10 + 1))[:n]
    return (v % 2).astype(dt) if dt == np.bool_ else v.astype(dt)


def _check(op, t, a):
    dt = a.dtype
    if op == "mean" and dt.kind in "biu":
        with pytest.raises(RuntimeError, match="mean\\(\\): could not infer output dtype"):
            getattr(t, op)()
        return
    want = _NP[op](a.astype(np.float64) if dt == np.float16 else a)
    for r in (getattr(t, op)(), getattr(torch, op)(t)):
        assert type(r) is torch.Tensor and r.shape == () and not r.requires_grad
        want_dt = _expected_dtype(op, dt)
        assert r.numpy().dtype == want_dt and r.dtype == getattr(torch, want_dt.name), (op, dt)
        np.testing.assert_allclose(r.numpy().astype(np.float64), np.float64(want),
                                   rtol=1e-3 if dt == np.float16 else 1e-6)  # fmt: skip


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_full_reductions_match_numpy_and_pytorch_dtypes(op, dtype):
    a = _values(np.dtype(dtype))
    t = torch.from_numpy(a.copy())
    for _ in range(3):  # the first call learns the kernel entry, later ones take it
        _check(op, t, a)
    _check(op, torch.from_numpy(a.reshape(2, 4).copy()), a.reshape(2, 4))  # contiguous 2-D
    _check(op, torch.from_numpy(a[:1].reshape(()).copy()), a[:1].reshape(()))  # 0-d
    _check(op, torch.from_numpy(a[::2].copy()), a[::2])
    strided = torch.from_numpy(a.copy())[::2]  # not contiguous: the dispatcher's path
    _check(op, strided, a[::2])


@pytest.mark.parametrize("op", OPS)
def test_nan_propagates(op):
    a = np.array([1.0, np.nan, -2.0, 4.0], np.float32)
    t = torch.from_numpy(a)
    for _ in range(2):
        r = getattr(t, op)().numpy()
        if op in ("all", "any"):
            assert r.dtype == np.bool_ and r == _NP[op](a)  # NaN is nonzero
        else:
            assert np.isnan(r) and r.dtype == np.float32


def test_empty_inputs_take_the_dispatchers_path():
    e = torch.ones(0)
    assert e.sum().item() == 0 and e.prod().item() == 1 and np.isnan(e.mean().item())
    assert e.all().item() is True and e.any().item() is False
    assert torch.ones(0, dtype=torch.int32).sum().dtype == torch.int64
    for op in ("amax", "amin", "max", "min"):
        with pytest.raises((RuntimeError, IndexError), match="Expected reduction dim"):
            getattr(e, op)()
    n = PARALLEL_THRESHOLD + 5
    big = torch.ones(n)
    assert big.sum().item() == n and big.mean().item() == 1.0 and big.amax().item() == 1.0


@pytest.mark.parametrize("threads", [1, 2], ids=["serial", "parallel"])
def test_large_inputs_match_the_dispatchers_kernels(threads, monkeypatch):
    # From PARALLEL_THRESHOLD on the fast path runs the kernel the general path's _launch
    # picks (serial with one Numba thread, row_p / split_p / col_p with more): same bits.
    from numtorch.ops.reduction import _reduce as E
    from numtorch.ops.reduction import core as R

    monkeypatch.setattr(E, "_NTHREADS", [threads])
    rng = np.random.default_rng(3)
    a = rng.standard_normal((PARALLEL_THRESHOLD // 256, 257)).astype(np.float32)
    t = torch.from_numpy(a)
    body = {"sum": R._sum, "mean": R._mean}
    for op, ref in (("sum", np.sum), ("mean", np.mean), ("amax", np.max), ("amin", np.min)):
        for dim in (None, 0, 1, -1):
            for keepdim in (False,) if dim is None else (False, True):
                r = getattr(t, op)() if dim is None else getattr(t, op)(dim, keepdim)
                if body.get(op):
                    g = body[op](t, dim, keepdim, None, None)
                else:  # a list dim takes the general path
                    dims = list(range(2)) if dim is None else [dim]
                    g = getattr(t, op)(dims, keepdim)
                want = ref(a.astype(np.float64), axis=dim, keepdims=keepdim)
                assert r.dtype == torch.float32 and r.shape == want.shape, (op, dim)
                np.testing.assert_array_equal(r.numpy(), g.numpy())
                np.testing.assert_allclose(r.numpy(), want, rtol=2e-5, atol=2e-5)
    # exact: 1e7 float32 ones (pairwise partials), on every kernel choice
    ones = torch.ones(10**7)
    assert ones.sum().item() == 1e7 and ones.mean().item() == 1.0
    assert ones.reshape(10, 10**6).sum(1).tolist() == [1e6] * 10
    assert ones.reshape(10**6, 10).sum(0).tolist() == [1e6] * 10
    # NaN propagates, int sums stay exact in int64, grads are recorded
    b = a.copy()
    b[7, 3] = np.nan
    assert np.isnan(torch.from_numpy(b).sum().item())
    assert np.isnan(torch.from_numpy(b).amax(1)[7].item())
    i = torch.from_numpy(np.full(PARALLEL_THRESHOLD + 3, 2**40, np.int64))
    assert i.sum().item() == 2**40 * (PARALLEL_THRESHOLD + 3) and i.sum().dtype == torch.int64
    x = torch.from_numpy(a.copy()).requires_grad_(True)
    y = x.mean(1)
    assert y.grad_fn.name() == "MeanBackward1"
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(a.shape, 1 / 257, np.float32))


def test_foreign_readonly_and_unaligned_buffers():
    a = np.linspace(-1, 2, 8).astype(np.float32)
    t = torch.from_numpy(a.copy())
    for _ in range(3):
        t.sum()  # learn the entry on ordinary arrays
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # non-writable arrays warn once
        ro = torch.from_numpy(np.frombuffer(a.tobytes(), np.float32))
    raw = np.zeros(8 * 4 + 1, np.uint8)
    un = raw[1:].view(np.float32)  # unaligned float32 storage
    un[:] = a
    assert not un.flags.aligned
    for x in (ro, torch.from_numpy(un)):
        for op in ("sum", "amax", "mean"):
            np.testing.assert_allclose(getattr(x, op)().item(), _NP[op](a), rtol=1e-6)


def test_results_are_fresh_plain_tensors():
    p = torch.nn.Parameter(torch.arange(8.0), requires_grad=False)
    t = torch.arange(8.0)
    for x in (t, p):
        for op in OPS:
            r = getattr(x, op)()
            assert type(r) is torch.Tensor and r._base is None and r._version == 0
            assert not np.shares_memory(r.numpy(), x.numpy())
    r1, r2 = t.sum(), t.sum()
    r1.add_(1.0)
    assert r2.item() == 28.0 and r1.item() == 29.0


def test_keyword_forms_keep_the_full_path():
    x = torch.arange(6.0).reshape(2, 3)
    assert x.sum(dtype=torch.float64).dtype == torch.float64
    assert x.sum(0).tolist() == [3.0, 5.0, 7.0]
    assert x.sum(None, keepdim=True).shape == (1, 1)  # torch: no keepdim without a dim
    with pytest.raises(TypeError, match="received an invalid combination of arguments"):
        x.sum(keepdim=True)
    assert x.amax(dim=1).tolist() == [2.0, 5.0] and x.amax([]).item() == 5.0
    assert x.all(1).tolist() == [False, True]
    out = torch.empty(())
    torch.sum(x, dim=None, out=out)
    assert out.item() == 15.0
    with pytest.raises(TypeError, match="received an invalid combination of arguments"):
        x.max(keepdim=True)


def test_modes_see_the_aten_ops_the_fast_path_skips():
    seen = []

    class Log(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))

    for rg in (False, True):
        x = torch.ones(8, requires_grad=rg)
        x.sum(), x.mean(), x.prod(), x.amax(), x.max(), x.all()  # learn entries first
        seen.clear()
        with Log():
            rs = [x.sum(), torch.sum(x), x.mean(), x.prod(), x.amax(), x.amin(), x.max(), torch.min(x),
                  x.all(), x.any()]  # fmt: skip
        # ops whose backward needs their result save it: with grad, PyTorch detaches it (a call)
        d = ["aten.detach.default"] if rg else []
        assert seen == ["aten.sum.default", "aten.sum.default", "aten.mean.default", "aten.prod.default", *d,
                        "aten.amax.default", *d, "aten.amin.default", *d, "aten.max.default", *d,
                        "aten.min.default", *d, "aten.all.dims", "aten.any.dims"], seen  # fmt: skip
        assert [r.item() for r in rs] == [8.0, 8.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, True, True]


def test_torch_function_modes_and_subclasses_see_the_call():
    from numtorch.overrides import TorchFunctionMode

    seen = []

    class Log(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(func.__name__)
            return func(*args, **(kwargs or {}))

    x = torch.arange(8.0)
    with Log():
        x.sum(), torch.mean(x), x.amax(), x.max(), x.all()
    assert seen == ["sum", "mean", "amax", "max", "all"]

    class Sub(torch.Tensor):
        calls = []

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            cls.calls.append(func.__name__)
            return super().__torch_function__(func, types, args, kwargs or {})

    s = x.as_subclass(Sub)
    r = s.sum()
    assert Sub.calls[:1] == ["sum"] and type(r) is Sub and r.item() == 28.0


@pytest.mark.parametrize("op", ["sum", "mean", "prod", "amax", "amin", "max", "min"])
def test_gradients_match_the_dispatchers_recording(op):
    a = np.array([1.5, -2.0, 3.0, 0.5, 3.0, -1.0], np.float64)
    x = torch.from_numpy(a.copy()).requires_grad_(True)
    for _ in range(2):
        x.grad = None
        y = getattr(x, op)()
        assert (
            y.requires_grad and not y.is_leaf and y.grad_fn.name() == f"{op.capitalize()}Backward0"
        )
        y.backward()
        g1 = x.grad.numpy().copy()
    x2 = torch.from_numpy(a.copy()).requires_grad_(True)
    with torch.autograd.detect_anomaly():  # anomaly mode: the dispatcher's recording
        y2 = getattr(x2, op)()
        assert __file__ in y2.grad_fn._trace  # the trace names this test
    y2.backward()
    np.testing.assert_array_equal(g1, x2.grad.numpy())
    assert torch.autograd.gradcheck(
        lambda t: getattr(t, op)(), (torch.from_numpy(a).requires_grad_(True),)
    )
    with torch.no_grad():
        r = getattr(x, op)()
        assert r.grad_fn is None and not r.requires_grad
    assert not x.all().requires_grad and x.any().grad_fn is None


def test_saved_input_modified_in_place_is_caught():
    x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x.clone()
    p = y.prod()
    y.mul_(2.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        p.backward()


DIM_OPS = ["sum", "mean", "prod", "amax", "amin", "all", "any"]


@pytest.mark.parametrize("op", DIM_OPS)
@pytest.mark.parametrize("dtype", [np.bool_, np.int32, np.int64, np.float16, np.float32, np.float64],
                         ids=lambda d: np.dtype(d).name)  # fmt: skip
def test_one_dim_reductions_match_numpy(op, dtype):
    dt = np.dtype(dtype)
    a = _values(dt, 24).reshape(2, 3, 4)
    t = torch.from_numpy(a.copy())
    ref = {"sum": np.sum, "mean": np.mean, "prod": np.prod, "amax": np.max, "amin": np.min,
           "all": np.all, "any": np.any}[op]  # fmt: skip
    for _ in range(2):  # learn, then the compiled entries (row and col kernels)
        for dim in (-3, -2, -1, 0, 1, 2):
            for keepdim in (False, True):
                if op == "mean" and dt.kind in "biu":
                    with pytest.raises(RuntimeError, match="could not infer output dtype"):
                        t.mean(dim, keepdim)
                    continue
                want = ref(
                    a.astype(np.float64) if dt == np.float16 else a, axis=dim, keepdims=keepdim
                )
                for r in (
                    getattr(t, op)(dim, keepdim),
                    getattr(torch, op)(t, dim, keepdim=keepdim),
                ):
                    want_dt = _expected_dtype(op, dt)
                    assert r.shape == want.shape and r.dtype == getattr(torch, want_dt.name)
                    assert r.numpy().dtype == want_dt
                    np.testing.assert_allclose(r.numpy().astype(np.float64), want.astype(np.float64),
                                               rtol=1e-3 if dt == np.float16 else 1e-6)  # fmt: skip


def test_one_dim_edge_cases():
    x = torch.arange(6.0).reshape(2, 3)
    with pytest.raises(
        IndexError,
        match=r"Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)",
    ):
        x.sum(2)
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.amax(-3)
    s = torch.tensor(5.0)  # 0-d: dim 0 and -1 are allowed and keep the 0-d shape
    assert s.sum(0).shape == () and s.sum(-1, keepdim=True).shape == () and s.sum(0).item() == 5.0
    e = torch.ones(2, 0)
    assert e.sum(1).tolist() == [0.0, 0.0] and e.sum(0).shape == (0,)
    assert torch.isnan(e.mean(1)).all()
    with pytest.raises(IndexError, match="Expected reduction dim 1 to have non-zero size"):
        e.amax(1)
    y = torch.arange(24.0).reshape(2, 1, 3, 4)  # size-1 dims and a non-contiguous view
    np.testing.assert_array_equal(y.sum(1).numpy(), np.arange(24.0).reshape(2, 1, 3, 4).sum(1))
    tr = y[:, 0].transpose(1, 2)
    np.testing.assert_array_equal(
        tr.sum(1).numpy(), np.arange(24.0).reshape(2, 3, 4).transpose(0, 2, 1).sum(1)
    )
    assert x.sum(dim=(0,)).tolist() == [3.0, 5.0, 7.0] and x.sum([1]).tolist() == [3.0, 12.0]
    r1, r2 = x.sum(0), x.sum(0)
    assert not np.shares_memory(r1.numpy(), r2.numpy()) and type(r1) is torch.Tensor


def test_modes_see_the_dim_ops():
    seen = []

    class Log(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))

    for rg in (False, True):
        x = torch.ones(2, 4, requires_grad=rg)
        x.sum(1), x.mean(0), x.amax(1), x.all(1)  # learn entries first
        seen.clear()
        with Log():
            (
                x.sum(1),
                torch.sum(x, 0, keepdim=True),
                x.mean(1),
                x.prod(0),
                x.amax(1),
                x.amin(-1),
                x.all(1),
                x.any(0),
            )
        d = ["aten.detach.default"] if rg else []  # the saved result, as PyTorch
        assert seen == ["aten.sum.dim_IntList", "aten.sum.dim_IntList", "aten.mean.dim", "aten.prod.dim_int", *d,
                        "aten.amax.default", *d, "aten.amin.default", *d, "aten.all.dims", "aten.any.dims"], seen  # fmt: skip


@pytest.mark.parametrize("op", ["sum", "mean", "prod", "amax", "amin"])
def test_one_dim_gradients_match_the_dispatchers_recording(op):
    a = np.array([[1.5, -2.0, 3.0], [0.5, 3.0, 3.0]], np.float64)
    names = {"sum": "SumBackward1", "mean": "MeanBackward1", "prod": "ProdBackward1",
             "amax": "AmaxBackward0", "amin": "AminBackward0"}  # fmt: skip
    for dim in (0, 1, -1):
        for keepdim in (False, True):
            x = torch.from_numpy(a.copy()).requires_grad_(True)
            y = getattr(x, op)(dim, keepdim)
            assert y.grad_fn.name() == names[op] and y.requires_grad
            g = torch.from_numpy(np.linspace(0.5, 2.0, y.numel()).reshape(y.shape))
            y.backward(g)
            x2 = torch.from_numpy(a.copy()).requires_grad_(True)
            with torch.autograd.detect_anomaly():
                y2 = getattr(x2, op)(dim, keepdim)
            y2.backward(g)
            np.testing.assert_array_equal(x.grad.numpy(), x2.grad.numpy())
            np.testing.assert_array_equal(y.detach().numpy(), y2.detach().numpy())
    b = np.array([[1.5, -2.0, 3.0], [0.5, 2.5, 4.0]], np.float64)
    for dim in (0, 1):
        assert torch.autograd.gradcheck(
            lambda t, op=op, dim=dim: getattr(t, op)(dim),
            (torch.from_numpy(b).requires_grad_(True),),
        )


@pytest.mark.parametrize("op", ["max", "min"])
@pytest.mark.parametrize(
    "dtype", [np.bool_, np.int32, np.int64, np.float32, np.float64], ids=lambda d: np.dtype(d).name
)
def test_max_min_dim_values_and_first_indices(op, dtype):
    dt = np.dtype(dtype)
    a = _values(dt, 24).reshape(2, 3, 4)  # with ties: the first index wins
    if dt.kind == "f":
        a[1, 2, 0] = np.nan  # NaN wins, at its index
    t = torch.from_numpy(a.copy())
    vref, iref = (np.max, np.argmax) if op == "max" else (np.min, np.argmin)
    for _ in range(2):
        for dim in (-3, -1, 0, 1, 2):
            for keepdim in (False, True):
                for r in (
                    getattr(t, op)(dim, keepdim),
                    getattr(torch, op)(t, dim, keepdim=keepdim),
                ):
                    assert (
                        type(r).__name__ == op
                        and r.values.dtype == t.dtype
                        and r.indices.dtype == torch.int64
                    )
                    want_i = iref(a, axis=dim)
                    want_v = vref(a, axis=dim)
                    if keepdim:
                        want_i, want_v = np.expand_dims(want_i, dim), np.expand_dims(want_v, dim)
                    np.testing.assert_array_equal(r.indices.numpy(), want_i)
                    np.testing.assert_array_equal(r.values.numpy(), want_v)


def test_max_min_dim_modes_errors_and_gradients():
    seen = []

    class Log(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))

    x = torch.tensor([[1.0, 3.0, 3.0], [2.0, -1.0, 0.5]], dtype=torch.float64, requires_grad=True)
    x.max(1), x.min(0)
    with Log():
        x.max(1), torch.min(x, 0), x.max(), x.detach().max(-1)
    assert seen == [
        "aten.max.dim",
        "aten.min.dim",
        "aten.max.default",
        "aten.detach.default",  # max() saves its result (PyTorch detaches it)
        "aten.detach.default",
        "aten.max.dim",
    ], seen
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.max(2)
    with pytest.raises(IndexError, match="Expected reduction dim 1 to have non-zero size"):
        torch.ones(2, 0).max(1)
    for op in ("max", "min"):
        for dim, keepdim in ((0, False), (1, True), (-1, False)):
            a = x.detach().clone().requires_grad_(True)
            r = getattr(a, op)(dim, keepdim)
            assert (
                r.values.grad_fn.name() == f"{op.capitalize()}Backward0"
                and not r.indices.requires_grad
            )
            r.values.sum().backward()
            b = x.detach().clone().requires_grad_(True)
            with torch.autograd.detect_anomaly():
                r2 = getattr(b, op)(dim, keepdim)
            r2.values.sum().backward()
            np.testing.assert_array_equal(a.grad.numpy(), b.grad.numpy())
        b = torch.tensor(
            [[1.0, 3.0, 2.5], [2.0, -1.0, 0.5]], dtype=torch.float64, requires_grad=True
        )  # no ties
        assert torch.autograd.gradcheck(lambda t, op=op: getattr(t, op)(1).values, (b,))
