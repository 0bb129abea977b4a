"""Note [einsum backward plans]: einsum's derivative, planned once per equation and shapes,
gives the unplanned derivative's gradients bit for bit (the same dispatches on the same
operands), and a second backward of the same shapes does not parse the equation again; a
contraction's result never shares its operands' memory (a pair's without np.shares_memory)."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops.linalg import _contract as C


def _old_einsum_backward(grad, equation, tensors):
    """einsum_backward as it was before its plans (parsed and built on every call)."""
    from numtorch._dispatch import dispatch
    from numtorch._ops import ops
    from numtorch.ops.factory.core import eye_m, ones

    einsum_op = ops.aten.einsum.default
    labels, out, sizes = C.parse(equation, [t._data.shape for t in tensors])
    used = sorted(set(out).union(*labels))
    letter = {x: C._char((i + 26) % 52) for i, x in enumerate(used)}
    fresh = iter(C._char((i + 26) % 52) for i in range(len(used), C._NLETTERS))
    dt, kw = grad._dtype, [None, None, None]
    cplx = dt.is_complex
    grads = []
    for i, t in enumerate(tensors):
        others = [(u.conj() if cplx else u, "".join(letter[x] for x in labels[j]))
                  for j, u in enumerate(tensors) if j != i]  # fmt: skip
        extra, target, seen = [], [], set()
        for x in labels[i]:
            if x in seen:
                f = next(fresh)
                target.append(f)
                extra.append((dispatch(eye_m, [sizes[x], sizes[x], dt, *kw]), letter[x] + f))
            else:
                seen.add(x)
                target.append(letter[x])
        have = set("".join(letter[x] for x in out) + "".join(s for _, s in others + extra))
        for dim, x in enumerate(labels[i]):
            if letter[x] not in have:
                have.add(letter[x])
                extra.append((dispatch(ones, [[t._data.shape[dim]], dt, *kw]), letter[x]))
        subs = ["".join(letter[x] for x in out)] + [s for _, s in others + extra]
        eq = ",".join(subs) + "->" + "".join(target)
        g = dispatch(einsum_op, [eq, [grad] + [u for u, _ in others + extra], None])
        full = np.broadcast_shapes(g._data.shape, t._data.shape)
        grads.append(g if full == g._data.shape else g.expand(list(full)))
    return grads


CASES = [
    ("ab,cb->ac", [(2, 3), (4, 3)]),  # inner of two matrices
    ("abc,bcd->ad", [(2, 3, 4), (3, 4, 5)]),  # tensordot
    ("ij,jk->ik", [(3, 1), (1, 4)]),  # k = 1
    ("ii->i", [(3, 3)]),  # a diagonal: an identity operand
    ("iij,jk->ik", [(2, 2, 3), (3, 4)]),
    ("ij,k->ik", [(2, 3), (4,)]),  # j summed in its operand alone: a ones operand
    ("bij,bjk->bik", [(1, 2, 3), (4, 3, 2)]),  # a size-1 batch: the engine sums the grad
    ("i...,...->i", [(2, 3, 4), (1, 4)]),  # ellipsis, broadcast
    ("ij,ij->", [(2, 1), (1, 3)]),
    ("abc->", [(2, 0, 3)]),  # empty
    ("a,b,c->abc", [(2,), (3,), (2,)]),  # three operands
]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.complex64])
@pytest.mark.parametrize(("equation", "shapes"), CASES, ids=[c[0] for c in CASES])
def test_planned_gradients_are_the_unplanned_ones(equation, shapes, dtype):
    g = torch.Generator().manual_seed(3)
    tensors = [torch.randn(*s, generator=g, dtype=dtype) for s in shapes]
    out = torch.einsum(equation, *tensors)
    grad = torch.randn(*out.shape, generator=g, dtype=dtype)
    C._GRAD_PLANS.clear()
    for _ in range(2):  # planned, then from the plan
        new = C.einsum_backward(grad, equation, tensors)
        old = _old_einsum_backward(grad, equation, tensors)
        assert len(new) == len(old)
        for a, b in zip(new, old, strict=True):
            assert a.dtype == b.dtype and a.shape == b.shape and a.stride() == b.stride()
            np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_a_second_backward_of_the_same_shapes_does_not_parse(monkeypatch):
    C._GRAD_PLANS.clear()
    a = torch.randn(2, 3, requires_grad=True)
    b = torch.randn(4, 3, requires_grad=True)
    torch.inner(a, b).sum().backward()
    first = (a.grad.clone(), b.grad.clone())
    calls = []
    real = C.parse
    monkeypatch.setattr(C, "parse", lambda *args: calls.append(args) or real(*args))
    a.grad = b.grad = None
    torch.inner(a, b).sum().backward()
    assert calls == []  # the forward's plans (Note [einsum plans]) and the backward's
    torch.testing.assert_close(a.grad, first[0], rtol=0, atol=0)
    torch.testing.assert_close(b.grad, first[1], rtol=0, atol=0)
    expect = np.ones((2, 4), np.float32) @ b.detach().numpy()
    np.testing.assert_allclose(a.grad.numpy(), expect, rtol=1e-6)


def test_gradients_match_finite_differences_from_a_plan():
    C._GRAD_PLANS.clear()
    for _ in range(2):
        x = torch.randn(3, 3, dtype=torch.float64, requires_grad=True)
        y = torch.randn(3, 2, dtype=torch.float64, requires_grad=True)
        assert torch.autograd.gradcheck(lambda x, y: torch.einsum("ii,ij->j", x, y), (x, y))


@pytest.mark.parametrize(
    ("equation", "shapes"), CASES + [("ij->ji", [(2, 3)]), ("ii->i", [(3, 3)])]
)
def test_results_never_share_the_operands_memory(equation, shapes, monkeypatch):
    calls = []
    real = np.shares_memory
    monkeypatch.setattr(np, "shares_memory", lambda *a: calls.append(a) or real(*a))
    tensors = [torch.randn(*s) for s in shapes]
    r = torch.einsum(equation, *tensors)
    assert not any(real(r.numpy(), t.numpy()) for t in tensors)
    assert bool(calls) == (len(shapes) != 2)  # a pair's result is product()'s fresh array
