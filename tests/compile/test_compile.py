"""numtorch.compile's API, guards and recapture, fullgraph errors, numtorch.compiler, logs."""

from __future__ import annotations

import logging
import warnings

import numpy as np
import pytest

import numtorch
from numtorch._compile.api import RECOMPILE_LIMIT, CompiledFunction


def f(x, y):
    return (x + y).relu() * 2


def test_decorator_forms_and_wraps():
    @numtorch.compile
    def g(x):
        return x * 2 + 1

    @numtorch.compile(backend="eager", fullgraph=True)
    def h(x):
        return x * 2 + 1

    x = numtorch.ones(3)
    assert g(x).tolist() == h(x).tolist() == [3.0, 3.0, 3.0]
    assert g.__name__ == "g" and g._torchdynamo_orig_callable.__name__ == "g"
    assert numtorch.compile(f, disable=True) is f


def test_compiled_method_binds_self():
    class A:
        k = 3.0

        @numtorch.compile
        def scale(self, x):
            return x * self.k

    assert A().scale(numtorch.ones(2)).tolist() == [3.0, 3.0]


@pytest.mark.parametrize(
    ("kwargs", "msg"),
    [
        ({"backend": "nope"}, "Invalid backend: 'nope'"),
        ({"mode": "fast"}, "Unrecognized mode=fast"),
        ({"mode": "default", "options": {}}, "Either mode or options can be specified"),
    ],
)
def test_bad_options_raise_pytorchs_errors(kwargs, msg):
    with pytest.raises(RuntimeError, match=msg):
        numtorch.compile(f, **kwargs)


def test_not_callable():
    with pytest.raises(RuntimeError, match="must be callable"):
        numtorch.compile(3)


def test_first_call_captures_then_hits():
    cf = numtorch.compile(f)
    x, y = numtorch.randn(4), numtorch.randn(4)
    for _ in range(3):
        np.testing.assert_array_equal(cf(x, y).numpy(), f(x, y).numpy())
    assert len(cf.cache) == 1 and cf.captures == 1


@pytest.mark.parametrize(
    "change",
    ["shape", "dtype", "requires_grad", "contiguity", "rank", "grad_mode", "scalar", "aliasing"],
)
def test_guard_failure_recaptures(change):
    calls = []

    def g(x, y, s=1.0):
        calls.append(1)
        return x * s + y

    cf = numtorch.compile(g)
    x, y = numtorch.randn(3, 4), numtorch.randn(3, 4)
    cf(x, y)
    cf(x, y)
    assert len(calls) == 1
    args, kw, ctx = (x, y), {}, None
    if change == "shape":
        args = (numtorch.randn(5, 4), numtorch.randn(5, 4))
    elif change == "dtype":
        args = (x.double(), y.double())
    elif change == "requires_grad":
        args = (x.clone().requires_grad_(), y)
    elif change == "contiguity":
        args = (numtorch.randn(4, 3).t(), y)
    elif change == "rank":
        args = (numtorch.randn(12), numtorch.randn(12))
    elif change == "grad_mode":
        ctx = numtorch.no_grad()
    elif change == "scalar":
        kw = {"s": 2.0}
    elif change == "aliasing":
        args = (x, x)
    if ctx is not None:
        with ctx:
            r = cf(*args, **kw)
    else:
        r = cf(*args, **kw)
    assert len(calls) == 2
    np.testing.assert_array_equal(r.detach().numpy(), g(*args, **kw).detach().numpy())
    cf(*args, **kw) if ctx is None else None
    assert len(calls) <= 3


def test_aliased_arguments_are_not_confused():
    def g(x, y):
        x.add_(1)
        return x * y

    cf = numtorch.compile(g)
    a, b = numtorch.ones(3), numtorch.ones(3)
    cf(a, b)  # capture with two tensors
    c = numtorch.ones(3)
    r = cf(c, c)  # one tensor twice: another graph
    assert r.tolist() == [4.0, 4.0, 4.0]


def test_recompile_limit_warns_and_runs_eagerly():
    def g(x, n):
        return x + n

    cf = numtorch.compile(g)
    x = numtorch.zeros(2)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        for n in range(RECOMPILE_LIMIT + 3):
            assert cf(x, n).tolist() == [float(n)] * 2
    msgs = [str(m.message) for m in w]
    assert len(msgs) == 1
    assert f"hit config.recompile_limit ({RECOMPILE_LIMIT})" in msgs[0]
    assert "function: 'g'" in msgs[0] and "last reason: argument value changed" in msgs[0]
    assert cf.captures == RECOMPILE_LIMIT


