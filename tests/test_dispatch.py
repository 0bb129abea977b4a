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


def test_nd_contiguous_operands_share_the_flat_entry():
    # N-d same-shape contiguous operands take the inlined path through flat views of the 1-d
    # entry: a 2-d first call must teach the 1-d overload, which later 1-d and 0-d calls reuse
    rng = np.random.default_rng(5)
    for shape in [(2, 3), (6,), (), (2, 1, 3), (0, 4), (3,), (4, 2)]:
        a, b = rng.uniform(-2, 2, shape), rng.uniform(-2, 2, shape)
        ta, tb = torch.from_numpy(a), torch.from_numpy(b)
        for _ in range(3):
            r = torch.fmax(ta, tb)
            assert r.shape == ta.shape and r.dtype == torch.float64 and r._base is None
            np.testing.assert_array_equal(r.numpy(), np.fmax(a, b))
            np.testing.assert_array_equal(torch.abs(ta).numpy(), np.abs(a))
            np.testing.assert_array_equal(torch.sub(ta, tb, alpha=2).numpy(), a - 2 * b)
    x = torch.from_numpy(np.ones((3, 4)))
    with pytest.raises(RuntimeError, match="must match the size of tensor b"):
        torch.fmax(x, x.reshape(4, 3))  # same size, another shape: never the flat path


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


# ---- Note [Generated recording]: recording plain CPU tensors without slow_dispatch ----------------
class _Nop(TorchDispatchMode):
    # an active mode turns the fast paths off: what it records is the Autograd key's own work
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


_RECORDED = {
    "add": (lambda a, b: a + b, "AddBackward0"),
    "add_alpha": (lambda a, b: torch.add(a, b, alpha=3), "AddBackward0"),
    "mul": (lambda a, b: a * b, "MulBackward0"),
    "mul_scalar": (lambda a, b: a * 2.5, "MulBackward0"),
    "div": (lambda a, b: a / b, "DivBackward0"),
    "relu": (lambda a, b: torch.relu(a), "ReluBackward0"),
    "sigmoid": (lambda a, b: a.sigmoid(), "SigmoidBackward0"),
    "sum": (lambda a, b: a.sum(), "SumBackward0"),
    "slice": (lambda a, b: a[1:3], "SliceBackward0"),
    "slice_open": (lambda a, b: a[-3:], "SliceBackward0"),
    "slice_step": (lambda a, b: a[::3], "SliceBackward0"),
    "select": (lambda a, b: a[-2], "SelectBackward0"),
    "reshape": (lambda a, b: a.reshape(2, -1), "ViewBackward0"),
    "view": (lambda a, b: a.view(4, 2), "ViewBackward0"),
    "view_seq": (lambda a, b: a.view((8,)), "ViewBackward0"),
    "chain": (lambda a, b: (a * b + a).relu()[2:6].reshape(2, 2), "ViewBackward0"),
    "clamp_none_max": (lambda a, b: torch.clamp(a, min=b), "ClampBackward0"),  # Tensor? None
    "where": (lambda a, b: torch.where(a > 0, a, b), "WhereBackward0"),
    "layer_norm": (lambda a, b: torch.nn.functional.layer_norm(a.view(2, 4), (4,)), "NativeLayerNormBackward0"),
    "aten_number": (lambda a, b: torch.ops.aten.mul.Tensor(a, 2), "MulBackward0"),
}


def _leaves(b_grad=True, cls=None):
    a, b = _pair(np.float64)
    ta = torch.from_numpy(a.copy()).requires_grad_(True)
    tb = torch.from_numpy(b.copy()).requires_grad_(b_grad)
    if cls is not None:
        ta, tb = cls(ta), cls(tb, requires_grad=b_grad)
    return ta, tb


