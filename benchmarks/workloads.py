"""The workloads of ``benchmarks/compare.py``: each built once per library (numtorch, torch,
numpy) from the same fixed-seed data, as a zero-argument callable.

Targets (docs/PERFORMANCE.md) are numtorch/PyTorch time ratios (``target``) or absolute
seconds (``target_s``). Nothing here runs at import: asv imports this module too.
"""

from __future__ import annotations

import functools
import operator
import os
from collections.abc import Callable
from dataclasses import dataclass

LIBS = ("numtorch", "torch", "numpy")


@dataclass
class Workload:
    """``make(lib_name)`` returns a zero-argument callable (NotImplementedError: n/a).

    ``target``: the largest acceptable numtorch/PyTorch time ratio; ``target_s``: an absolute
    bound in seconds for numtorch. ``work``: (unit, amount per call) for a throughput column.
    ``process``: the callable itself returns a measured time (fresh-interpreter workloads)."""

    name: str
    category: str
    make: Callable
    target: float | None = None
    target_s: float | None = None
    work: tuple | None = None
    process: bool = False
    samples: int | None = None  # fixed sample count for process workloads


# ---- library-specific builders --------------------------------------------------------------
def _libs():
    from benchmarks import common

    return common


def _L(name):
    common = _libs()
    if name == "numpy":
        import numpy

        return numpy
    return common.lib(name)


def _data(name, shape, dtype="float32", seed=None, requires_grad=False, low=-1.0, high=1.0):
    common = _libs()
    arr = common.array(shape, dtype, low, high, common.SEED if seed is None else seed)
    if name == "numpy":
        return arr
    t = _L(name).from_numpy(arr)
    return t.requires_grad_(True) if requires_grad else t


def _tiny(op, requires_grad=False):
    def make(name):
        import numpy as np

        if name == "numpy" and requires_grad:
            raise NotImplementedError("NumPy has no autograd")
        a = _data(name, (8,), requires_grad=requires_grad)
        b = _data(name, (8,), seed=99, requires_grad=requires_grad)
        if name == "numpy":
            return {
                "add": functools.partial(operator.add, a, b),
                "mul": functools.partial(operator.mul, a, b),
                "relu": functools.partial(np.maximum, a, 0.0),
                "sum": a.sum,
                "getitem": functools.partial(operator.getitem, a, slice(1, 3)),
                "reshape": functools.partial(a.reshape, 2, 4),
            }[op]
        return _libs().tiny_call(_L(name), op, a, b)

    return make


def _tiny_param(op):
    # nn.Parameter operands without grad (inference, optimizer updates): Parameter opts out of
    # __torch_function__, so it should cost what a plain Tensor does
    def make(name):
        if name == "numpy":
            raise NotImplementedError("NumPy has no Parameter")
        L = _L(name)
        a, b = _data(name, (8,)), _data(name, (8,), seed=99)
        _libs().warm(_libs().tiny_call(L, op, a, b))  # plain calls teach the kernel fast path
        with _libs().pending():
            pa, pb = L.nn.Parameter(a, requires_grad=False), L.nn.Parameter(b, requires_grad=False)
        return _libs().tiny_call(L, op, pa, pb)

    return make


_NP_UNARY = {
    "exp": lambda np, x, out: np.exp(x, out=out),
    "tanh": lambda np, x, out: np.tanh(x, out=out),
    "sigmoid": lambda np, x, out: _np_sigmoid(np, x, out),
}


def _np_sigmoid(np, x, out):
    r = np.negative(x, out=out)
    np.exp(r, out=r)
    r += 1.0
    return np.reciprocal(r, out=r)


def _elementwise(op, n, dtype, use_out):
    binary = op in ("add", "mul")

    def make(name):
        import numpy as np

        args = [_data(name, (n,), dtype, low=0.1, high=0.9)]
        if binary:
            args.append(_data(name, (n,), dtype, seed=5, low=0.1, high=0.9))
        if name == "numpy":
            fn = getattr(np, {"add": "add", "mul": "multiply"}[op]) if binary else None
            out = np.empty(n, dtype) if use_out else None
            if binary:
                return functools.partial(fn, *args, out=out)
            return functools.partial(_NP_UNARY[op], np, args[0], out)
        common = _libs()
        fn = common.resolve(op) if name == "numtorch" else getattr(_L(name), op)
        if use_out:
            return functools.partial(fn, *args, out=fn(*args))
        return functools.partial(fn, *args)

    return make