def test_shape_only_recaptures_do_not_hit_the_limit_unless_dynamic_false():
    for dynamic, warned in ((None, False), (True, False), (False, True)):
        cf = numtorch.compile(f, dynamic=dynamic)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            for n in range(1, RECOMPILE_LIMIT + 4):
                cf(numtorch.ones(n), numtorch.ones(n))
        assert bool(w) is warned


def test_data_dependent_read_falls_back_to_eager():
    calls = []

    def g(x):
        calls.append(1)
        if x.sum() > 0:
            return x * 2
        return x - 1

    cf = numtorch.compile(g)
    assert cf(numtorch.ones(2)).tolist() == [2.0, 2.0]
    assert cf(-numtorch.ones(2)).tolist() == [-2.0, -2.0]  # same guards, other branch: eager
    (entry,) = cf.cache.values()
    assert "bool(tensor)" in entry.eager


@pytest.mark.parametrize(
    ("body", "msg"),
    [
        (lambda x: x * x.sum().item(), "Unsupported Tensor.item() call with capture_scalar_outputs=False"),
        (lambda x: x + len(x.tolist()), "Tensor.tolist()"),
        (lambda x: x if x.sum() > 0 else -x, "Data-dependent branching"),
        (lambda x: (print(x), x)[1], "printing a tensor"),
        (lambda x: x * float(x.numpy().sum()), "Tensor.numpy()"),
    ],
)
def test_fullgraph_raises_unsupported_naming_the_line(body, msg):
    cf = numtorch.compile(body, fullgraph=True)
    with pytest.raises(numtorch.compiler.Unsupported) as ei:
        cf(numtorch.ones(2))
    text = str(ei.value)
    assert msg in text
    assert "from user code:" in text and "test_compile.py" in text
    assert isinstance(ei.value, RuntimeError)


def test_compiler_disable_is_a_graph_break():
    @numtorch.compiler.disable
    def helper(x):
        return x + 1

    def g(x):
        return helper(x) * 2

    assert numtorch.compile(g)(numtorch.ones(2)).tolist() == [4.0, 4.0]
    with pytest.raises(numtorch.compiler.Unsupported, match="compiler.disable"):
        numtorch.compile(g, fullgraph=True)(numtorch.ones(2))
    cf = numtorch.compile(g)
    assert numtorch.compiler.disable(cf)(numtorch.ones(2)).tolist() == [4.0, 4.0]
    assert not cf.cache  # the disabled wrapper ran the original


def test_is_compiling_reset_allow_in_graph():
    seen = []

    def g(x):
        seen.append(numtorch.compiler.is_compiling())
        return x + 1

    cf = numtorch.compile(g)
    cf(numtorch.ones(1))
    cf(numtorch.ones(1))
    assert seen == [True] and not numtorch.compiler.is_compiling()
    numtorch.compiler.reset()
    assert not cf.cache
    cf(numtorch.ones(1))
    assert seen == [True, True]
    assert numtorch.compiler.allow_in_graph(g) is g
    assert "numba" in numtorch.compiler.list_backends()


def test_nested_compiled_call_is_captured_inline():
    inner = numtorch.compile(lambda x: x.exp() + 1)
    outer = numtorch.compile(lambda x: inner(x) * 2)
    x = numtorch.randn(4)
    for _ in range(2):
        np.testing.assert_array_equal(outer(x).numpy(), ((x.exp() + 1) * 2).numpy())
    assert not inner.cache


def test_constants_are_read_by_reference_and_guarded():
    w = numtorch.ones(3)

    def g(x):
        return x * w + 1

    cf = numtorch.compile(g)
    x = numtorch.ones(3)
    cf(x)
    w.mul_(5)  # an in-place update is seen
    assert cf(x).tolist() == [6.0, 6.0, 6.0]
    w.data = numtorch.ones(3, dtype=numtorch.float64)  # a dtype change recaptures
    r = cf(x)
    assert r.dtype is numtorch.float64 and cf.captures == 2