def _graph(t, seen=None):
    # the recorded graph as names, edges and saved values (tensors as lists), depth first
    fn = t.grad_fn
    seen = {} if seen is None else seen

    def walk(node):
        if node is None:
            return None
        if id(node) in seen:
            return seen[id(node)]
        def value(v):
            if isinstance(v, (list, tuple)):
                return [value(x) for x in v]
            if v.__class__.__name__ == "SavedTensor":
                u = v.unpack(node)
                return (u.tolist(), u.requires_grad, u.grad_fn is node, u._out_nr)
            return v

        saved = {k: value(v) for k, v in (getattr(node, "_saved", None) or {}).items()}
        meta = [None if m is None else (tuple(m[0]), str(m[1])) for m in node._input_meta]
        seen[id(node)] = r = (node.name(), saved, meta, [(walk(n), k) for n, k in node.next_functions])
        return r

    return walk(fn)


@pytest.mark.parametrize("case", list(_RECORDED))
@pytest.mark.parametrize("b_grad", [True, False])
def test_generated_recording_matches_the_autograd_key(case, b_grad):
    fn, name = _RECORDED[case]
    a, b = _leaves(b_grad)
    y = fn(a, b)
    a2, b2 = _leaves(b_grad)
    with _Nop():
        y2 = fn(a2, b2)
    assert type(y) is torch.Tensor and y.grad_fn.name() == name and y.requires_grad and not y.is_leaf
    assert _graph(y) == _graph(y2)
    g = torch.from_numpy(np.linspace(0.5, 2.0, y.numel()).reshape(y.shape))
    y.backward(g)
    y2.backward(g)
    np.testing.assert_array_equal(a.grad.numpy(), a2.grad.numpy())
    assert (b.grad is None) == (b2.grad is None)
    if b.grad is not None:
        np.testing.assert_array_equal(b.grad.numpy(), b2.grad.numpy())


@pytest.mark.parametrize("case", ["add", "mul", "relu", "slice", "select", "reshape", "chain"])
def test_generated_recording_gradients_are_right(case):
    fn, _ = _RECORDED[case]
    a, b = _leaves()
    assert torch.autograd.gradcheck(fn, (a, b))
    assert torch.autograd.gradgradcheck(fn, (a, b))


def test_generated_recording_of_parameters_and_shared_accumulators():
    p, q = _leaves(cls=torch.nn.Parameter)
    y1, y2 = p * q, p + q
    assert type(y1) is torch.Tensor and y1.grad_fn.name() == "MulBackward0"
    acc = y1.grad_fn.next_functions[0][0]
    assert acc.name() == "AccumulateGrad" and acc.variable is p
    assert y2.grad_fn.next_functions[0][0] is acc  # one accumulator per leaf while a graph holds it
    for v in (p[1:3], p[0], p.reshape(2, 4)):
        assert v.grad_fn.next_functions[0][0] is acc and v._base is p
    (y1 + y2).sum().backward()
    np.testing.assert_array_equal(p.grad.numpy(), q.detach().numpy() + 1)


def test_generated_recording_checks_saved_versions():
    a, b = _leaves()
    y = a * b
    with torch.no_grad():
        b.add_(1.0)
    msg = r"\[torch.DoubleTensor \[8\]\], which is input 'other' of MulBackward0, is at version 1; expected version 0"
    with pytest.raises(RuntimeError, match=msg):
        y.sum().backward()
    r = torch.relu(a * 1.0)  # relu saves its result
    r.add_(1.0)
    with pytest.raises(RuntimeError, match=r"\[torch.DoubleTensor \[8\]\], is at version 1; expected version 0"):
        r.sum().backward()
    v = a[1:3]  # the view shares a's version counter; slice saves only a's sizes, as in PyTorch
    with torch.no_grad():
        a.mul_(2.0)
    assert v._version == a._version == 1
    v.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy()[:4], [0.0, 1.0, 1.0, 0.0])


