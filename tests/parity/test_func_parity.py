"""numtorch.func against torch.func on the same inputs."""

import numpy as np
import pytest

import numtorch
import numtorch.func as nf

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(7)
X = RNG.standard_normal((4, 3))
W = RNG.standard_normal((3, 2))


def both(a):
    return numtorch.tensor(a), torch.tensor(a)


def close(ours, theirs, rtol=1e-10):
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=rtol, atol=1e-12)


def _f(lib):
    return lambda x: (lib.sin(x) * x.exp()).sum()


def test_grad():
    n, t = both(X)
    close(nf.grad(_f(numtorch))(n), torch.func.grad(_f(torch))(t))


@pytest.mark.parametrize("name", ["jacrev", "jacfwd"])
def test_jacobians(name):
    n, t = both(X[0])
    g = lambda lib: (lambda x: lib.tanh(x) * x.sum())  # noqa: E731
    close(getattr(nf, name)(g(numtorch))(n), getattr(torch.func, name)(g(torch))(t))


def test_hessian():
    n, t = both(X[0])
    close(nf.hessian(_f(numtorch))(n), torch.func.hessian(_f(torch))(t))


@pytest.mark.parametrize("op", ["sin", "exp", "sum", "softmax", "matmul", "mul"])
def test_vmap_ops(op):
    (n, t), (nw, tw) = both(X), both(W)
    calls = {
        "sin": lambda lib, x, w: lib.sin(x),
        "exp": lambda lib, x, w: lib.exp(x),
        "sum": lambda lib, x, w: x.sum(0),
        "softmax": lambda lib, x, w: lib.softmax(x, 0),
        "matmul": lambda lib, x, w: lib.matmul(x, w),
        "mul": lambda lib, x, w: x * w[:, 0],
    }[op]
    ours = numtorch.vmap(lambda x, w: calls(numtorch, x, w), in_dims=(0, None))(n, nw)
    theirs = torch.vmap(lambda x, w: calls(torch, x, w), in_dims=(0, None))(t, tw)
    close(ours, theirs)


def test_vmap_grad_per_sample_gradients():
    (n, t), (nw, tw) = both(X), both(W)
    y = RNG.standard_normal((4, 2))
    ny, ty = both(y)

    def loss(lib):
        return lambda w, x, y: ((lib.tanh(x @ w) - y) ** 2).sum()

    ours = numtorch.vmap(nf.grad(loss(numtorch)), in_dims=(None, 0, 0))(nw, n, ny)
    theirs = torch.vmap(torch.func.grad(loss(torch)), in_dims=(None, 0, 0))(tw, t, ty)
    close(ours, theirs)


def _cube_cls(lib):
    class MyCube(lib.autograd.Function):
        generate_vmap_rule = True

        @staticmethod
        def forward(x):
            return x**3, 3 * x**2

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.save_for_backward(inputs[0], output[1])
            ctx.save_for_forward(inputs[0], output[1])

        @staticmethod
        def backward(ctx, g, gdx):
            x, dx = ctx.saved_tensors
            return g * dx + gdx * 6 * x

        @staticmethod
        def jvp(ctx, tx):
            x, dx = ctx.saved_tensors
            return dx * tx, 6 * x * tx

    return MyCube


@pytest.mark.parametrize("tr", ["vmap", "grad_vmap", "vmap_grad", "jacfwd", "hessian"])
def test_autograd_function_generated_rule(tr):
    n, t = both(X[:, 0])

    def run(lib, func, x):
        cube = _cube_cls(lib)
        f = lambda x: cube.apply(x)[0]  # noqa: E731
        return {
            "vmap": lambda: lib.vmap(f)(x),
            "grad_vmap": lambda: func.grad(lambda x: lib.vmap(f)(x).sum())(x),
            "vmap_grad": lambda: lib.vmap(func.grad(f))(x),
            "jacfwd": lambda: func.jacfwd(f)(x),
            "hessian": lambda: func.hessian(lambda x: f(x).sum())(x),
        }[tr]()

    close(run(numtorch, nf, n), run(torch, torch.func, t))