def test_module_compile_and_optimized_module():
    numtorch.manual_seed(0)
    m = numtorch.nn.Sequential(numtorch.nn.Linear(4, 8), numtorch.nn.GELU(), numtorch.nn.Linear(8, 2))
    x = numtorch.randn(5, 4)
    want = m(x).detach().numpy()
    om = numtorch.compile(m)
    assert type(om).__name__ == "OptimizedModule" and om._orig_mod is m
    assert getattr(om, "0") is m[0]  # attributes reach the original
    lin = numtorch.nn.Linear(2, 2)
    assert numtorch.compile(lin).weight is lin.weight
    assert sorted(om.state_dict()) == sorted(f"_orig_mod.{k}" for k in m.state_dict())
    for _ in range(2):
        np.testing.assert_array_equal(om(x).detach().numpy(), want)
    m.eval()  # a training flag change recaptures
    om(x)
    assert om._compiled.captures == 2
    m[0].weight = numtorch.nn.Parameter(numtorch.zeros(8, 4))  # a new parameter recaptures
    np.testing.assert_array_equal(om(x).detach().numpy(), m(x).detach().numpy())
    assert om._compiled.captures == 3

    m2 = numtorch.nn.Linear(3, 3)
    m2.compile(backend="eager")
    assert isinstance(m2.forward, CompiledFunction)
    y = numtorch.randn(2, 3)
    np.testing.assert_array_equal(m2(y).detach().numpy(), (y @ m2.weight.t() + m2.bias).detach().numpy())
    import copy
    import pickle

    m3 = pickle.loads(pickle.dumps(m2))
    assert "forward" not in m3.__dict__
    assert copy.deepcopy(m2)(y).shape == (2, 3)


def test_logs_show_graph_kernel_recompiles(caplog):
    numtorch._logging.set_logs(graph_code=True, output_code=True, recompiles=True, graph_breaks=True)
    try:
        with caplog.at_level(logging.INFO, logger="numtorch._compile"):
            cf = numtorch.compile(lambda x: (x * 2).exp() + 1)
            cf(numtorch.ones(3))
            cf(numtorch.ones(4))
            numtorch.compile(lambda x: x * x.sum().item())(numtorch.ones(2))
    finally:
        numtorch._logging.set_logs(all=False)
    text = caplog.text
    assert "aten.mul.Tensor(%0, 2)" in text and "aten.exp.default" in text
    assert "@parallel_kernel" in text and "def h0(" in text
    assert "Recompiling function <lambda>: tensor argument size mismatch: expected [3], actual [4]" in text
    assert "runs eagerly: Unsupported Tensor.item()" in text


def test_logs_env_switch(monkeypatch):
    monkeypatch.setenv("NUMTORCH_LOGS", "+graph_code,recompiles")
    try:
        numtorch._logging._from_env()
        assert numtorch._logging.enabled("graph_code") and numtorch._logging.enabled("recompiles")
        assert not numtorch._logging.enabled("output_code")
    finally:
        numtorch._logging.set_logs(all=False)


SCALE = 2.0
OFFSET = 1.0


def _shift(x):
    return x + OFFSET


def test_globals_of_called_functions_and_module_forwards_are_guarded():
    global OFFSET

    def g(x):
        return _shift(x) * 2

    class M(numtorch.nn.Module):
        def forward(self, x):
            return _shift(x)

    cg, cm = numtorch.compile(g), numtorch.compile(numtorch.nn.Sequential(M()))
    x = numtorch.ones(2)
    assert cg(x).tolist() == [4.0, 4.0] and cm(x).tolist() == [2.0, 2.0]
    OFFSET = 3.0
    try:
        assert cg(x).tolist() == [8.0, 8.0] and cm(x).tolist() == [4.0, 4.0]
    finally:
        OFFSET = 1.0


def test_globals_closures_and_module_attributes_are_guarded():
    global SCALE

    def g(x):
        return x * SCALE

    cg = numtorch.compile(g)
    x = numtorch.ones(2)
    assert cg(x).tolist() == [2.0, 2.0]
    SCALE = 3.0
    try:
        assert cg(x).tolist() == [3.0, 3.0]
    finally:
        SCALE = 2.0

    k = 1.0

    def h(x):
        return x + k

    ch = numtorch.compile(h)
    assert ch(x).tolist() == [2.0, 2.0]
    k = 5.0
    assert ch(x).tolist() == [6.0, 6.0]

    class Scale(numtorch.nn.Module):
        def __init__(self):
            super().__init__()
            self.s = 2.0

        def forward(self, x):
            return x * self.s

    m = Scale()
    cm = numtorch.compile(m)
    assert cm(x).tolist() == [2.0, 2.0]
    m.s = 4.0
    assert cm(x).tolist() == [4.0, 4.0]
    m.compile()
    m.s = 5.0
    assert m(x).tolist() == [5.0, 5.0]