def test_generated_recording_runs_hooks_and_inplace_through_views():
    a, b = _leaves()
    seen = []
    a.register_hook(lambda g: seen.append(g.tolist()))
    y = a * 1.0
    y.register_hook(lambda g: g * 10)
    v = y[1:3]
    v.mul_(2.0)
    assert y.grad_fn.name() == "CopySlices" and v._base is y
    y.sum().backward()
    assert seen == [[10.0, 20.0, 20.0, 10.0, 10.0, 10.0, 10.0, 10.0]]


def test_generated_recording_steps_aside_for_anomaly_mode_and_no_grad():
    a, b = _leaves()
    with torch.autograd.detect_anomaly():
        y = a * b
        v = a[1:3]
    assert "test_dispatch.py" in y.grad_fn._trace and "test_dispatch.py" in v.grad_fn._trace
    with torch.no_grad():
        for r in (a * b, torch.relu(a), a[1:3], a[0], a.reshape(2, 4)):
            assert r.grad_fn is None and not r.requires_grad
    assert (a > b).grad_fn is None and not (a > b).requires_grad


def test_modes_see_the_same_aten_ops_with_requires_grad_inputs():
    seen = []

    class Log(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))

    x, y = torch.ones(8, requires_grad=True), torch.ones(8, requires_grad=True)
    with Log():
        x + y
        x[1:3]
        x[2]
        x.reshape(2, 4)
        x.view(8)
        torch.relu(x)
    # relu saves its output for backward: PyTorch's SavedVariable detaches it (a call a mode sees)
    assert seen == ["aten.add.Tensor", "aten.slice.Tensor", "aten.select.int", "aten.view.default",
                    "aten.view.default", "aten.relu.default", "aten.detach.default"]  # fmt: skip


def test_max_min_binding_fast_call_keeps_every_spelling():
    # Note [Binding fast call]: max() / min() (dim and other absent, i.e. None) skip the body;
    # every other spelling still parses there, with PyTorch's results and errors
    a = np.array([[3.0, -1.0, 7.0, 2.0], [0.5, 9.0, -4.0, 1.0]], np.float32)
    x = torch.from_numpy(a.copy())
    for fn, ref in ((torch.max, np.max), (torch.min, np.min)):
        name = fn.__name__
        method = getattr(torch.Tensor, name)
        body, mbody = fn.__globals__["_body"], method.__globals__["_body"]

        def no_body(*v):
            raise AssertionError("the binding's body ran")

        fn.__globals__["_body"] = method.__globals__["_body"] = no_body
        try:
            for r in (fn(x), method(x), fn(input=x), method(x, None)):
                assert r.shape == () and r.item() == ref(a)
        finally:
            fn.__globals__["_body"], method.__globals__["_body"] = body, mbody
        v, i = fn(x, 1)
        np.testing.assert_array_equal(v.numpy(), ref(a, 1))
        np.testing.assert_array_equal(i.numpy(), getattr(np, f"arg{name}")(a, 1))
        y = torch.from_numpy(a[::-1].copy())
        both = np.maximum(a, a[::-1]) if name == "max" else np.minimum(a, a[::-1])
        np.testing.assert_array_equal(fn(x, y).numpy(), both)
        np.testing.assert_array_equal(fn(x, other=y).numpy(), both)
        np.testing.assert_array_equal(getattr(x, name)(y).numpy(), both)
        with pytest.raises(TypeError, match=rf"^{name}\(\) received an invalid combination of arguments"):
            fn(x, keepdim=True)
        g = torch.from_numpy(a.astype(np.float64)).requires_grad_()
        fn(g).backward()
        expect = (a == ref(a)).astype(np.float64)
        np.testing.assert_array_equal(g.grad.numpy(), expect)
    seen = []

    class Log(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))

    with Log():
        torch.max(x), x.min()
    assert seen == ["aten.max.default", "aten.min.default"]
    with pytest.raises(TypeError):
        x + None  # a required relevant argument still has to be a Tensor
