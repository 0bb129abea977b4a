"""Autograd: an MLP's forward + backward, a long chain of tiny ops (the engine's per-node
cost), and a user-written ``autograd.Function``. Target for the MLP: <= 1.2x PyTorch."""

from __future__ import annotations

from .common import (
    LIBS,
    Benchmark,
    build_mlp,
    elementwise_chain,
    lib,
    linear_function,
    mlp_batch,
    mlp_step,
    tensor,
    warm,
)

COVERS: set = set()


class MLP(Benchmark):
    """784-256-256-10 MLP, batch 128, cross-entropy: forward + backward."""

    params = [LIBS]
    param_names = ["lib"]

    def setup(self, libname):
        L = lib(libname)
        model = build_mlp(L)
        x, y = mlp_batch(L)
        self.step = mlp_step(L, model, x, y)
        warm(self.step)

    def time_forward_backward(self, libname):
        self.step()


class Chain(Benchmark):
    """100 tiny (8-element) elementwise ops, then backward: graph recording + engine cost."""

    params = [LIBS]
    param_names = ["lib"]

    def setup(self, libname):
        L = lib(libname)
        self.x = tensor((8,), L=L, requires_grad=True)
        self.g = tensor((8,), L=L)
        warm(self._forward_backward)
        self.y = elementwise_chain(self.x)

    def _forward_backward(self):
        elementwise_chain(self.x).backward(self.g)

    def time_forward(self, libname):
        elementwise_chain(self.x)

    def time_forward_backward(self, libname):
        elementwise_chain(self.x).backward(self.g)

    def time_backward_retained(self, libname):
        self.y.backward(self.g, retain_graph=True)


class CustomLinearFunction(Benchmark):
    """PyTorch's tutorial ``LinearFunction`` at (128, 784) x (256, 784)^T: forward + backward."""

    params = [LIBS]
    param_names = ["lib"]

    def setup(self, libname):
        L = lib(libname)
        self.apply = linear_function(L).apply
        self.x = tensor((128, 784), L=L, requires_grad=True)
        self.w = tensor((256, 784), L=L, requires_grad=True, seed=5)
        self.b = tensor((256,), L=L, requires_grad=True, seed=6)
        self.g = tensor((128, 256), L=L, seed=7)
        warm(self._forward_backward)

    def _forward_backward(self):
        self.apply(self.x, self.w, self.b).backward(self.g)

    def time_forward_backward(self, libname):
        self.apply(self.x, self.w, self.b).backward(self.g)
