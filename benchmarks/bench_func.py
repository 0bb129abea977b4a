"""numtorch.func: per-sample gradients of an MLP 784-256-10 (batch 64) with vmap(grad(loss))
against torch.func and a Python loop of autograd.grad (targets: <= 1.5x torch.func, >= 5x faster
than the loop); vmap of a chain of 10 pointwise ops over 128 vectors against the hand-batched
call (target <= 1.2x)."""

from __future__ import annotations

import warnings

from .common import LIBS, Benchmark, lib

COVERS: set = set()


def per_sample_grads(L, mode: str):
    """A zero-argument callable computing 64 per-sample gradients of an MLP's loss."""
    F = L.nn.functional
    L.manual_seed(0)
    model = L.nn.Sequential(L.nn.Linear(784, 256), L.nn.ReLU(), L.nn.Linear(256, 10))
    params = {k: v.detach() for k, v in model.named_parameters()}
    x, y = L.randn(64, 784), L.randint(0, 10, (64,))

    def loss(p, xb, yb):
        return F.cross_entropy(L.func.functional_call(model, p, (xb.unsqueeze(0),)), yb.unsqueeze(0))

    if mode == "vmap":
        fn = L.func.vmap(L.func.grad(loss), in_dims=(None, 0, 0))
        return lambda: fn(params, x, y)
    plist = list(model.parameters())

    def loop():
        return [L.autograd.grad(F.cross_entropy(model(x[i : i + 1]), y[i : i + 1]), plist) for i in range(64)]

    return loop


def pointwise_chain(L, mode: str, n: int = 1000):
    """A chain of 10 pointwise ops over 128 vectors of ``n``: vmapped per vector, or called on
    the batch by hand (the issue's target: vmap at most 1.2x the hand-batched call)."""
    L.manual_seed(0)
    x = L.randn(128, n)

    def chain(v):
        for _ in range(5):  # 2 ops a step: mul, tanh
            v = (v * 1.01).tanh()
        return v

    if mode == "vmap":
        fn = L.func.vmap(chain)
        return lambda: fn(x)
    return lambda: chain(x)


class PerSampleGrads(Benchmark):
    params = [LIBS, ["vmap", "loop"]]
    param_names = ["lib", "mode"]

    def setup(self, libname, mode):
        warnings.simplefilter("ignore")
        self.fn = per_sample_grads(lib(libname), mode)
        self.fn()

    def time_per_sample_grads(self, libname, mode):
        self.fn()


class VmapPointwiseChain(Benchmark):
    params = [LIBS, ["vmap", "hand"]]
    param_names = ["lib", "mode"]

    def setup(self, libname, mode):
        self.fn = pointwise_chain(lib(libname), mode)
        self.fn()

    def time_chain(self, libname, mode):
        self.fn()