def _np_softmax(np, x, log):
    m = x.max(1, keepdims=True)
    z = x - m
    e = np.exp(z)
    s = e.sum(1, keepdims=True)
    return z - np.log(s) if log else e / s


def _reduction(op, over):
    def make(name):
        import numpy as np

        x = _data(name, (4096, 1024))
        if name == "numpy":
            if op in ("softmax", "log_softmax"):
                return functools.partial(_np_softmax, np, x, op == "log_softmax")
            if op == "max" and over is not None:
                return lambda: (x.max(over), x.argmax(over))
            return functools.partial(getattr(x, op), over)
        L = _L(name)
        fn = _libs().resolve(op) if name == "numtorch" else getattr(L, op)
        if op in ("softmax", "log_softmax"):
            return functools.partial(fn, x, -1)
        return functools.partial(fn, x) if over is None else functools.partial(fn, x, over)

    return make


def _matmul(shape_a, shape_b, op="matmul"):
    def make(name):
        import numpy as np

        a, b = _data(name, shape_a), _data(name, shape_b, seed=5)
        if name == "numpy":
            return functools.partial(np.matmul, a, b)
        fn = _libs().resolve(op) if name == "numtorch" else getattr(_L(name), op)
        return functools.partial(fn, a, b)

    return make


# ---- the MLP, also in plain NumPy ---------------------------------------------------------------
class _NumpyMLP:
    """784-256-256-10 ReLU MLP with softmax cross-entropy and hand-written backward."""

    def __init__(self):
        import numpy as np

        common = _libs()
        self.np = np
        sz = common.MLP_SIZES
        self.W, self.b = [], []
        for i, (m, n) in enumerate(zip(sz[:-1], sz[1:], strict=False)):
            bound = 1.0 / m**0.5
            self.W.append(common.array((n, m), "float32", -bound, bound, common.SEED + i))
            self.b.append(common.array((n,), "float32", -bound, bound, common.SEED + 100 + i))
        self.x = common.array((128, sz[0]), seed=common.SEED + 7)
        self.y = np.random.default_rng(common.SEED + 8).integers(0, sz[-1], 128)
        self.params = self.W + self.b
        self.grads = None
        self.state = [[np.zeros_like(p), np.zeros_like(p)] for p in self.params]
        self.t = 0

    def fwd_bwd(self):
        np = self.np
        hs, h = [self.x], self.x
        last = len(self.W) - 1
        for i, (W, b) in enumerate(zip(self.W, self.b, strict=False)):
            h = h @ W.T + b
            if i < last:
                h = np.maximum(h, 0.0)
                hs.append(h)
        z = h - h.max(1, keepdims=True)
        e = np.exp(z)
        p = e / e.sum(1, keepdims=True)
        rows = np.arange(len(self.y))
        loss = -np.log(p[rows, self.y]).mean()
        g = p
        g[rows, self.y] -= 1.0
        g /= len(self.y)
        gW, gb = [None] * len(self.W), [None] * len(self.W)
        for i in range(last, -1, -1):
            gW[i] = g.T @ hs[i]
            gb[i] = g.sum(0)
            if i:
                g = (g @ self.W[i]) * (hs[i] > 0)
        self.grads = gW + gb
        return loss

    def sgd(self, lr=0.01, momentum=0.9):
        for p, g, (buf, _) in zip(self.params, self.grads, self.state, strict=False):
            buf *= momentum
            buf += g
            p -= lr * buf

    def adam(self, lr=1e-3, b1=0.9, b2=0.999, eps=1e-8):
        np = self.np
        self.t += 1
        c1, c2 = 1 - b1**self.t, 1 - b2**self.t
        for p, g, (m, v) in zip(self.params, self.grads, self.state, strict=False):
            m *= b1
            m += (1 - b1) * g
            v *= b2
            v += (1 - b2) * g * g
            p -= (lr / c1) * m / (np.sqrt(v / c2) + eps)


