"""The hot-path shortcuts (Note [Per-op fast path], [Binding fast call], [Reshape fast path],
[Compiled kernel entry], [Plain subclasses]) must give exactly what the full dispatch gives."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import numtorch as torch
from numtorch.utils._python_dispatch import TorchDispatchMode


def _pair(dtype=np.float32, n=8):
    a = np.linspace(-2, 2, n).astype(dtype)
    b = np.linspace(3, -1, n).astype(dtype)
    return a, b


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_repeated_tiny_binary_ops_match_numpy(dtype):
    # the first calls learn the kernel and its compiled entry; later ones take the entry
    a, b = _pair(dtype)
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    for _ in range(4):
        np.testing.assert_array_equal((ta + tb).numpy(), a + b)
        np.testing.assert_array_equal((ta * tb).numpy(), a * b)
        np.testing.assert_array_equal((ta - tb).numpy(), a - b)
        np.testing.assert_array_equal((ta > tb).numpy(), a > b)
        np.testing.assert_array_equal(torch.add(ta, tb, alpha=3).numpy(), a + 3 * b)
        np.testing.assert_array_equal(torch.relu(ta).numpy(), np.maximum(a, 0))
    assert (ta + tb).dtype == ta.dtype and (ta > tb).dtype == torch.bool


def test_fast_path_outputs_are_fresh_plain_tensors():
    ta, tb = (torch.from_numpy(x) for x in _pair())
    r = ta + tb
    assert type(r) is torch.Tensor and r._base is None and r._version == 0
    assert not np.shares_memory(r.numpy(), ta.numpy())
    r2 = ta + tb
    assert not np.shares_memory(r.numpy(), r2.numpy())


def test_readonly_and_foreign_buffers_take_the_checked_path():
    a, b = _pair()
    ro = a.copy()
    ro.flags.writeable = False
    fb = np.frombuffer(b.tobytes(), dtype=np.float32)
    ta, tb = torch.from_numpy(a), torch.from_numpy(b)
    for _ in range(3):
        ta + tb  # learn the entry on ordinary arrays
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # non-writable arrays warn once
        tro, tfb = torch.from_numpy(ro), torch.from_numpy(fb)
    np.testing.assert_array_equal((tro + tfb).numpy(), a + b)


def test_non_contiguous_and_broadcast_operands_fall_back():
    x = torch.arange(16.0).reshape(4, 4)
    col = x[:, 1]
    np.testing.assert_array_equal((col + col).numpy(), 2 * np.arange(16.0).reshape(4, 4)[:, 1])
    np.testing.assert_array_equal((x[0] + torch.ones(1)).numpy(), np.arange(4.0) + 1)
    with pytest.raises(RuntimeError, match="must match the size of tensor b"):
        torch.ones(3) + torch.ones(4)


def test_parameters_take_the_fast_path_and_return_plain_tensors():
    p = torch.nn.Parameter(torch.arange(8.0))
    q = torch.nn.Parameter(torch.ones(8), requires_grad=False)
    with torch.no_grad():
        for r in (p + q, p * q, torch.relu(p), p[1:3], p.reshape(2, 4), p.view(-1)):
            assert type(r) is torch.Tensor and not r.requires_grad
    y = p * q  # grad enabled: recorded, as before
    assert y.grad_fn is not None
    y.sum().backward()
    np.testing.assert_array_equal(p.grad.numpy(), np.ones(8, np.float32))


def test_modes_see_the_aten_ops_the_fast_paths_skip():
    seen = []

    class Log(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))

    x, y = torch.ones(8), torch.ones(8)
    with Log():
        x + y
        x[1:3]
        x.reshape(2, 4)
        torch.relu(x)
    assert seen == ["aten.add.Tensor", "aten.slice.Tensor", "aten.view.default", "aten.relu.default"]


def test_reshape_and_view_fast_path_keep_errors_and_views():
    x = torch.arange(8.0)
    v = x.reshape(2, -1)
    assert v.shape == (2, 4) and v._base is x
    v[0, 0] = 5.0
    assert x[0].item() == 5.0 and x._version == v._version
    assert x.view((4, 2)).shape == (4, 2) and x.view([8]).shape == (8,)
    with pytest.raises(RuntimeError, match=r"shape '\[3, 3\]' is invalid for input of size 8"):
        x.reshape(3, 3)
    with pytest.raises(RuntimeError, match="only one dimension can be inferred"):
        x.view(-1, -1)
    with pytest.raises(TypeError, match="missing 1 required positional"):
        torch.ones(1).reshape()
    assert torch.ones(2, 3).t().reshape(6).shape == (6,)  # non-contiguous: a copy
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        torch.ones(2, 3).t().view(6)


def test_getitem_fast_path_matches_pytorch_rules():
    x = torch.arange(8.0)
    assert x[1:3].tolist() == [1.0, 2.0] and x[1:3]._base is x and x[2:5].storage_offset() == 2
    assert x[-1].item() == 7.0 and x[3].dim() == 0
    assert x[::3].tolist() == [0.0, 3.0, 6.0]
    e = x[5:2]
    assert e.shape == (0,) and e.storage_offset() == 5
    with pytest.raises(IndexError, match="index 8 is out of bounds for dimension 0 with size 8"):
        x[8]
    with pytest.raises(ValueError, match="step must be greater than zero"):
        x[::-1]
    with pytest.raises(IndexError, match="0-dim"):
        torch.tensor(1.0)[0:1]
