"""F.multi_head_attention_forward's fast call (Note [Multi-head attention fast call]): the body's
bits, views and errors, taken only where nothing could see the difference."""

import numpy as np
import pytest

import numtorch as torch
from numtorch.ops.nn import attention as A
from numtorch.ops.nn import attention_mha_fast as M
from numtorch.utils._python_dispatch import TorchDispatchMode

F = torch.nn.functional


@pytest.fixture
def spy(monkeypatch):
    calls = []
    real = M._linear_rows

    def counted(x, w, b):
        calls.append(1)
        return real(x, w, b)

    monkeypatch.setattr(M, "_linear_rows", counted)
    return calls


def _args(rng, L, S, N, E, H, dtype, same, unbatched=False, transposed=False, out_bias=True):
    def t(*shape):
        return torch.from_numpy(rng.standard_normal(shape).astype(dtype))

    if transposed:  # a batch_first module hands over (N, L, E).transpose(0, 1)
        q = t(N, L, E).transpose(0, 1)
        k = q if same else t(N, S, E).transpose(0, 1)
    else:
        q = t(L, E) if unbatched else t(L, N, E)
        k = q if same else (t(S, E) if unbatched else t(S, N, E))
    v = q if same else t(*k.shape)
    return [
        q,
        k,
        v,
        E,
        H,
        t(3 * E, E),
        t(3 * E),
        None,
        None,
        False,
        0.0,
        t(E, E),
        t(E) if out_bias else None,
    ]


def _same(a, b):
    if a is None or b is None:
        assert a is b
        return
    assert type(a) is type(b) and a.dtype == b.dtype and a.shape == b.shape
    assert a._data.strides == b._data.strides
    assert (a._base is None) == (b._base is None)
    assert np.array_equal(a._data.view(np.uint8), b._data.view(np.uint8))


CASES = [
    dict(L=2, S=2, N=1, E=4, H=2),  # the sweep's case
    dict(L=3, S=5, N=2, E=6, H=3),
    dict(L=4, S=4, N=3, E=8, H=1),
    dict(L=1, S=3, N=2, E=4, H=4),
    dict(L=5, S=2, N=1, E=12, H=2),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("same", [False, True])
@pytest.mark.parametrize("layout", ["batched", "unbatched", "transposed"])
@pytest.mark.parametrize("need_weights,average", [(True, True), (True, False), (False, True)])
def test_fast_call_returns_the_bodys_bits(spy, dtype, case, same, layout, need_weights, average):
    rng = np.random.default_rng(sum(case.values()) + same + len(layout))
    if same:
        case = dict(case, S=case["L"])
    args = _args(rng, **case, dtype=dtype, same=same, unbatched=layout == "unbatched",
                 transposed=layout == "transposed")  # fmt: skip
    for training, p in ((True, 0.0), (False, 0.5)):
        kw = dict(training=training, need_weights=need_weights, average_attn_weights=average)
        a = list(args)
        a[10] = p
        spy.clear()
        out, w = F.multi_head_attention_forward(*a, **kw)
        assert spy, "the fast call was not taken"
        ref_out, ref_w = A._mha_forward(*a, training, None, need_weights, None, False, None, None, None,
                                        None, None, average, False)  # fmt: skip
        _same(out, ref_out)
        _same(w, ref_w)


@pytest.mark.parametrize("out_bias", [False, True])
def test_module_in_inference_takes_the_fast_call(spy, out_bias):
    torch.manual_seed(0)
    m = torch.nn.MultiheadAttention(8, 2, bias=True, batch_first=True)
    if not out_bias:
        m.out_proj.bias = None
    x = torch.randn(3, 5, 8)
    with torch.no_grad():
        out, w = m(x, x, x)
        assert spy
        spy.clear()
    out2, w2 = m(x, x, x)  # parameters record: the body
    assert not spy and out2.grad_fn is not None
    assert torch.equal(out, out2.detach()) and torch.equal(w, w2.detach())


def _declines(spy, args, **kw):
    spy.clear()
    r = F.multi_head_attention_forward(*args, **kw)
    assert not spy, "the fast call was taken"
    return r


def test_masks_biases_dropout_and_grad_take_the_body(spy):
    rng = np.random.default_rng(1)
    args = _args(rng, L=3, S=3, N=2, E=4, H=2, dtype=np.float32, same=False)
    _declines(spy, args, attn_mask=torch.zeros(3, 3))
    _declines(spy, args, key_padding_mask=torch.zeros(2, 3, dtype=torch.bool))
    _declines(spy, args[:7] + [torch.zeros(1, 1, 4), torch.zeros(1, 1, 4)] + args[9:])
    _declines(spy, args[:9] + [True] + args[10:])
    torch.manual_seed(0)
    _declines(spy, args[:10] + [0.5] + args[11:], training=True)
    w = args[5].clone().requires_grad_()
    out, _ = _declines(spy, args[:5] + [w] + args[6:])
    assert out.grad_fn is not None
    half = [a.half() if isinstance(a, torch.Tensor) else a for a in args]
    _declines(spy, half)

    class Mode(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    with Mode():
        _declines(spy, args)


def test_errors_are_the_bodys(spy):
    rng = np.random.default_rng(2)
    args = _args(rng, L=3, S=3, N=2, E=4, H=3, dtype=np.float32, same=False)
    with pytest.raises(AssertionError, match="embed_dim 4 not divisible by num_heads 3"):
        F.multi_head_attention_forward(*args)
    args = _args(rng, L=3, S=3, N=2, E=4, H=2, dtype=np.float32, same=False)
    with pytest.raises(AssertionError, match="was expecting embedding dimension of 5, but got 4"):
        F.multi_head_attention_forward(*args[:3], 5, *args[4:])
    assert not spy


def test_a_kernel_registered_over_addmm_is_called():
    rng = np.random.default_rng(3)
    args = _args(rng, L=2, S=2, N=1, E=4, H=2, dtype=np.float32, same=False)
    ref, _ = F.multi_head_attention_forward(*args)
    seen = []
    lib = torch.library.Library("aten", "IMPL")
    try:

        def addmm(self, mat1, mat2, beta=1, alpha=1):
            seen.append(1)
            return torch.ops.aten.mm.default(mat1, mat2) + self

        lib.impl("addmm", addmm, "CPU")
        out, _ = F.multi_head_attention_forward(*args)
    finally:
        lib._destroy()
    assert seen
    assert torch.allclose(out, ref, atol=1e-6)
