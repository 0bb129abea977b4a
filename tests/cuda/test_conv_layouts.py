"""Convolution, unfold and fold on CUDA through their storage-level layouts (Note [Storage-level
CUDA views]): batches of one and more (the channel swap a no-copy or a copy), strided operands
(the public ops' copies), unbatched unfold/fold, grouped transposed convolution; values and
gradients against the CPU, and results that are new storage, never aliases of an input."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
import numtorch.nn.functional as F

from ._sim import requires_cuda

pytestmark = requires_cuda
rng = np.random.default_rng(11)


def _run(fn, arrays, dev, strided=()):
    ts = [numtorch.tensor(a, device=dev, requires_grad=True) for a in arrays]
    # a strided operand: the transpose of a transposed copy (same values, other strides)
    ins = [t.detach().transpose(-1, -2).contiguous().transpose(-1, -2).requires_grad_() if i in strided else t
           for i, t in enumerate(ts)]  # fmt: skip
    out = fn(*ins)
    w = numtorch.tensor(np.linspace(-1, 1, out.numel()).reshape(out.shape), device=dev)
    (out * w).sum().backward()
    return [out.detach()] + [t.grad for t in ins]


_CALLS = {
    "conv2d batch 1 bias": (lambda x, w, b: F.conv2d(x, w, b, padding=1), [(1, 2, 3, 4), (3, 2, 2, 2), (3,)]),
    "conv2d batch 3 groups": (lambda x, w: F.conv2d(x, w, groups=2, stride=2), [(3, 4, 5, 4), (2, 2, 3, 1)]),
    "conv1d batch 2": (lambda x, w, b: F.conv1d(x, w, b, dilation=2), [(2, 3, 7), (2, 3, 2), (2,)]),
    "conv_transpose2d groups bias": (lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, groups=2),
                                     [(2, 4, 2, 3), (4, 1, 2, 2), (2,)]),
    "conv_transpose1d batch 1": (lambda x, w: F.conv_transpose1d(x, w, padding=1), [(1, 2, 4), (2, 3, 3)]),
    "unfold unbatched": (lambda x: F.unfold(x, 2, padding=1), [(2, 3, 3)]),
    "unfold batch 2": (lambda x: F.unfold(x, (2, 1), stride=(1, 2)), [(2, 2, 3, 4)]),
    "fold unbatched": (lambda x: F.fold(x, (3, 3), 2), [(8, 4)]),
    "fold batch 2": (lambda x: F.fold(x, (3, 4), (2, 1), padding=(1, 0)), [(2, 4, 16)]),
}  # fmt: skip


@pytest.mark.parametrize("strided", [(), (0,), (0, 1)])
@pytest.mark.parametrize("name", list(_CALLS))
def test_values_and_grads_match_cpu(name, strided):
    fn, shapes = _CALLS[name]
    strided = tuple(i for i in strided if i < len(shapes) and len(shapes[i]) > 1)
    arrays = [rng.standard_normal(s) for s in shapes]
    want, got = _run(fn, arrays, "cpu", strided), _run(fn, arrays, "cuda", strided)
    for g, w in zip(got, want, strict=True):
        assert g.device.type == "cuda" and g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g.cpu().numpy(), w.numpy(), rtol=1e-10, atol=1e-12)


def test_results_are_new_storage():
    x = numtorch.tensor(rng.standard_normal((1, 4, 3)), device="cuda")
    before = x.cpu().numpy()
    for y in (F.fold(x, (2, 3), (2, 1)), F.unfold(x.reshape(1, 1, 4, 3), 1), F.conv1d(x, x[:2, :, :1])):
        assert y._data.block is not x._data.block
        y.add_(1.0)
    np.testing.assert_array_equal(x.cpu().numpy(), before)


def test_storage_views_refuse_what_they_cannot_read():
    from numtorch.cuda import _storage as S

    a = numtorch.zeros(2, 3, device="cuda")._data
    assert S.reshaped(a, (3, -1)).shape == (3, 2)
    assert S.reshaped(a, (4, -1)) is None and S.reshaped(a, (7,)) is None
    assert S.reshaped(S.permuted(a, (1, 0)), (6,)) is None  # strided: the caller's reshape copies
    assert S.permuted(a, (1, 0)).estrides == (1, 3)