def test_training_step_inside_compile_runs_eagerly():
    lin = numtorch.nn.Linear(3, 1)
    opt = numtorch.optim.SGD(lin.parameters(), lr=0.1)

    def step(x):
        opt.zero_grad()
        loss = lin(x).pow(2).mean()
        loss.backward()
        opt.step()
        return loss

    cs = numtorch.compile(step)
    x = numtorch.randn(4, 3)
    lin2 = numtorch.nn.Linear(3, 1)
    lin2.load_state_dict(lin.state_dict())
    opt2 = numtorch.optim.SGD(lin2.parameters(), lr=0.1)
    for _ in range(3):
        a = cs(x)
        opt2.zero_grad()
        b = lin2(x).pow(2).mean()
        b.backward()
        opt2.step()
        assert a.item() == b.item()
    np.testing.assert_array_equal(lin.weight.detach().numpy(), lin2.weight.detach().numpy())
    (entry,) = cs.cache.values()
    assert "Tensor.grad" in entry.eager  # opt.zero_grad() reads it first
    with pytest.raises(numtorch.compiler.Unsupported, match="Tensor.grad"):
        numtorch.compile(step, fullgraph=True)(x)


def test_manual_update_through_data_runs_eagerly():
    w = numtorch.ones(2)

    def f(x):
        w.data.add_(x)
        return w * 2

    cf = numtorch.compile(f)
    for i in range(1, 3):
        assert cf(numtorch.ones(2)).tolist() == [2.0 * (1 + i)] * 2


def test_backward_call_is_unsupported():
    def f(x):
        y = (x * 2).sum()
        y.backward()
        return y

    with pytest.raises(numtorch.compiler.Unsupported, match=r"Tensor.backward\(\) inside a compiled function"):
        numtorch.compile(f, fullgraph=True)(numtorch.ones(2, requires_grad=True))


def test_module_guard_walks_again_only_after_a_module_change():
    # Note [Guards]: the module part is reused while nn.modules.module.MUTATIONS stands still
    from numtorch._compile import api

    numtorch.manual_seed(0)
    m = numtorch.nn.Sequential(numtorch.nn.Linear(3, 3), numtorch.nn.BatchNorm1d(3))
    om = numtorch.compile(m)
    cf = om._compiled
    x = numtorch.randn(4, 3)
    om(x)
    walks = []
    real = api.module_key
    api.module_key = lambda mod: walks.append(1) or real(mod)
    try:
        om(x)
        om(x)
        assert walks == []  # no module changed: no walk
        m[1].momentum = 0.5  # a plain attribute of a submodule: walk, new key, recapture
        om(x)
        assert len(walks) == 1 and cf.captures == 2
        del m[1].momentum  # deletion recaptures too
        m[1].momentum = 0.1
        om(x)
        assert cf.captures == 3
        m.double()  # _apply replaces buffers in their dicts: walked again, recaptured
        r = om(x.double())
        np.testing.assert_allclose(r.detach().numpy(), m(x.double()).detach().numpy())
        m[0].register_buffer("extra", numtorch.zeros(1))  # a registration moves the count
        n = len(walks)
        om(x.double())
        assert len(walks) == n + 1
    finally:
        api.module_key = real


def test_constant_whose_array_or_requires_grad_is_replaced_is_rechecked():
    w = numtorch.ones(3)

    def g(x):
        return x * w

    cf = numtorch.compile(g)
    x = numtorch.ones(3)
    cf(x)
    w.data = numtorch.full((3,), 2.0)  # a new array of the same metadata: read by reference, no recapture
    assert cf(x).tolist() == [2.0, 2.0, 2.0] and cf.captures == 1
    w.requires_grad_()  # a flag change recaptures (the call now needs grad)
    r = cf(x)
    assert r.requires_grad and cf.captures == 2