def _mlp(kind, optim=None):
    def make(name):
        if name == "numpy":
            m = _NumpyMLP()
            m.fwd_bwd()
            if kind == "fwd_bwd":
                return m.fwd_bwd
            step = getattr(m, optim)
            return step if kind == "opt" else lambda: (m.fwd_bwd(), step())
        common = _libs()
        L = _L(name)
        model = common.build_mlp(L)
        x, y = common.mlp_batch(L)
        fwd_bwd = common.mlp_step(L, model, x, y)
        if kind == "fwd_bwd":
            return fwd_bwd
        fwd_bwd()
        opt = common.make_optimizer(L, optim, model.parameters())
        return opt.step if kind == "opt" else lambda: (fwd_bwd(), opt.step())

    return make


def _big_optimizer(optim, n=10_000_000):
    """One optimizer step on a single 1e7-element parameter (fused-update territory)."""

    def make(name):
        import numpy as np

        common = _libs()
        if name == "numpy":
            m = _NumpyMLP.__new__(_NumpyMLP)
            m.np, m.t = np, 0
            m.params = [common.array((n,))]
            m.grads = [common.array((n,), seed=5)]
            m.state = [[np.zeros(n, np.float32), np.zeros(n, np.float32)]]
            return getattr(m, optim)
        L = _L(name)
        p = _data(name, (n,), requires_grad=True)
        p.grad = _data(name, (n,), seed=5)
        return common.make_optimizer(L, optim, [p]).step

    return make


def _no_numpy(fn):
    def make(name):
        if name == "numpy":
            raise NotImplementedError("no NumPy equivalent")
        return fn(name)

    return make


def _autograd_chain(name):
    common = _libs()
    x = _data(name, (8,), requires_grad=True)
    g = _data(name, (8,), seed=5)
    return lambda: common.elementwise_chain(x).backward(g)


def _linear_function(name):
    common = _libs()
    apply = common.linear_function(_L(name)).apply
    x = _data(name, (128, 784), requires_grad=True)
    w = _data(name, (256, 784), seed=5, requires_grad=True)
    b = _data(name, (256,), seed=6, requires_grad=True)
    g = _data(name, (128, 256), seed=7)
    return lambda: apply(x, w, b).backward(g)


def _custom_function(name):
    apply = _libs().mul_two_function(_L(name)).apply
    x = _data(name, (8,), requires_grad=True)
    return functools.partial(apply, x)


def _tf_subclass(name):
    common = _libs()
    sub = common.tf_subclass(_L(name))
    a, b = _data(name, (8,)).as_subclass(sub), _data(name, (8,), seed=5).as_subclass(sub)
    fn = functools.partial(operator.add, a, b)
    if type(fn()) is not sub:
        raise NotImplementedError("pending in numtorch: __torch_function__ results not wrapped")
    return fn


def _extension(impl, n, grad):
    """sin as a custom op with an @njit kernel (torch: torch.library.custom_op, same kernel).
    ``vs-builtin-njit``/``vs-builtin-custom``: the numtorch column the custom op (the @njit
    function registered as the kernel / a Python body calling it), the torch column numtorch's
    built-in sin: the issue's target (custom op <= 1.2x the built-in), as "vs inductor" names
    its peer; ``vs-builtin-softplus``: the scalar route against the built-in softplus."""

    def make(name):
        from benchmarks.bench_extension import custom_sin, njit_sin, scalar_max, scalar_softplus

        if name == "numpy":
            raise NotImplementedError("NumPy has no custom ops")
        if impl.startswith("vs-builtin"):
            L = _L("numtorch")
            x = _libs().tensor((n,), "float64", L=L, requires_grad=grad)
            if impl.endswith("softplus"):
                return functools.partial(scalar_softplus() if name == "numtorch" else L.nn.functional.softplus, x)
            if name != "numtorch":
                return functools.partial(L.sin, x)
            return functools.partial(njit_sin() if impl.endswith("njit") else custom_sin(L), x)
        L = _L(name)
        x = _libs().tensor((n,), "float64", L=L, requires_grad=grad)
        if impl in ("scalar", "reduction"):
            if name != "numtorch":
                raise NotImplementedError("PyTorch has no scalar-function route")
            return functools.partial(scalar_softplus() if impl == "scalar" else scalar_max(), x)
        return functools.partial(custom_sin(L), x)

    return make


def _python_key(case):
    def make(name):
        from benchmarks.bench_dispatch import PythonKey

        b = PythonKey()
        b.setup(case, name)
        return b.fn

    return make


