"""bfloat16 against torch 2.13: promotion over every pair, finfo, every OpInfo's float32 samples
in bfloat16 (same refusals with the same errors, same result dtypes, same values), printing,
autocast and checkpoints both ways."""

from __future__ import annotations

import io

import ml_dtypes
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import numtorch  # noqa: E402
from numtorch.testing._opinfo import op_db  # noqa: E402
from tests.ops.test_bfloat16 import _rounded  # noqa: E402

BF = numtorch.bfloat16
NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64", "float16", "bfloat16",
         "float32", "float64", "complex64", "complex128"]  # fmt: skip


def _promote(lib, a, b):
    try:
        return str(lib.promote_types(getattr(lib, a), getattr(lib, b)))
    except RuntimeError as e:
        return type(e).__name__


@pytest.mark.parametrize("other", NAMES)
def test_promotion_pairs_match_torch(other):
    for a, b in (("bfloat16", other), (other, "bfloat16")):
        assert _promote(numtorch, a, b) == _promote(torch, a, b), (a, b)


@pytest.mark.parametrize("scalar", [1, 2.5, True, 1j])
@pytest.mark.parametrize("other", ["int64", "float16", "float32", "bfloat16", "bool"])
def test_result_type_with_scalars_and_zero_dim_tensors(scalar, other):
    def res(lib):
        x = lib.ones(2, dtype=lib.bfloat16)
        z = lib.ones((), dtype=getattr(lib, other))
        return str((x + scalar).dtype), str((x + z).dtype), str((z.expand(2) * x).dtype)

    assert res(numtorch) == res(torch)


def test_finfo_matches_torch():
    a, b = numtorch.finfo(BF), torch.finfo(torch.bfloat16)
    for k in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(a, k) == getattr(b, k), k


def _conv(x, lib, bf):
    if isinstance(x, np.ndarray):
        t = lib.from_numpy(x.copy())
        return t.to(lib.bfloat16) if bf and x.dtype == np.float32 else t
    if isinstance(x, (list, tuple)):
        return type(x)(_conv(v, lib, bf) for v in x)
    if isinstance(x, dict):
        return {k: _conv(v, lib, bf) for k, v in x.items()}
    return x


def _resolve(lib, name):
    obj = lib
    for part in name.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def _flat(r):
    if isinstance(r, (tuple, list)):
        return [y for x in r for y in _flat(x)]
    return [r]


def _floats(x) -> bool:
    if isinstance(x, (list, tuple)):
        return any(_floats(v) for v in x)
    if isinstance(x, dict):
        return any(_floats(v) for v in x.values())
    return isinstance(x, np.ndarray) and x.dtype == np.float32


def _dtype_arg(x) -> bool:
    if isinstance(x, (list, tuple)):
        return any(_dtype_arg(v) for v in x)
    if isinstance(x, dict):
        return any(_dtype_arg(v) for v in x.values())
    return isinstance(x, (numtorch.dtype, np.dtype)) or isinstance(x, type) and x in (np.float32, np.float64)


UNSEEDED = {"empty_like", "Tensor.new_empty", "Tensor.new_empty_strided", "empty_strided", "empty"}
CASES = [i for i in op_db if "float32" in i.dtypes and not i.nondeterministic and i.name not in UNSEEDED]


@pytest.mark.parametrize("info", CASES, ids=lambda i: i.name)
def test_opinfo_samples_in_bfloat16_match_torch(info):
    tfn = _resolve(torch, info.name)
    if tfn is None:
        pytest.skip("no such torch function")
    fn = info.resolve()
    rng = np.random.default_rng(0)
    for s in info.sample_inputs("float32", rng):
        inp, args, kw = _rounded(s.input), _rounded(s.args), _rounded(s.kwargs)
        if not _floats((inp, args, kw)) or _dtype_arg((args, kw)):
            continue
        try:
            fn(*_conv((inp, *args), numtorch, False), **_conv(kw, numtorch, False))
        except Exception:
            continue  # a float32 refusal: the float32 parity tests cover it
        try:
            want, terr = tfn(*_conv((inp, *args), torch, True), **_conv(kw, torch, True)), None
        except Exception as e:
            want, terr = None, e
        if terr is not None:
            with pytest.raises(type(terr)) as got:
                fn(*_conv((inp, *args), numtorch, True), **_conv(kw, numtorch, True))
            assert str(got.value) == str(terr)
            continue
        got = fn(*_conv((inp, *args), numtorch, True), **_conv(kw, numtorch, True))
        for g, w in zip(_flat(got), _flat(want), strict=True):
            if not isinstance(w, torch.Tensor):
                continue
            assert str(g.dtype) == str(w.dtype)
            gv = g.detach().float().numpy() if g.dtype is BF else g.detach().numpy()
            wv = w.detach().float().numpy() if w.dtype is torch.bfloat16 else w.detach().numpy()
            assert gv.shape == wv.shape
            if wv.dtype.kind in "fc":
                scale = float(np.abs(wv[np.isfinite(wv)]).max(initial=1.0))
                np.testing.assert_allclose(gv, wv, rtol=2**-6, atol=2**-7 * scale, equal_nan=True)
            else:
                np.testing.assert_array_equal(gv, wv)


