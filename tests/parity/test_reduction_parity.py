"""Reductions, scans, sorts and softmax against torch: every OpInfo sample in every dtype
(including ones the NumPy references skip), NaN and empty inputs, errors (type and message)
and the aten schemas."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import numtorch
from numtorch.testing._opinfo import reduction as red_infos

torch = pytest.importorskip("torch")

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64"]
# ops whose indices PyTorch leaves unspecified among equal values (unstable sorts/selection):
# values must match and the indices must point at those values
_TIE_INDICES = {"sort", "topk", "kthvalue", "median", "nanmedian", "mode"}
_TOL = {"float16": (2e-3, 2e-3), "float32": (2e-5, 2e-5), "float64": (1e-10, 1e-10)}


def _conv(x, lib):
    if isinstance(x, np.ndarray):
        return torch.from_numpy(x.copy()) if lib is torch else numtorch.from_numpy(x.copy())
    if isinstance(x, (list, tuple)):
        return type(x)(_conv(v, lib) for v in x)
    if isinstance(x, dict):
        return {k: _conv(v, lib) for k, v in x.items()}
    if isinstance(x, numtorch.dtype) and lib is torch:
        return getattr(torch, x.name)
    return x


def _outcome(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return ("ok", fn())
        except Exception as e:  # noqa: BLE001 - the outcome under test
            return ("err", type(e), str(e).split("\n")[0])


def _arrays(r):
    if isinstance(r, (tuple, list)):
        return [a for v in r for a in _arrays(v)]
    if isinstance(r, torch.Tensor):
        return [(str(r.dtype).removeprefix("torch."), r.detach().numpy())]
    if isinstance(r, numtorch.Tensor):
        return [(r.dtype.name, r.detach().numpy())]
    return [(type(r).__name__, np.asarray(r))]


def _same(ours, theirs, what, tie_indices=False, inp=None, dim=-1):
    if theirs[0] == "err":
        assert ours[0] == "err", (
            f"{what}: torch raised {theirs[1].__name__}: {theirs[2]}; numtorch returned"
        )
        assert issubclass(ours[1], theirs[1]), (
            f"{what}: {ours[1].__name__} != {theirs[1].__name__} ({ours[2]})"
        )
        if theirs[1] is not TypeError:  # the argument parser's overload listings are not mirrored
            assert ours[2] == theirs[2], f"{what}: message {ours[2]!r} != {theirs[2]!r}"
        return
    assert ours[0] == "ok", f"{what}: numtorch raised {ours[1].__name__}: {ours[2]}"
    a, b = _arrays(ours[1]), _arrays(theirs[1])
    assert type(ours[1]).__name__ == type(theirs[1]).__name__ or not isinstance(theirs[1], tuple), (
        what
    )
    assert len(a) == len(b), what
    for k, ((da, x), (db, y)) in enumerate(zip(a, b, strict=True)):
        assert da == db, f"{what}: dtype {da} != {db}"
        assert x.shape == y.shape, f"{what}: shape {x.shape} != {y.shape}"
        if tie_indices and k == 1:
            src = np.moveaxis(inp.reshape(1) if inp.ndim == 0 else inp, dim, -1)
            idx = np.moveaxis(x.reshape(1) if x.ndim == 0 else x, dim, -1)
            picked = np.take_along_axis(src, idx, -1)
            picked = np.moveaxis(picked, -1, dim) if x.ndim else picked.reshape(())
            np.testing.assert_array_equal(picked, a[0][1], err_msg=what)
            continue
        if x.dtype.kind in "fc":
            rtol, atol = _TOL.get(da, (1e-5, 1e-5))
            wide = np.complex128 if x.dtype.kind == "c" else np.float64
            np.testing.assert_allclose(x.astype(wide), y.astype(wide), rtol=rtol, atol=atol,
                                       equal_nan=True, err_msg=what)  # fmt: skip
        else:
            np.testing.assert_array_equal(x, y, err_msg=what)


def _resolve(lib, name):
    obj = lib
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


def _dim_of(sample):
    d = sample.kwargs.get("dim", -1)
    if sample.args and isinstance(sample.args[0], int) and not isinstance(sample.args[0], bool):
        return sample.args[0]
    return d if isinstance(d, int) else -1


@pytest.mark.parametrize("info", red_infos.OPINFOS, ids=lambda i: i.name)
def test_every_sample_in_every_dtype_matches_torch(info):
    rng = np.random.default_rng(0)
    ours_fn, their_fn = _resolve(numtorch, info.name), _resolve(torch, info.name)
    for dt in DTYPES:
        for s in info.sample_inputs(dt, rng):
            what = f"{info.name}[{dt}] {s.name}"
            ours = _outcome(
                lambda s=s: ours_fn(
                    _conv(s.input, numtorch), *_conv(s.args, numtorch), **_conv(s.kwargs, numtorch)
                )
            )
            theirs = _outcome(
                lambda s=s: their_fn(
                    _conv(s.input, torch), *_conv(s.args, torch), **_conv(s.kwargs, torch)
                )
            )
            ties = info.name in _TIE_INDICES and not (
                info.name == "sort" and s.kwargs.get("stable")
            )
            if info.name in ("topk", "kthvalue"):
                dim = s.args[1] if len(s.args) > 1 else s.kwargs.get("dim", -1)
            else:
                dim = _dim_of(s)
            if ours[0] == "ok" and theirs[0] == "ok" and ties and isinstance(theirs[1], tuple):
                keep = s.kwargs.get("keepdim") or (len(s.args) > 1 and s.args[-1] is True)
                if info.name in ("topk", "sort") or keep or s.input.ndim == 0:
                    _same(ours, theirs, what, True, s.input, dim)
                    continue
                ours = ("ok", tuple(v.unsqueeze(dim) for v in ours[1]))
                theirs = ("ok", tuple(v.unsqueeze(dim) for v in theirs[1]))
                _same(ours, theirs, what, True, s.input, dim)
                continue
            _same(ours, theirs, what)


_NAN = np.array([1.0, np.nan, 3.0, np.nan, 0.0, 3.0], np.float32)
_E = np.zeros((0, 3), np.float32)
_CASES = [
    "T.max(x)", "T.max(x, 0)", "T.min(x, 0)", "T.amax(x)", "T.argmax(x)", "T.argmin(x)", "T.sort(x)",
    "T.sort(x, descending=True)", "T.sort(x, stable=True)", "T.topk(x, 3)", "T.topk(x, 2, largest=False)",
    "T.kthvalue(x, 5)", "T.median(x)", "T.median(x, 0)", "T.nanmedian(x)", "T.nanmedian(x, 0)",
    "T.cummax(x, 0)", "T.cummin(x, 0)", "T.softmax(x, 0)", "T.log_softmax(x, 0)", "T.logsumexp(x, 0)",
    "T.nansum(x)", "T.sum(x)", "T.mean(x)", "T.var(x)", "T.norm(x)", "T.norm(x, float('inf'))",
    "T.all(x)", "T.any(x)", "T.count_nonzero(x)", "T.unique(x)", "T.aminmax(x)", "T.cumsum(x, 0)",
    "T.max(e)", "T.max(e, 0)", "T.max(e, 1)", "T.amin(e)", "T.amin(e, 0)", "T.argmax(e)", "T.argmax(e, 0)",
    "T.argmin(e, 1)", "T.sum(e)", "T.sum(e, 0)", "T.prod(e)", "T.prod(e, 1)", "T.mean(e)", "T.mean(e, 0)",
    "T.var(e)", "T.std(e, 0)", "T.norm(e)", "T.norm(e, float('inf'), 1)", "T.norm(e, float('inf'), 0)",
    "T.norm(e, -1)", "T.logsumexp(e, 0)", "T.logsumexp(e, 1)", "T.all(e)", "T.any(e, 1)",
    "T.median(e)", "T.median(e, 0)", "T.median(e, 1)", "T.mode(e, 0)", "T.kthvalue(e, 1, 1)", "T.aminmax(e)",
    "T.sort(e, 0)", "T.topk(e, 0, 0)", "T.cumsum(e, 0)", "T.cummax(e, 0)", "T.softmax(e, 1)",
    "T.sum(m, 2)", "T.sum(m, -3)", "T.sum(m, (0, 0))", "T.mean(m, (1, -1))", "T.sum(s, 1)", "T.amax(m, (0, 2))",
    "T.max(m, 2)", "T.cumsum(m, 2)", "T.softmax(m, -3)", "T.sort(m, 2)", "T.var(m, 5)",
    "T.mean(i)", "T.mean(i, 0)", "T.mean(b)", "T.var(i)", "T.std(i, 0)", "T.norm(i)", "T.softmax(i, 0)",
    "T.log_softmax(i, 0)", "T.argmax(b)", "T.median(b)", "T.mean(x, dtype=T.int64)",
    "T.topk(x, -1)", "T.topk(x, 7)", "T.kthvalue(x, 0)", "T.kthvalue(x, 7)", "T.kthvalue(s, 2)",
    "T.norm(m, 'abc')", "T.norm(m, 'fro', (0, 1, 2))", "T._softmax(h, 0, True)",
    "T.amax(m, 0, out=T.empty(0, dtype=T.float64))", "T.argmax(m, 0, out=T.empty(0, dtype=T.int32))",
    "T.max(m, 0, out=(T.empty(0, dtype=T.float64), T.empty(0, dtype=T.int64)))",
    "T.max(m, 0, out=(T.empty(0), T.empty(0, dtype=T.int32)))", "T.all(m, 0, out=T.empty(0))",
    "T.sum(m, 0, out=T.empty(0, dtype=T.int64))", "T.cumsum(i, 0, out=T.empty(0, dtype=T.int32))",
    "T.std(m, 1, correction=5)", "T.var(m, (0, 1), correction=0, keepdim=True)", "T.std_mean(m, 1)",
    "T.max(x, T.tensor(2.0))", "T.min(m, m)", "T.aminmax(m, dim=1, keepdim=True)", "T.count_nonzero(m, (0, 2))",
    "T.prod(c)", "T.sum(c)", "T.mean(c)", "T.cumsum(c, 0)", "T.amax(c)", "T.max(c)", "T.argmax(c)",
    "T.median(c)", "T.sort(c)", "T.cummax(c, 0)",
]  # fmt: skip


@pytest.mark.parametrize("expr", _CASES)
def test_edge_cases_and_errors_match_torch(expr):
    rng = np.random.default_rng(3)
    env = {"x": _NAN, "e": _E, "m": rng.standard_normal((2, 3, 4)).astype(np.float32),
           "s": np.array(2.5, np.float32), "i": np.array([[1, 2], [3, 4]]), "b": np.array([True, False]),
           "h": np.array([1.0, 2.0], np.float16), "c": np.array([1 + 1j, 2 - 1j], np.complex64)}  # fmt: skip

    def run(lib):
        ns = {k: _conv(v, lib) for k, v in env.items()}
        ns["T"] = lib if lib is torch else numtorch
        if lib is not torch:
            ns["T"] = _NTNS
        return _outcome(lambda: eval(expr, ns))  # noqa: S307 - fixed test expressions

    ties = any(expr.startswith(f"T.{n}(") for n in _TIE_INDICES) and "stable" not in expr
    _same(run(numtorch), run(torch), expr, ties and "(x" in expr, env["x"], 0)


class _NTNS:
    """numtorch plus ``_softmax`` (torch exposes the aten op at top level)."""

    def __getattr__(self, name):
        if name == "_softmax":
            return numtorch.ops.aten._softmax
        return getattr(numtorch, name)


_NTNS = _NTNS()


def test_repr_of_named_tuples_matches_torch():
    a = np.array([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]], np.float32)
    for expr in ("T.max(x, 1)", "T.sort(x)", "T.aminmax(x)", "T.topk(x, 1)", "T.cummin(x, 0)"):
        ours = eval(expr, {"T": numtorch, "x": numtorch.from_numpy(a.copy())})  # noqa: S307
        theirs = eval(expr, {"T": torch, "x": torch.from_numpy(a.copy())})  # noqa: S307
        assert repr(ours) == repr(theirs)


_OPS = ["sum.dim_IntList", "sum.default", "sum.IntList_out", "nansum.default", "mean.dim", "mean.default", "prod.dim_int",
        "prod.default", "max.dim", "max.default", "max.dim_max", "max.other", "min.dim_min", "amax.default", "amin.out",
        "argmax.default", "argmin.out", "aminmax.default", "all.dims", "any.dims_out", "count_nonzero.dim_IntList",
        "var.correction", "std.correction_out", "var_mean.correction", "std_mean.correction", "norm.ScalarOpt_dim",
        "norm.ScalarOpt_dim_dtype", "logsumexp.default", "cumsum.default", "cumsum_.default", "cumprod.out",
        "cummax.default", "cummin.out", "_softmax.default", "softmax.int", "_log_softmax.default", "log_softmax.int",
        "_softmax_backward_data.default", "_log_softmax_backward_data.default", "sort.stable", "sort.values_stable",
        "argsort.stable", "topk.default", "topk.values", "kthvalue.default", "median.default", "median.dim",
        "nanmedian.dim_values", "mode.default", "_unique2.default", "unique_dim.default"]  # fmt: skip


@pytest.mark.parametrize("name", _OPS)
def test_aten_schemas_match_torch(name):
    packet, overload = name.split(".")
    ours = getattr(getattr(numtorch.ops.aten, packet), overload)
    theirs = getattr(getattr(torch.ops.aten, packet), overload)
    assert str(ours._schema) == str(theirs._schema)
