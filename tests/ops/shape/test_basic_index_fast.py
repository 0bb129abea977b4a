"""Note [Basic index tuples]: ``x[key]`` for a tuple of slices, ints and one Ellipsis, with
nothing to record, is NumPy's view of the same memory, with the sizes, strides, offset, base and
version counter the body's select/slice chain gives; every other key (None included), and a
call that records, takes the body (and its errors). Note [New axes in a basic index]: a key with
None and nothing but ``:``/Ellipsis after its first None is the same view with PyTorch's strides."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops.shape import views

from .._fastcall import BodyMode as _Body


def _route_spy(monkeypatch, name):
    """Whether each call of views.<name> (a route of the getitem fast call) gave a result."""
    seen = []
    real = getattr(views, name)

    def spy(*a):
        r = real(*a)
        seen.append(r is not None)
        return r

    monkeypatch.setattr(views, name, spy)
    return seen


@pytest.fixture
def taken(monkeypatch):
    return _route_spy(monkeypatch, "basic_view")


S = slice
FAST_KEYS = [
    (S(None), S(None, 2), S(None, 3)), (S(None), 1), (Ellipsis, 0), (0, Ellipsis, S(1, None)),
    (1, 2), (1, 2, 3), (-1, -2, -3), (S(-2, None), S(None, None, 2)), (S(0, 2), S(-3, 2)), (Ellipsis,),
    (1, Ellipsis, 2), (S(1, 2, 3), 0, S(None)), (S(None, None, 5),), (), (S(None), S(None), S(1, 5, 2)),
]  # fmt: skip
BODY_KEYS = [
    (S(None), [0, 1]), (S(None), True), (np.int64(1), 0), (S(None, None, -1),), (S(None, None, 0),), (5, 0), (0, -6),
    (Ellipsis, Ellipsis), (0, 1, 2, 3), (S(2, 2),), (S(None), S(3, 1)), (S(None), torch.tensor(1)), (S(1.0, None),),
    (S(10, 20),), (S(0, 10), S(-3, 2)), (S(-7, 1),), (S(None), None, 2), (None, 0), (0, Ellipsis, Ellipsis),
]  # fmt: skip


def _source(contiguous):
    if contiguous:
        return torch.tensor(np.arange(2 * 3 * 5, dtype=np.float32).reshape(2, 3, 5))
    base = torch.tensor(np.arange(6 * 3 * 2, dtype=np.float32).reshape(6, 3, 2))
    return base.permute(2, 1, 0)[:, :, 1:]  # (2, 3, 5), strides (1, 2, 6), offset 6


@pytest.mark.parametrize("contiguous", [True, False])
@pytest.mark.parametrize("key", FAST_KEYS, ids=repr)
def test_basic_tuples_take_the_view_and_match_the_body(taken, key, contiguous):
    x = _source(contiguous)
    taken.clear()  # the source's own [:, :, 1:]
    got = x[key]
    assert taken == [True]
    with _Body():
        want = x[key]
    assert got.shape == want.shape and got.stride() == want.stride()
    assert got.storage_offset() == want.storage_offset()
    assert got.dtype is want.dtype and got.grad_fn is None
    np.testing.assert_array_equal(got.numpy(), x.numpy()[key])
    root = x if x._base is None else x._base
    assert got._base is root and want._base is root
    x.add_(1)  # a view of the same memory, with its version counter
    assert got._version == x._version
    np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("key", BODY_KEYS, ids=repr)
def test_other_keys_take_the_body(taken, key):
    x = _source(True)

    def outcome():
        try:
            r = x[key]
        except Exception as e:  # noqa: BLE001  (both routes must raise alike)
            return type(e), str(e)
        return r.shape, r.stride(), r.storage_offset(), r.tolist()

    got = outcome()
    assert not any(taken)
    with _Body():
        want = outcome()
    assert got == want


def test_a_call_that_records_two_nodes_takes_the_body(taken):
    x = torch.arange(30.0).reshape(2, 3, 5).requires_grad_()
    y = x[:, 1:, 2]
    assert taken == [] and y.grad_fn is not None
    y.sum().backward()
    want = np.zeros((2, 3, 5))
    want[:, 1:, 2] = 1
    np.testing.assert_array_equal(x.grad.numpy(), want)
    with torch.no_grad():
        z = x[:, 1:, 2]
    assert taken == [True] and z.grad_fn is None and not z.requires_grad


RECORDED_KEYS = [
    (S(None), -1), (S(None), S(None, -1), S(None)), (Ellipsis, S(2, 9, 3)), (-1, Ellipsis), (S(1, None),),
    (S(None), S(None), 0), (Ellipsis, 1, S(None)), (S(None), S(-3, 7)),
]  # fmt: skip


@pytest.mark.parametrize("key", RECORDED_KEYS, ids=repr)
def test_one_recorded_item_takes_the_view_with_the_bodys_node(taken, key):
    x = torch.tensor(np.arange(4 * 8 * 16, dtype=np.float64).reshape(4, 8, 16)).requires_grad_()
    got = x[key]
    assert taken == [True]
    with _Body():
        want = x[key]
    assert type(got.grad_fn) is type(want.grad_fn) and got.grad_fn._saved == want.grad_fn._saved
    assert got.grad_fn.next_functions == want.grad_fn.next_functions
    assert got.shape == want.shape and got.stride() == want.stride() and got._base is x
    np.testing.assert_array_equal(got.detach().numpy(), x.detach().numpy()[key])
    w = torch.tensor(np.random.default_rng(0).normal(size=tuple(got.shape)))
    (g,) = torch.autograd.grad((got * w).sum(), x)
    ref = np.zeros((4, 8, 16))
    ref[key] = w.numpy()
    np.testing.assert_array_equal(g.numpy(), ref)
    assert torch.autograd.gradcheck(lambda t: t[key], (x,))


def test_zero_dim_and_empty_sources():
    e = torch.zeros(0, 3)
    assert e[:, 1:].shape == (0, 2) and e[..., 0].shape == (0,)
    with pytest.raises(IndexError):
        e[0, 0]
    s = torch.tensor(2.5)
    assert s[()].item() == 2.5 and s[None].shape == (1,) and s[...].shape == ()


@pytest.fixture
def took(monkeypatch):
    return _route_spy(monkeypatch, "take_rows")


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool", "complex64", "float16"])
@pytest.mark.parametrize("index", [[0, 2, -1], [[1, 0], [3, 3]], [], [-4], [[[2]]]])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "1-d"])
def test_one_index_tensor_gathers_rows_as_the_body(took, dtype, index, layout):
    a = np.arange(24).reshape(4, 6).astype(dtype)
    x = torch.tensor(a)
    if layout == "transposed":
        x = torch.tensor(np.ascontiguousarray(a.T)).t()  # (4, 6), strides (1, 4)
    elif layout == "1-d":
        x = torch.tensor(a[:, 0].copy())
    for idt in (torch.int64, torch.int32):
        i = torch.tensor(index, dtype=idt)
        took.clear()
        got = x[i]
        assert took == [True]
        with _Body():
            want = x[i]
        assert got.shape == want.shape and got.stride() == want.stride() and got.dtype is want.dtype
        assert got.is_contiguous() and got._base is None and got.grad_fn is None
        np.testing.assert_array_equal(got.numpy(), x.numpy()[np.asarray(index, dtype=np.int64)])
        x.add_(1) if dtype != "bool" else x.logical_not_()  # a copy: keeps the values it read
        assert not np.array_equal(got.numpy(), x.numpy()[np.asarray(index, dtype=np.int64)]) or not index


@pytest.mark.parametrize(
    "case", ["out of range", "negative out of range", "0-d", "bool mask", "uint8 mask", "float", "records", "conj"]
)
def test_other_index_tensors_take_the_body(took, case):
    x = torch.arange(24.0).reshape(4, 6)
    i = {"out of range": torch.tensor([1, 4]), "negative out of range": torch.tensor([-5]), "0-d": torch.tensor(2),
         "bool mask": torch.tensor([True, False, True, False]), "uint8 mask": torch.tensor([1, 0, 1, 0], dtype=torch.uint8),
         "float": torch.tensor([1.0]), "records": torch.tensor([0, 1]), "conj": torch.tensor([0, 1])}[case]  # fmt: skip
    if case == "records":
        x.requires_grad_()
    if case == "conj":
        x = (x * (1 + 1j)).conj()

    def outcome():
        try:
            r = x[i]
        except Exception as e:  # noqa: BLE001  (both routes must raise alike)
            return type(e), str(e)
        return r.shape, r.stride(), r.detach().resolve_conj().numpy().tolist(), r.is_conj(), r.grad_fn is not None

    got = outcome()
    assert not any(took)
    with _Body():
        want = outcome()
    assert got == want
    if case == "records":
        assert got[-1]


NEWAXIS_KEYS = [
    None, (None,), (S(None), None), (Ellipsis, None), (None, Ellipsis), (S(None), None, S(None)), (1, None),
    (S(1, None), None), (None, S(None), None), (Ellipsis, None, None), (0, S(1, 3), None), (S(None, None, 2), None),
]  # fmt: skip


@pytest.mark.parametrize("contiguous", [True, False])
@pytest.mark.parametrize("key", NEWAXIS_KEYS, ids=repr)
def test_new_axes_take_the_view_with_pytorchs_strides(monkeypatch, key, contiguous):
    seen = _route_spy(monkeypatch, "newaxis_view")
    x = _source(contiguous)
    got = x[key]
    with _Body():
        want = x[key]
    # PyTorch's unsqueeze stride: the next dim's size * stride, 1 at the end (NumPy's is 0)
    assert got.shape == want.shape and got.stride() == want.stride() and 0 not in got.stride()
    assert got.storage_offset() == want.storage_offset() and got.grad_fn is None
    np.testing.assert_array_equal(got.numpy(), x.numpy()[key])
    root = x if x._base is None else x._base
    assert got._base is root
    x.add_(1)
    assert got._version == x._version
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    # the view route for a C-contiguous view without unit dims; the body otherwise
    assert any(seen) == (contiguous and key not in ((S(None, None, 2), None), (S(1, None), None))), seen


def test_new_axes_with_unit_dims_or_records_take_the_body(monkeypatch):
    seen = _route_spy(monkeypatch, "newaxis_view")
    base = torch.tensor(np.arange(6.0).reshape(6, 1))
    u = base.as_strided((3, 1), (2, 5))  # a unit dim with a stride NumPy's reshape would not keep
    got = u[:, None]
    with _Body():
        want = u[:, None]
    assert got.stride() == want.stride() == (2, 5, 5) and not any(seen)
    x = torch.ones(2, 3, requires_grad=True)
    y = x[:, None]
    assert type(y.grad_fn).__name__ == "UnsqueezeBackward0" and seen == [False] * len(seen)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.ones((2, 3)))