@pytest.mark.parametrize("vals", [[1.0, 2.7031], [1e-5, 1e5, float("nan")], [[1, 2], [3, 4]], 3.14159, [],
                                  [float("inf"), -0.0, 65536.0]])  # fmt: skip
def test_repr_matches_torch(vals):
    a = numtorch.tensor(vals, dtype=BF)
    b = torch.tensor(vals, dtype=torch.bfloat16)
    assert repr(a) == repr(b)
    assert repr(a * 2) == repr(b * 2)


def test_numpy_and_from_numpy_errors_match_torch():
    for lib in (numtorch, torch):
        with pytest.raises(TypeError) as e:
            lib.ones(2, dtype=lib.bfloat16).numpy()
        msgs = getattr(test_numpy_and_from_numpy_errors_match_torch, "msgs", [])
        msgs.append(str(e.value))
        with pytest.raises(TypeError) as e:
            lib.from_numpy(np.zeros(2, ml_dtypes.bfloat16))
        msgs.append(str(e.value))
        test_numpy_and_from_numpy_errors_match_torch.msgs = msgs
    m = test_numpy_and_from_numpy_errors_match_torch.msgs
    assert m[0] == m[2] and m[1] == m[3]


def test_cast_and_arithmetic_bits_match_torch():
    rng = np.random.default_rng(1)
    x = (rng.standard_normal(4096) * 10.0 ** rng.integers(-30, 30, 4096)).astype(np.float32)
    a, b = numtorch.from_numpy(x).to(BF), torch.from_numpy(x).to(torch.bfloat16)
    assert a.float().numpy().tobytes() == b.float().numpy().tobytes()
    for f in (lambda t: t * 3, lambda t: t.exp(), lambda t: t.sin(), lambda t: t / 7, lambda t: t.sqrt()):
        np.testing.assert_array_equal(f(a).float().numpy(), f(b).float().numpy())


def test_reductions_and_matmul_match_torch():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((64, 128)).astype(np.float32)
    a, b = numtorch.from_numpy(x).to(BF), torch.from_numpy(x).to(torch.bfloat16)
    for f in (lambda t: t.sum(), lambda t: t.sum(1), lambda t: t.mean(0), lambda t: t @ t.T, lambda t: t.softmax(1)):
        np.testing.assert_allclose(f(a).float().numpy(), f(b).float().numpy(), rtol=2**-7, atol=1e-2)


def test_autograd_matches_torch():
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal((4, 3)).astype(np.float32), rng.standard_normal((2, 3)).astype(np.float32)
    grads = []
    for lib in (numtorch, torch):
        xi = lib.from_numpy(x).to(lib.bfloat16).requires_grad_()
        wi = lib.from_numpy(w).to(lib.bfloat16).requires_grad_()
        lib.nn.functional.linear(xi, wi).tanh().sum().backward()
        assert xi.grad.dtype is lib.bfloat16
        grads.append((xi.grad.float().numpy(), wi.grad.float().numpy()))
    for g, t in zip(*grads, strict=True):
        np.testing.assert_allclose(g, t, rtol=2**-6, atol=1e-2)


def test_cpu_autocast_dtypes_match_torch():
    def run(lib):
        lib.manual_seed(0)
        m, x = lib.nn.Linear(3, 4), lib.randn(2, 3)
        with lib.autocast("cpu"):
            y = m(x)
            out = (y.dtype, (x @ x.T).dtype, lib.nn.functional.mse_loss(y, y.detach()).dtype,
                   lib.cat([y, x.double()], 1).dtype, (x + 1).dtype, lib.get_autocast_dtype("cpu"))  # fmt: skip
        return tuple(map(str, out))

    assert run(numtorch) == run(torch)


def test_checkpoints_move_both_ways():
    buf = io.BytesIO()
    torch.save({"w": torch.tensor([1.5, -2.25, 3.1], dtype=torch.bfloat16), "d": torch.bfloat16}, buf)
    buf.seek(0)
    r = numtorch.load(buf)
    assert r["w"].dtype is BF and r["w"].tolist() == [1.5, -2.25, 3.09375] and r["d"] is BF
    buf = io.BytesIO()
    numtorch.save({"w": r["w"][1:]}, buf)
    buf.seek(0)
    t = torch.load(buf)["w"]
    assert t.dtype is torch.bfloat16 and t.tolist() == [-2.25, 3.09375]
