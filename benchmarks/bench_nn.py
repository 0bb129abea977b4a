"""numtorch.nn and numtorch.optim: a small conv net's forward + backward, and optimizer steps
on the MLP (targets: <= 1.2x PyTorch). Skips until nn / optim exist."""

from __future__ import annotations

import functools

from .common import (
    LIBS,
    Benchmark,
    build_mlp,
    lib,
    make_optimizer,
    mlp_batch,
    mlp_step,
    pending,
    registry_ops,
    resolve,
    sample_args,
    tensor,
    warm,
)

# activations declared with the nn ops (not run by the elementwise engine)
ACTIVATIONS = registry_ops(area="nn", arity=1)
COVERS = {"conv2d", "max_pool2d", "relu", "cross_entropy", "linear"} | set(ACTIVATIONS)


class Activation(Benchmark):
    """``torch.<op>(x)`` for the nn area's one-tensor ops at 1e6 float32, forward."""

    params = [ACTIVATIONS]
    param_names = ["op"]

    def setup(self, op):
        if op == "<none>":
            raise NotImplementedError("no nn activation registered yet")
        self.fn = functools.partial(resolve(op), *sample_args(op, 1, (1_000_000,), "float32"))
        warm(self.fn)

    def time_forward(self, op):
        self.fn()


class Conv(Benchmark):
    """``Conv2d(1, 32, 3) -> ReLU -> MaxPool2d(2)`` on a (64, 1, 28, 28) batch, then
    ``out.sum().backward()``."""

    params = [LIBS]
    param_names = ["lib"]

    def setup(self, libname):
        L = lib(libname)
        with pending():
            nn = L.nn
            self.net = nn.Sequential(nn.Conv2d(1, 32, 3), nn.ReLU(), nn.MaxPool2d(2))
        self.x = tensor((64, 1, 28, 28), L=L)
        self.params = list(self.net.parameters())
        warm(self._forward_backward)

    def _forward_backward(self):
        for p in self.params:
            p.grad = None
        self.net(self.x).sum().backward()

    def time_forward(self, libname):
        self.net(self.x)

    def time_forward_backward(self, libname):
        self._forward_backward()


class OptimizerStep(Benchmark):
    """``opt.step()`` on the MLP's parameters with gradients in place (SGD with momentum 0.9,
    Adam with defaults)."""

    params = [["sgd", "adam"], LIBS]
    param_names = ["optimizer", "lib"]

    def setup(self, name, libname):
        L = lib(libname)
        model = build_mlp(L)
        x, y = mlp_batch(L)
        warm(mlp_step(L, model, x, y), 1)
        self.opt = make_optimizer(L, name, model.parameters())
        warm(self.opt.step)

    def time_step(self, name, libname):
        self.opt.step()


class TrainStep(Benchmark):
    """A full MLP training step: zero_grad, forward, backward, ``opt.step()``."""

    params = [["sgd", "adam"], LIBS]
    param_names = ["optimizer", "lib"]

    def setup(self, name, libname):
        L = lib(libname)
        model = build_mlp(L)
        x, y = mlp_batch(L)
        self.fwd_bwd = mlp_step(L, model, x, y)
        self.opt = make_optimizer(L, name, model.parameters())
        warm(self._step)

    def _step(self):
        self.fwd_bwd()
        self.opt.step()

    def time_train_step(self, name, libname):
        self._step()


class TrainingMemory(Benchmark):
    """Peak resident memory of ``steps`` Adam steps of examples/main.py's digits CNN (asv runs
    each benchmark in its own process; ``benchmarks/memory.py`` adds the per-step RSS trace
    that shows whether memory stays flat). Target: within 1.2x of PyTorch's."""

    params = [LIBS, [10, 1000]]
    param_names = ["lib", "steps"]

    def setup(self, libname, steps):
        from .workloads import _digits_cnn

        lib(libname)  # skips when the torch peer is absent
        self.step = _digits_cnn(libname)

    def peakmem_digits_cnn(self, libname, steps):
        for _ in range(steps):
            self.step()
