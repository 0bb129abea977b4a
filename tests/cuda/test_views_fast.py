"""The CUDA view fast paths (Note [CUDA view fast paths]): view, t and transpose give the
metadata (shape, strides, offset), base and shared version counter of the stand-in route
(the ops' generic CUDA rule) and the CPU op's errors, on contiguous, strided, offset, empty and
0-d inputs; values through a later copy."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch.cuda import _install
from numtorch.ops._registry import OPS

from ._sim import requires_cuda

pytestmark = requires_cuda


def _inputs(dev):
    base = numtorch.tensor(np.arange(60.0).reshape(3, 4, 5), device=dev)
    return {
        "contiguous": base,
        "offset": base[1:],
        "strided": base.transpose(0, 2),
        "sliced rows": base[:, 1:3],
        "size-1 last dim": base[:, :, :1],
        "empty": base[:0],
        "0-d": base[1, 2, 3],
        "2-d": base[0],
        "1-d": base[0, 0],
    }


_CALLS = [
    ("aten::view", lambda t: (t, (-1,))),
    ("aten::view", lambda t: (t, (t.numel(), 1))),
    ("aten::view", lambda t: (t, (1, -1, 1) if t.numel() else (0, 2))),
    ("aten::view", lambda t: (t, (7, -1))),  # an error for most
    ("aten::view", lambda t: (t, (-1, -1))),
    ("aten::t", lambda t: (t,)),
    ("aten::transpose.int", lambda t: (t, 0, -1)),
    ("aten::transpose.int", lambda t: (t, -1, 1)),
    ("aten::transpose.int", lambda t: (t, 0, 3)),
]


def _meta(r):
    return r.shape, r.stride(), r.storage_offset(), r._base is not None, r.cpu().numpy().tolist()


@pytest.mark.parametrize("case", range(len(_CALLS)))
def test_fast_views_match_the_generic_rule_and_cpu(case):
    name, args = _CALLS[case]
    op = OPS[name]
    generic = _install._view_rule(op)
    for (what, t), c in zip(_inputs("cuda").items(), _inputs("cpu").values(), strict=True):
        vals = args(t)
        cpu_vals = args(c)
        try:
            want = op.impls["cpu"](*cpu_vals)
        except (RuntimeError, IndexError) as e:
            with pytest.raises(type(e)) as got:
                op.impls["cuda"](*vals)
            assert str(got.value) == str(e), (what, name)
            continue
        fast, slow = op.impls["cuda"](*vals), generic(*vals)
        assert _meta(fast) == _meta(slow), (what, name)
        assert fast.shape == want.shape and fast.stride() == want.stride(), (what, name)
        np.testing.assert_array_equal(fast.cpu().numpy(), want.numpy())
        assert fast._vc is t._vc and fast._base is (t if t._base is None else t._base)


def test_public_ops_through_the_fast_paths_write_through():
    x = numtorch.zeros(2, 3, device="cuda")
    v = x.view(3, 2)
    v.t()[1, 0] = 5.0
    x.transpose(0, 1)[2, 1] += 1.0
    assert x._version == v._version >= 2  # one counter for the storage and its views
    np.testing.assert_array_equal(x.cpu().numpy(), [[0, 5, 0], [0, 0, 1]])
    y = numtorch.ones(2, 3, device="cuda", requires_grad=True)
    (y.view(6) * numtorch.arange(6.0, device="cuda")).sum().backward()
    (y.t() * 2).sum().backward()
    np.testing.assert_array_equal(y.grad.cpu().numpy(), np.arange(6.0).reshape(2, 3) + 2)


def test_numpy_integer_sizes():
    x = numtorch.arange(6.0, device="cuda")
    v = x.view(np.int64(3), -1)
    assert v.shape == (3, 2) and all(type(s) is int for s in v._data.shape + v._data.estrides)
    np.testing.assert_array_equal(v.cpu().numpy(), np.arange(6.0).reshape(3, 2))
