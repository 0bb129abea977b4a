"""The generated call of custom ops (Note [Custom-op fast call]): the same answers as the full
route for every argument form, and the full route wherever the fast one must not run."""

from __future__ import annotations

from typing import Optional

import numpy as np
import pytest

import numtorch
from numtorch import Tensor
from numtorch.autograd import gradcheck
from numtorch.library import CustomOpDef, custom_op
from numtorch.overrides import TorchFunctionMode
from numtorch.utils._python_dispatch import TorchDispatchMode

_COUNTER = [0]


def _ns() -> str:
    _COUNTER[0] += 1
    return f"libfast{_COUNTER[0]}"


def _axpy(ns, calls):
    @custom_op(f"{ns}::axpy", mutates_args=())
    def axpy(x: Tensor, y: Tensor, a: float = 2.0, flip: bool = False) -> Tensor:
        calls.append(1)
        r = a * x.numpy(force=True) + y.numpy(force=True)
        return numtorch.from_numpy(-r if flip else r)

    def setup_context(ctx, inputs, output):
        ctx.a, ctx.flip = inputs[2], inputs[3]

    def backward(ctx, g):
        s = -1.0 if ctx.flip else 1.0
        return g * (ctx.a * s), g * s, None, None

    axpy.register_autograd(backward, setup_context=setup_context)
    return axpy


def test_fast_call_is_generated_and_matches_every_argument_form():
    calls = []
    axpy = _axpy(_ns(), calls)
    assert isinstance(axpy, CustomOpDef) and type(axpy) is not CustomOpDef  # the generated call
    x, y = numtorch.randn(3, dtype=numtorch.float64), numtorch.randn(3, dtype=numtorch.float64)
    xn, yn = x.numpy(), y.numpy()
    forms = [((x, y), {}, 2 * xn + yn), ((x, y, 3.0), {}, 3 * xn + yn), ((x, y, 3), {}, 3 * xn + yn),
             ((x, y), {"a": 0.5}, 0.5 * xn + yn), ((x,), {"y": y, "flip": True}, -(2 * xn + yn)),
             ((), {"x": x, "y": y, "a": 1.0}, xn + yn), ((x, y, 1.0, True), {}, -(xn + yn))]  # fmt: skip
    for args, kwargs, expect in forms:
        np.testing.assert_allclose(axpy(*args, **kwargs).numpy(), expect)
    assert len(calls) == len(forms)


def test_fast_call_refuses_what_the_schema_refuses():
    axpy = _axpy(_ns(), [])
    x = numtorch.randn(2)
    with pytest.raises(RuntimeError, match=r"missing value for argument 'y'|missing"):
        axpy(x)
    with pytest.raises(RuntimeError, match="Expected a value of type 'float' for argument 'a'"):
        axpy(x, x, "2")
    with pytest.raises(RuntimeError, match="Expected a value of type 'Tensor' for argument 'y'"):
        axpy(x, 1.0)
    with pytest.raises(RuntimeError):
        axpy(x, x, 1.0, False, 7)


def test_fast_call_records_like_the_full_route():
    axpy = _axpy(_ns(), [])
    x = numtorch.randn(4, dtype=numtorch.float64, requires_grad=True)
    y = numtorch.randn(4, dtype=numtorch.float64, requires_grad=True)
    r = axpy(x, y, 3.0)
    assert type(r.grad_fn).__name__.startswith("GeneratedBackwardFor_")
    assert r.grad_fn.needs_input_grad[:4] == (True, True, False, False)
    r.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(4, 3.0))
    np.testing.assert_allclose(y.grad.numpy(), np.ones(4))
    z = numtorch.randn(4, dtype=numtorch.float64)
    r2 = axpy(z, y.exp(), 1.0, True)  # only the non-leaf second input needs grad
    assert r2.grad_fn.next_functions[0] == (None, 0) and r2.grad_fn.next_functions[1][0] is not None
    assert gradcheck(lambda a, b: axpy(a, b, 0.5, True), (x.detach().requires_grad_(), y.detach().requires_grad_()))
    with numtorch.no_grad():
        assert axpy(x, y).grad_fn is None


def test_fast_call_follows_reregistered_kernel_and_autograd():
    ns = _ns()

    @custom_op(f"{ns}::twice", mutates_args=())
    def twice(x: Tensor) -> Tensor:
        return numtorch.from_numpy(2 * x.numpy(force=True))

    x = numtorch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="no autograd formula"):
        twice(x).sum().backward()
    twice.register_autograd(lambda ctx, g: g * 2)
    twice(x).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]
    twice.register_kernel("cpu", lambda x: numtorch.from_numpy(3 * x.numpy(force=True)))
    assert twice(numtorch.ones(1)).tolist() == [3.0]