def _torch_function(case):
    def make(name):
        from benchmarks.bench_dispatch import TorchFunction

        b = TorchFunction()
        b.setup(case, name)
        return b.fn

    return make


def _spelling(kind):
    def make(name):
        L = _L(name)
        a, b = _data(name, (8,)), _data(name, (8,), seed=5)
        with _libs().pending():
            return {
                "function": lambda: functools.partial(L.add, a, b),
                "method": lambda: functools.partial(a.add, b),
                "aten": lambda: functools.partial(L.ops.aten.add.Tensor, a, b),
                "scalar": lambda: functools.partial(operator.add, a, 1.0),
            }[kind]()

    return make


def _mul_backward(name):
    a = _data(name, (8,), requires_grad=True)
    b = _data(name, (8,), seed=5, requires_grad=True)
    g = _data(name, (8,), seed=6)
    return lambda: (a * b).backward(g)


def _conv(name):
    with _libs().pending():
        nn = _L(name).nn
        net = nn.Sequential(nn.Conv2d(1, 32, 3), nn.ReLU(), nn.MaxPool2d(2))
    x = _data(name, (64, 1, 28, 28))
    params = list(net.parameters())

    def step():
        for p in params:
            p.grad = None
        net(x).sum().backward()

    return step


def _digits_cnn(name):
    """One Adam training step of examples/main.py's model (batch 64 of 8x8 images); an epoch
    of the example is 23 such steps plus data loading."""
    import importlib.util

    import numpy as np

    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples", "main.py")
    spec = importlib.util.spec_from_file_location("_numtorch_example_main", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    L = _L(name)
    L.manual_seed(0)
    model = example.digits_cnn(L)
    opt = L.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = L.nn.CrossEntropyLoss()
    x = _data(name, (64, 1, 8, 8), low=0.0)
    y = L.from_numpy(np.random.default_rng(0).integers(0, 10, 64))

    def step():
        opt.zero_grad()
        loss_fn(model(x), y).backward()
        opt.step()

    return step


def _mlp_infer(name):
    common = _libs()
    L = _L(name)
    model = common.build_mlp(L)
    x = _data(name, (1, 784))
    with L.no_grad():
        model(x)

    def infer():
        with L.no_grad():
            return model(x)

    return infer


def _beyond(kind, n=10_000_000):
    def make(name):
        import numpy as np

        x = _data(name, (n,), low=0.1, high=0.9)
        y = _data(name, (n,), seed=5, low=0.1, high=0.9)
        if kind == "chain":  # three ops, three allocations in eager mode
            if name == "numpy":
                return lambda: np.exp(x * y + 0.5)
            return lambda: (x * y + 0.5).exp()
        if kind == "add_":
            if name == "numpy":
                return functools.partial(np.add, x, y, out=x)
            return functools.partial(x.add_, y)
        if kind == "clone":
            return x.copy if name == "numpy" else x.clone
        if kind == "sum64":
            x64 = _data(name, (n,), "float64")
            return x64.sum
        if kind == "transpose_copy":
            m = _data(name, (4096, 1024))
            if name == "numpy":
                return lambda: np.ascontiguousarray(m.T)
            return m.t().contiguous
        if kind == "cat":
            xs = [_data(name, (512, 1024), seed=i) for i in range(8)]
            if name == "numpy":
                return functools.partial(np.concatenate, xs, 1)
            return functools.partial(_L(name).cat, xs, 1)
        raise ValueError(kind)

    return make


def _sweep(entry, size, mode):
    def make(name):
        if name == "numpy":
            raise NotImplementedError("the sweep compares numtorch with PyTorch")
        from benchmarks import sweep

        libs = ("numtorch", "torch") if _libs().torch_or_none() is not None else ("numtorch",)
        return sweep.build(entry, size, mode, name, libs)

    return make


def sweep_workloads() -> list:
    """The registry sweep (benchmarks/sweep.py): one workload per OpInfo entry, size and mode
    (categories "sweep fwd" and "sweep fwd+bwd"), leaving out entries PyTorch lacks."""
    from benchmarks import sweep

    skip = set(sweep.unresolved()) if _libs().torch_or_none() is not None else set()
    W = []
    for entry, info in sweep.entries().items():
        if entry in skip:
            continue
        for mode in sweep.MODES:
            if mode == "fwd+bwd" and not info.grad:
                continue
            for size in sweep.SIZES:
                W.append(Workload(f"{entry} {size} {mode}", f"sweep {mode}", _sweep(entry, size, mode)))
    return W


# ---- the workload table -----------------------------------------------------------------------------
def _chain5(x, y):
    # five pointwise ops, four temporaries in eager mode (the compile category's workload)
    return (x * y + 0.5).tanh() * x - y


def _compiled_chain(n, peer):
    """numtorch.compile'd _chain5 against PyTorch eager (``peer="eager"``; NumPy's column: NumPy
    eager) or against torch.compile with inductor (``peer="inductor"``)."""

    def make(name):
        import numpy as np

        x = _data(name, (n,), low=0.1, high=0.9)
        y = _data(name, (n,), seed=5, low=0.1, high=0.9)
        if name == "numpy":
            if peer != "eager":
                raise NotImplementedError("no NumPy compiler")
            return lambda: np.tanh(x * y + 0.5) * x - y
        fn = _chain5
        if name == "numtorch":
            fn = _L(name).compile(_chain5)
        elif peer == "inductor":
            fn = _L(name).compile(_chain5)
        return functools.partial(fn, x, y)

    return make


def _gelu_block(name, d=256, hidden=1024, batch=128):
    """Compiled (numtorch) / eager (PyTorch) GELU-MLP block fwd+bwd: linear, bias+GELU,
    linear, residual, layer_norm."""
    L = _L(name)
    L.manual_seed(0)
    nn = L.nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1, self.fc2, self.norm = nn.Linear(d, hidden), nn.Linear(hidden, d), nn.LayerNorm(d)

        def forward(self, x):
            return self.norm(x + self.fc2(nn.functional.gelu(self.fc1(x))))

    block = Block()
    run = L.compile(block) if name == "numtorch" else block
    x = _data(name, (batch, d), requires_grad=True)

    def step():
        run(x).sum().backward()

    return step


def _gelu_gemms(name, d=256, hidden=1024, batch=128):
    """The six matrix products of the GELU-MLP block's fwd+bwd alone, in the layouts the block
    gives them (weights transposed in the forward): the floor under the block's time, which the
    compile target (0.8x PyTorch's whole step) is measured against."""
    L = _L(name)
    x, g = _data(name, (batch, d)), _data(name, (batch, d), seed=3)
    h, gh = _data(name, (batch, hidden), seed=4), _data(name, (batch, hidden), seed=5)
    w1, w2 = _data(name, (hidden, d), seed=6), _data(name, (d, hidden), seed=7)
    pairs = ((x, w1.t()), (h, w2.t()), (g, w2), (g.t(), h), (gh, w1), (gh.t(), x))

    def step():
        for a, b in pairs:
            L.mm(a, b)

    return step


def _func(kind):
    """numtorch.func workloads (issue 14), built by benchmarks/bench_func.py for either library.
    ``psg-vmap``/``psg-loop``: per-sample gradients of an MLP 784-256-10 over 64 samples with
    vmap(grad) / a Python loop of autograd.grad; ``chain-vmap``/``chain-hand``: a chain of 10
    pointwise ops over 128 vectors of 1000, vmapped or hand-batched; ``chain-vs-hand``: the
    numtorch column vmapped, the torch column numtorch's own hand-batched call (the peer is the
    issue's target, vmap <= 1.2x hand-batched, as "vs inductor" names its peer)."""

    def make(name):
        from benchmarks import bench_func

        if name == "numpy":
            raise NotImplementedError("no NumPy equivalent")
        if kind == "chain-vs-hand":
            return bench_func.pointwise_chain(_L("numtorch"), "vmap" if name == "numtorch" else "hand")
        what, mode = kind.split("-")
        build = bench_func.per_sample_grads if what == "psg" else bench_func.pointwise_chain
        return build(_L(name), mode)

    return make


def _gpt2_step(name, compiled=True):
    """The GPT-2-style training step (benchmarks/gpt2.py): numtorch compiled (or eager), PyTorch eager."""
    from benchmarks import gpt2

    return gpt2.train_step(_L(name), compiled=compiled and name == "numtorch")


def workloads(sweep: bool = False) -> list:
    """The table; ``sweep``: the registry sweep instead (``compare.py sweep``)."""
    if sweep:
        return sweep_workloads()
    common = _libs()
    W = []
    for op in common.TINY_OPS:
        W.append(Workload(f"tiny {op}", "tiny", _tiny(op), target=1.0))
    for op in common.TINY_OPS:
        W.append(Workload(f"tiny {op} grad", "tiny+grad", _tiny(op, True), target=1.5))
    for op in ("add", "relu", "getitem", "reshape"):
        W.append(Workload(f"tiny {op} Parameter", "dispatch", _tiny_param(op)))
    for kind in ("function", "method", "aten", "scalar"):
        W.append(Workload(f"add spelling {kind}", "dispatch", _no_numpy(_spelling(kind))))
    W.append(Workload("custom Function apply", "dispatch", _no_numpy(_custom_function)))
    W.append(Workload("TorchDispatchMode pass-through add+mul+sum", "dispatch",
                      _no_numpy(_python_key("mode")), target=1.2))  # fmt: skip
    W.append(Workload("wrapper subclass pass-through add+mul+sum", "dispatch",
                      _no_numpy(_python_key("wrapper")), target=1.2))  # fmt: skip
    W.append(Workload("(a*b).backward tiny", "dispatch", _no_numpy(_mul_backward)))
    W.append(Workload("__torch_function__ subclass add", "torch_function", _no_numpy(_tf_subclass)))
    W.append(Workload("TorchFunctionMode pass-through add+mul+sum", "torch_function",
                      _no_numpy(_torch_function("mode")), target=1.1))  # fmt: skip
    W.append(Workload("__torch_function__ subclass pass-through add+mul+sum", "torch_function",
                      _no_numpy(_torch_function("subclass")), target=1.2))  # fmt: skip
    for n in (1_000_000, 10_000_000):
        for op in ("add", "mul", "exp", "tanh", "sigmoid"):
            for out in (False, True):
                nbytes = (3 if op in ("add", "mul") else 2) * 4 * n
                W.append(Workload(f"{op} {n:.0e} f32{' out=' if out else ''}", "elementwise",
                                  _elementwise(op, n, "float32", out), target=1.0,
                                  work=("GB/s", nbytes)))  # fmt: skip
    for op, over in (("sum", None), ("sum", 1), ("sum", 0), ("mean", None), ("mean", 1),
                     ("max", None), ("max", 1), ("softmax", -1), ("log_softmax", -1)):  # fmt: skip
        label = f"{op} 4096x1024" + ("" if over is None else f" dim={over}")
        W.append(Workload(label, "reduction", _reduction(op, over), target=1.0,
                          work=("GB/s", 4096 * 1024 * 4)))  # fmt: skip
    for n in (512, 1024):
        W.append(Workload(f"matmul {n}", "linalg", _matmul((n, n), (n, n)), target=1 / 0.9,
                          work=("GFLOP/s", 2 * n**3)))  # fmt: skip
    W.append(Workload("bmm 32x128x128", "linalg", _matmul((32, 128, 128), (32, 128, 128), "bmm"),
                      target=1 / 0.9, work=("GFLOP/s", 2 * 32 * 128**3)))  # fmt: skip
    W.append(Workload("MLP fwd+bwd", "mlp", _mlp("fwd_bwd"), target=1.2))
    W.append(Workload("MLP SGD step", "mlp", _mlp("opt", "sgd"), target=1.2))
    W.append(Workload("MLP Adam step", "mlp", _mlp("opt", "adam"), target=1.2))
    W.append(Workload("MLP train step (Adam)", "mlp", _mlp("train", "adam"), target=1.2))
    for n in (8, 1_000_000):
        for grad in (False, True):
            tag = f"{n} {'grad' if grad else 'nograd'}"
            W.append(Workload(f"custom_op sin {tag}", "extension", _extension("custom", n, grad)))
            W.append(Workload(f"custom_op njit-kernel sin vs built-in {tag}", "extension",
                              _extension("vs-builtin-njit", n, grad), target=1.2))  # fmt: skip
            W.append(Workload(f"custom_op python-body sin vs built-in {tag}", "extension",
                              _extension("vs-builtin-custom", n, grad)))  # fmt: skip
            W.append(Workload(f"scalar-route softplus {tag}", "extension", _extension("scalar", n, grad)))
            W.append(Workload(f"scalar-route softplus vs built-in {tag}", "extension",
                              _extension("vs-builtin-softplus", n, grad), target=1.1))  # fmt: skip
            W.append(Workload(f"scalar-route max reduction {tag}", "extension", _extension("reduction", n, grad)))
    W.append(Workload("autograd chain 100 tiny ops", "autograd", _no_numpy(_autograd_chain), target=2.0))
    W.append(Workload("LinearFunction fwd+bwd", "autograd", _no_numpy(_linear_function), target=1.5))
    W.append(Workload("conv+relu+pool fwd+bwd", "autograd", _no_numpy(_conv), target=2.0))
    W.append(Workload("digits CNN Adam step", "autograd", _no_numpy(_digits_cnn)))
    W.append(Workload("GPT-2 train step (eager)", "autograd",
                      _no_numpy(functools.partial(_gpt2_step, compiled=False)), target=1.2))  # fmt: skip
    from benchmarks import workloads_layers as layers

    W.append(Workload("LSTM 2x256 seq 35 batch 20 fwd+bwd", "layers", _no_numpy(layers.lstm), target=1.5))
    W.append(Workload("TransformerEncoderLayer 256/4 seq 64 batch 16 fwd+bwd", "layers",
                      _no_numpy(layers.transformer_layer), target=1.5))  # fmt: skip
    W.append(Workload("fft 2**20 f32", "layers", layers.fft, target=1 / 0.8))
    W.append(Workload("fft 2**20 c64", "layers", layers.fft_complex))
    W.append(Workload("Conv3d+ReLU 4x4x16^3 fwd+bwd", "layers", _no_numpy(layers.conv3d)))
    W.append(Workload("MLP inference batch 1", "beyond", _no_numpy(_mlp_infer)))
    W.append(Workload("(x*y+0.5).exp() 1e7", "beyond", _beyond("chain"), work=("GB/s", 5 * 4e7)))
    W.append(Workload("x.add_(y) 1e7", "beyond", _beyond("add_"), work=("GB/s", 3 * 4e7)))
    W.append(Workload("x.clone() 1e7", "beyond", _beyond("clone"), work=("GB/s", 2 * 4e7)))
    W.append(Workload("x.sum() 1e7 f64", "beyond", _beyond("sum64"), work=("GB/s", 8e7)))
    W.append(Workload("x.t().contiguous() 4096x1024", "beyond", _beyond("transpose_copy")))
    W.append(Workload("cat 8x(512,1024) dim=1", "beyond", _beyond("cat")))
    W.append(Workload("SGD step 1e7 param", "beyond", _big_optimizer("sgd")))
    W.append(Workload("Adam step 1e7 param", "beyond", _big_optimizer("adam")))
    for n in (1_000_000, 10_000_000):
        W.append(Workload(f"compiled 5-op chain {n:.0e} f32", "compile", _compiled_chain(n, "eager"),
                          target=1 / 3, work=("GB/s", 3 * 4 * n)))  # fmt: skip
        W.append(Workload(f"compiled 5-op chain {n:.0e} vs inductor", "compile",
                          _compiled_chain(n, "inductor"), target=1 / 1.5, work=("GB/s", 3 * 4 * n)))  # fmt: skip
    W.append(Workload("compiled GELU-MLP block fwd+bwd", "compile", _no_numpy(_gelu_block), target=0.8))
    W.append(Workload("GELU-MLP block: its 6 GEMMs alone", "compile", _no_numpy(_gelu_gemms),
                      work=("GFLOP/s", 6 * 2 * 128 * 256 * 1024)))  # fmt: skip
    W.append(Workload("per-sample grads MLP b64 vmap(grad)", "func", _func("psg-vmap"), target=1.5))
    W.append(Workload("per-sample grads MLP b64 loop", "func", _func("psg-loop")))
    W.append(Workload("vmap 10 pointwise ops 128x1000", "func", _func("chain-vmap")))
    W.append(Workload("hand-batched 10 pointwise 128x1000", "func", _func("chain-hand")))
    W.append(Workload("vmap 10-op chain vs hand-batched", "func", _func("chain-vs-hand"), target=1.2))
    W.append(Workload("compiled GPT-2 train step", "compile", _no_numpy(_gpt2_step), target=0.8))
    from benchmarks import workloads_startup

    W += workloads_startup.startup_workloads()
    return W
