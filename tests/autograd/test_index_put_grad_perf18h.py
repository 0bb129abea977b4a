"""Note [index_put's gradient in NumPy]: index_put's backward (self when not accumulating,
values) in NumPy under the gate, bit for bit the ops' gradients; everything else runs the ops."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops.indexing import _index_put_grad as ipg


@pytest.fixture
def spy(monkeypatch):
    calls = []
    for name in ("self_grad", "values_grad"):
        real = getattr(ipg, name)

        def counted(*args, _real=real, _name=name):
            calls.append(_name)
            return _real(*args)

        monkeypatch.setattr(ipg, name, counted)
    return calls


def _i(*v):
    return torch.tensor(np.array(v, np.int64))


_CASES = {
    "pairs": ((3, 4), lambda: [_i(0, 2), _i(1, 3)], (2,)),
    "negative": ((3, 4), lambda: [_i(-1, 0), _i(-4, 3)], (2,)),
    "rows": ((3, 4), lambda: [_i(2, 0)], (2, 4)),
    "none_first": ((3, 4), lambda: [None, _i(3, 1, -4)], (3, 3)),
    "broadcast": ((2, 3, 4), lambda: [_i(1), _i([0], [2])], (4,)),
    "repeated": ((3, 4), lambda: [_i(1, 1), _i(2, 2)], ()),
}


def _grads(shape, indices, vshape, dt, accumulate, create_graph, transpose=False):
    rng = np.random.default_rng(1)
    x = torch.tensor(rng.standard_normal(shape)).to(dt)
    if transpose:
        x = x.mT.contiguous().mT
    x.requires_grad_(True)
    v = torch.tensor(rng.standard_normal(vshape)).to(dt).requires_grad_(True)
    y = x.index_put(indices, v, accumulate)
    w = torch.tensor(rng.standard_normal(y.shape)).to(dt)
    return torch.autograd.grad((y * w).sum(), (x, v), create_graph=create_graph)


@pytest.mark.parametrize("case", sorted(_CASES))
@pytest.mark.parametrize("dt", [torch.float32, torch.float64], ids=str)
@pytest.mark.parametrize("transpose", [False, True])
def test_gradients_are_the_ops_bit_for_bit(case, dt, transpose, spy):
    shape, idx, vshape = _CASES[case]
    for accumulate in (False, True):
        n = len(spy)
        got = _grads(shape, idx(), vshape, dt, accumulate, False, transpose)
        want = _grads(shape, idx(), vshape, dt, accumulate, True, transpose)  # a graph: the ops
        assert spy[n:] == (["values_grad"] if accumulate else ["values_grad", "self_grad"]) or spy[
            n:
        ] == (["self_grad", "values_grad"])
        for g, r in zip(got, want, strict=True):
            assert g.dtype == r.dtype and g.shape == r.shape and g.stride() == r.stride()
            assert g.detach().numpy().tobytes() == r.detach().numpy().tobytes()


@pytest.mark.parametrize(
    "dt, idx",
    [
        (torch.float16, lambda: [_i(0, 2), _i(1, 3)]),
        (torch.bfloat16, lambda: [_i(0, 2), _i(1, 3)]),
        (torch.complex64, lambda: [_i(0, 2), _i(1, 3)]),
        (torch.float32, lambda: [torch.tensor([0, 2], dtype=torch.int32), _i(1, 3)]),
        (torch.float32, lambda: [torch.tensor([[True, False, True, False]] * 3)]),
        (torch.float32, lambda: [torch.zeros(0, dtype=torch.int64)]),
    ],
    ids=["float16", "bfloat16", "complex64", "int32-index", "mask", "empty"],
)
def test_other_dtypes_and_indices_run_the_ops(dt, idx, spy):
    x = torch.ones(3, 4, dtype=dt, requires_grad=True)
    i = idx()
    v = torch.ones(() if i[0].dtype == torch.bool else i[0].shape + (4,) * (len(i) == 1), dtype=dt)
    v.requires_grad_(True)
    y = x.index_put(i, v)
    y.backward(torch.ones(y.shape, dtype=dt))
    assert not spy
    assert x.grad is not None and v.grad is not None


@pytest.mark.parametrize("case", sorted(_CASES))
def test_gradcheck_and_gradgradcheck(case):
    shape, idx, vshape = _CASES[case]
    x = torch.randn(*shape, dtype=torch.float64, requires_grad=True)
    v = torch.randn(*vshape, dtype=torch.float64, requires_grad=True)
    for acc in (False, True):
        if case == "repeated" and not acc:
            continue  # which repeated write wins is not differentiable
        f = lambda a, b, acc=acc: a.index_put(idx(), b, acc)  # noqa: E731
        assert torch.autograd.gradcheck(f, (x, v)) and torch.autograd.gradgradcheck(f, (x, v))