def test_fast_call_leaves_modes_subclasses_and_meta_to_the_full_route():
    axpy = _axpy(_ns(), [])
    x = numtorch.ones(2)
    seen = []

    class TD(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(("td", str(func)))
            return func(*args, **(kwargs or {}))

    class TF(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append(("tf", str(func)))
            return func(*args, **(kwargs or {}))

    with TD():
        axpy(x, x)
    with TF():
        axpy(x, x)
    assert [k for k, _ in seen] == ["td", "tf"] and all(f.endswith("axpy.default") for _, f in seen)

    class Sub(Tensor):
        hits = 0

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            Sub.hits += 1
            return super().__torch_function__(func, types, args, kwargs)

    axpy(x.as_subclass(Sub), x)
    assert Sub.hits >= 1
    axpy.register_fake(lambda x, y, a=2.0, flip=False: numtorch.empty_like(x))
    m = axpy(numtorch.empty(3, device="meta"), numtorch.empty(3, device="meta"))
    assert m.device.type == "meta" and m.shape == (3,)


def test_fast_call_returning_an_input_takes_the_general_wrap():
    ns = _ns()

    @custom_op(f"{ns}::ident", mutates_args=())
    def ident(x: Tensor) -> Tensor:
        return x.detach()  # a view of x: not a fresh output

    ident.register_autograd(lambda ctx, g: g)
    x = numtorch.randn(3, dtype=numtorch.float64, requires_grad=True)
    r = ident(x)
    r.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0, 1.0]


def test_optional_tensor_and_list_arguments():
    ns = _ns()

    @custom_op(f"{ns}::addopt", mutates_args=())
    def addopt(x: Tensor, y: Optional[Tensor] = None, k: int = 1) -> Tensor:
        r = x.numpy(force=True) * k
        return numtorch.from_numpy(r + y.numpy(force=True) if y is not None else r.copy())

    @custom_op(f"{ns}::pick", mutates_args=())
    def pick(x: Tensor, idx: list[int]) -> Tensor:
        return numtorch.from_numpy(x.numpy(force=True)[idx].copy())

    x = numtorch.arange(4.0)
    assert type(addopt) is not CustomOpDef and type(pick) is CustomOpDef  # int[]: the general route
    assert addopt(x).tolist() == [0.0, 1.0, 2.0, 3.0]
    assert addopt(x, x, 2).tolist() == [0.0, 3.0, 6.0, 9.0]
    assert addopt(x, None, 3).tolist() == [0.0, 3.0, 6.0, 9.0]
    with pytest.raises(RuntimeError, match="Expected a value of type 'SymInt' for argument 'k'"):
        addopt(x, None, 1.5)
    assert pick(x, [3, 0]).tolist() == [3.0, 0.0]


# ---- the calls a kernel body makes: Tensor.numpy's own gate, from_numpy's fast path ----------
def test_tensor_numpy_gate_passes_the_method_and_the_callers_keyword():
    seen = []

    class Log(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            seen.append((func, dict(kwargs or {})))
            return func(*args, **(kwargs or {}))

    class Sub(Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            seen.append((func, dict(kwargs or {})))
            return "handled"

    x = numtorch.ones(2, requires_grad=True)
    with Log():
        a = x.numpy(force=True)
        with pytest.raises(RuntimeError, match=r"Can't call numpy\(\) on Tensor that requires grad"):
            x.numpy()
    assert seen == [(Tensor.numpy, {"force": True}), (Tensor.numpy, {})]
    assert a is x._data
    seen.clear()
    assert numtorch.ones(2).as_subclass(Sub).numpy(force=True) == "handled"
    assert seen == [(Tensor.numpy, {"force": True})]
    with pytest.raises(TypeError, match="can't convert meta device type tensor to numpy"):
        numtorch.ones(2, device="meta").numpy()


def test_from_numpy_fast_path_only_for_owning_writeable_arrays():
    a = np.arange(4.0)
    t = numtorch.from_numpy(a)
    assert t.dtype == numtorch.float64 and not t.requires_grad and t.grad_fn is None and t._base is None
    t[0] = 7.0
    assert a[0] == 7.0 and t._version == 1
    with pytest.raises(ValueError, match="At least one stride in the given numpy array is negative"):
        numtorch.from_numpy(a[::-1])
    a.setflags(write=False)
    with pytest.warns(UserWarning, match="The given NumPy array is not writable"):
        numtorch.from_numpy(a)
    with pytest.raises(TypeError, match=r"can't convert np.ndarray of type numpy.longdouble"):
        numtorch.from_numpy(np.zeros(2, np.longdouble))
