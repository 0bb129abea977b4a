"""Note [Setitem fast call]: ``x[key] = value`` on a plain tensor nothing records writes through
NumPy where the body's writes are provably the same; the same values (bit for bit), the same
version counter move, and every other call (and every error) is the body's."""

from __future__ import annotations

import math

import numpy as np
import pytest

import numtorch as torch

from .._fastcall import BodyMode as _Body


@pytest.fixture
def body_calls():
    """The body's calls behind the setitem binding's fast call (its closure's ``body`` cell)."""
    fast = torch.Tensor.__setitem__.__globals__["_fop"]
    real = torch.Tensor.__setitem__.__globals__["_body"]
    (cell,) = [c for c in fast.__closure__ if c.cell_contents is real]
    calls = []

    def spy(*a):
        calls.append(a)
        return real(*a)

    cell.cell_contents = spy
    yield calls
    cell.cell_contents = real


S = slice


def _source(layout, dtype):
    a = np.arange(4 * 6, dtype=np.float64).reshape(4, 6).astype(dtype)
    if layout == "transposed":
        return torch.tensor(np.ascontiguousarray(a.T)).t()
    return torch.tensor(a)


FAST = [
    (0, 7), (-1, 2.5), (S(1, 3), -1), (S(None, None, 2), 0.5), ((S(None), 2), 9), ((1, S(2, None)), 3), (Ellipsis, 4),
    ((Ellipsis, -1), 1.5), ((1, 2), 8), (S(2, 2), 5), ("mask", 6), ("index", 7), ("index-", 2), (0, "row"),
    ((S(None), 0), "col"), (S(1, 3), "0-d"), (0, "lead1"), (Ellipsis, "full"), (0, True), (0, -0.0),
]  # fmt: skip


def _key(k, x):
    if k == "mask":
        return x > 10
    if k == "index":
        return torch.tensor([0, 2, 2])
    if k == "index-":
        return torch.tensor([[-1], [1]])
    return k


def _value(v, x, key):
    if not isinstance(v, str):
        return v
    shape = tuple(x[key].shape)
    return {
        "row": torch.tensor(np.full(shape, 3, dtype=x.numpy().dtype)),
        "col": torch.tensor(np.arange(shape[0]).astype(x.numpy().dtype)),
        "0-d": torch.tensor(np.array(5, dtype=x.numpy().dtype)),
        "lead1": torch.tensor(np.ones((1, *shape), dtype=x.numpy().dtype)),
        "full": torch.tensor(np.arange(24).reshape(4, 6).astype(x.numpy().dtype)),
    }[v]


def _run(x, key, value):
    before = x._version
    try:
        x[key] = value
    except Exception as e:  # noqa: BLE001  (both routes must raise alike)
        return type(e), str(e), x._version - before, x.numpy().copy()
    return None, None, x._version - before, x.numpy().copy()


def _same(got, want):
    assert got[:3] == want[:3]
    g, w = got[3], want[3]
    assert g.dtype == w.dtype and g.shape == w.shape
    if g.dtype.kind == "f":
        np.testing.assert_array_equal(g.view(np.uint8 if g.itemsize == 1 else f"u{g.itemsize}"),
                                      w.view(np.uint8 if w.itemsize == 1 else f"u{w.itemsize}"))  # fmt: skip
    else:
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "float16", "bool", "uint8"])
@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
@pytest.mark.parametrize("key,value", FAST, ids=repr)
def test_plain_writes_take_numpy_and_match_the_body(body_calls, dtype, layout, key, value):
    calls = body_calls
    x, y = _source(layout, dtype), _source(layout, dtype)
    k = _key(key, x)
    v = _value(value, x, k)
    got = _run(x, k, v)
    if got[0] is None:
        assert calls == [], "the body ran"
    with _Body():
        want = _run(y, _key(key, y), v)
    _same(got, want)


BODY = [
    ("grad", 0, 1.0), ("value grad", 0, "vgrad"), ("non-dense", 0, 1.0), ("conj", 0, 1.0), ("int32 index", "i32", 1.0),
    ("uint8 mask", "u8", 1.0), ("0-d mask", "m0", 1.0), ("tensor key value tensor", "index", "row"),
    ("other dtype value", 0, "f64"), ("shared memory", 0, "self"), ("complex value", 0, 1 + 2j), ("numpy value", 0, "np"),
    ("overflow", 0, 1e300), ("huge int", 0, 2**70), ("out of range int", 4, 1.0), ("out of range index", "oob", 1.0),
    ("bad mask shape", "badmask", 1.0), ("bad value shape", 0, "bad"), ("None key", None, 1.0), ("bool key", True, 1.0),
    ("negative step", S(None, None, -1), 1.0), ("expanded", 0, 1.0), ("inference", 0, 1.0), ("nan into int", 0, math.nan),
]  # fmt: skip


@pytest.mark.parametrize("case,key,value", BODY, ids=[c[0] for c in BODY])
def test_other_writes_take_the_body(body_calls, case, key, value):
    def make():
        if case == "nan into int":
            return torch.zeros(4, 6, dtype=torch.int64)
        if case == "expanded":
            return torch.zeros(6).expand(4, 6)
        if case == "non-dense":
            return torch.zeros(4, 12)[:, ::2]
        if case == "conj":
            return (torch.zeros(4, 6) * 1j).conj()
        if case == "inference":
            with torch.inference_mode():
                return torch.zeros(4, 6)
        x = torch.zeros(4, 6)
        return x.requires_grad_() if case == "grad" else x

    def key_of(x):
        return {"i32": torch.tensor([0, 1], dtype=torch.int32), "u8": torch.tensor([1, 0, 1, 0], dtype=torch.uint8),
                "m0": torch.tensor(True), "index": torch.tensor([0, 1]), "oob": torch.tensor([0, 9]),
                "badmask": torch.ones(3, dtype=torch.bool)}.get(key, key) if isinstance(key, str) else key  # fmt: skip

    def value_of(x):
        if not isinstance(value, str):
            return value
        return {"vgrad": torch.ones(6, requires_grad=True), "row": torch.ones(2, 6), "f64": torch.ones(6, dtype=torch.float64),
                "self": x[1] if x.dim() == 2 else None, "np": np.float32(2.0), "bad": torch.ones(5)}[value]  # fmt: skip

    def run(x):
        try:
            x[key_of(x)] = value_of(x)
        except Exception as e:  # noqa: BLE001
            return type(e).__name__, str(e)
        return x.detach().resolve_conj().numpy().tolist(), x._version

    calls = body_calls
    got = run(make())
    assert len(calls) == 1, "the fast call did not decline"
    with _Body():
        want = run(make())
    assert got == want


def test_float16_overflow_and_bool_values_convert_as_the_body():
    x = torch.zeros(3, dtype=torch.float16)
    x[0] = 1e10
    x[1] = True
    x[2] = 65510
    assert x.tolist() == [math.inf, 1.0, 65504.0]
    y = torch.zeros(3, dtype=torch.int8)
    with pytest.raises(RuntimeError, match="value cannot be converted to type int8_t without overflow"):
        y[0] = 300
    assert y.tolist() == [0, 0, 0] and y._version == 0
