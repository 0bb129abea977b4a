"""Note [Attention fast call]: F.scaled_dot_product_attention's fast call gives the composite's
bits (scaled products, causal mask, safe softmax's zeroed rows) and leaves masks, dropout, gqa,
strided or mixed inputs, errors, modes, gradients and registered kernels to the body."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch as torch
import numtorch.nn.functional as F
from numtorch.ops._registry import BINDINGS
from numtorch.ops.nn import attention_fast as AF
from numtorch.testing._internal.logging_tensor import LoggingTensorMode, capture_logs

from ._fastcheck import outcome, same


def _body(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False):
    (b,) = [b for b in BINDINGS if b.module == "torch.nn.functional" and b.name == "scaled_dot_product_attention"]
    return b.body(q, k, v, attn_mask, dropout_p, is_causal, scale, enable_gqa)


def _spy(monkeypatch):
    ran = []
    real = AF._sdpa
    monkeypatch.setattr(AF, "_sdpa", lambda *a: ran.append(real(*a) is not None) or real(*a))
    return ran


def _t(rng, shape, dtype, special=False):
    v = rng.standard_normal(shape) * 3
    if special:
        v.reshape(-1)[:4] = [np.inf, -np.inf, np.nan, 0.0]
    return torch.from_numpy(v).to(dtype)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("shapes", [((2, 3, 2), (2, 3, 2), (2, 3, 2)), ((2, 4, 5, 8), (2, 4, 7, 8), (2, 4, 7, 3)),
                                    ((6, 4), (3, 4), (3, 5)), ((1, 40, 16), (1, 40, 16), (1, 40, 16))])  # fmt: skip
@pytest.mark.filterwarnings("error")  # as quiet as the body: inf * 0 and inf - inf warn nothing
def test_fast_call_gives_the_bodys_bits(dtype, shapes, monkeypatch):
    ran = _spy(monkeypatch)
    rng = np.random.default_rng(len(shapes[0]))
    for special in (False, True):
        q, k, v = (_t(rng, s, dtype, special and i == 1) for i, s in enumerate(shapes))
        for is_causal in (False, True):
            for scale in (None, 0.5, -0.3, 2, 0.0):
                for _ in range(2):  # the first call plans the softmax
                    ran.clear()
                    same(F.scaled_dot_product_attention(q, k, v, is_causal=is_causal, scale=scale),
                         _body(q, k, v, None, 0.0, is_causal, scale))  # fmt: skip
                    assert ran == [True]


def test_rows_of_minus_infinity_are_zeroed_as_safe_softmax_zeroes_them(monkeypatch):
    ran = _spy(monkeypatch)
    q = torch.ones(1, 3, 2)
    k = torch.tensor([[[-np.inf, 1.0], [2.0, 0.5], [1.0, 1.0]]])
    v = torch.randn(1, 3, 4)
    r = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    same(r, _body(q, k, v, None, 0.0, True))
    assert ran == [True] and r[0, 0].abs().sum().item() == 0.0  # the first row saw only -inf


def test_the_rest_takes_the_body(monkeypatch):
    rng = np.random.default_rng(1)
    q, k, v = (_t(rng, (2, 3, 4), torch.float32) for _ in range(3))
    ran = _spy(monkeypatch)
    cases = [((q, k, v), {"attn_mask": torch.ones(3, 3, dtype=torch.bool)}), ((q, k, v), {"attn_mask": torch.zeros(3, 3)}),
             ((q, k, v), {"enable_gqa": True}), ((q.transpose(1, 2).contiguous().transpose(1, 2), k, v), {}),
             ((q, k.double(), v), {}), ((q, k[:, :, :3], v), {}), ((q, k, v[:, :2]), {}), ((q[:, :0], k, v), {}),
             ((q.half(), k.half(), v.half()), {}), ((q, k, v), {"scale": True}), ((q, k, v), {"is_causal": 1}),
             ((q, k, v), {"attn_mask": torch.zeros(3, 3), "is_causal": True})]  # fmt: skip
    for args, kw in cases:
        same(outcome(F.scaled_dot_product_attention, *args, **kw), outcome(_body, *args, **kw))
    assert True not in ran
    torch.manual_seed(0)
    r = F.scaled_dot_product_attention(q, k, v, dropout_p=0.5)  # dropout draws: the body
    torch.manual_seed(0)
    same(r, _body(q, k, v, None, 0.5))
    assert True not in ran
    qg = q.clone().requires_grad_(True)
    r = F.scaled_dot_product_attention(qg, k, v)
    assert r.grad_fn is not None
    r.sum().backward()
    assert qg.grad is not None and True not in ran
    with capture_logs() as logs, LoggingTensorMode():
        F.scaled_dot_product_attention(q, k, v, is_causal=True)
    assert any("softmax" in s for s in logs) and True not in ran
    with torch.nn.attention.sdpa_kernel(torch.nn.attention.SDPBackend.MATH):
        same(F.scaled_dot_product_attention(q, k, v), _body(q, k, v))


def test_a_registered_kernel_replaces_the_fast_call():
    q = torch.randn(2, 3, 4)
    for _ in range(2):
        want = F.scaled_dot_product_attention(q, q, q)
    seen = []
    lib = torch.library.Library("aten", "IMPL")
    try:
        lib.impl("add.Tensor", lambda *a, **k: seen.append(1) or torch.zeros(2, 3, 3), "CPU")
        F.scaled_dot_product_attention(q, q, q, is_causal=True)
        assert seen
    finally:
        lib._destroy()
    same(F.scaled_dot_product_attention(q, q, q), want)
