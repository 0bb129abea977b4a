"""autograd.Function under numtorch.func (PyTorch's "Extending torch.func with autograd.Function")."""

import numpy as np
import pytest

import numtorch
from numtorch.func import grad, hessian, jacfwd, jacrev, jvp, vjp, vmap

D = numtorch.float64
DOCS = "For more details, please see https://pytorch.org/docs/main/notes/extending.func.html"


class MyCube(numtorch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        return x**3, 3 * x**2

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        _, dx = output
        ctx.save_for_backward(x, dx)
        ctx.save_for_forward(x, dx)

    @staticmethod
    def backward(ctx, grad_output, grad_dx):
        x, dx = ctx.saved_tensors
        return grad_output * dx + grad_dx * 6 * x

    @staticmethod
    def jvp(ctx, x_t):
        x, dx = ctx.saved_tensors
        return dx * x_t, 6 * x * x_t


def my_cube(x):
    return MyCube.apply(x)[0]


class LinearFunction(numtorch.autograd.Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(input, weight, bias=None):
        output = input.mm(weight.t())
        if bias is not None:
            output = output + bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(*inputs)

    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        gi = gw = gb = None
        if ctx.needs_input_grad[0]:
            gi = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            gw = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            gb = grad_output.sum(0)
        return gi, gw, gb


class NumpySort(numtorch.autograd.Function):
    calls = []

    @staticmethod
    def forward(x, dim):
        a = x.numpy()
        ind = np.argsort(a, axis=dim)
        ind_inv = np.argsort(ind, axis=dim)
        res = np.take_along_axis(a, ind, axis=dim)
        return numtorch.tensor(res), numtorch.tensor(ind), numtorch.tensor(ind_inv)

    @staticmethod
    def setup_context(ctx, inputs, output):
        _, dim = inputs
        _, ind, ind_inv = output
        ctx.mark_non_differentiable(ind, ind_inv)
        ctx.save_for_backward(ind, ind_inv)
        ctx.dim = dim

    @staticmethod
    def backward(ctx, g, _0, _1):
        ind, ind_inv = ctx.saved_tensors
        return NumpyTake.apply(g, ind_inv, ind, ctx.dim), None

    @staticmethod
    def vmap(info, in_dims, x, dim):
        NumpySort.calls.append(info)
        x = x.movedim(in_dims[0], 0)
        dim = dim if dim >= 0 else dim + x.dim() - 1
        return NumpySort.apply(x, dim + 1), (0, 0, 0)


class NumpyTake(numtorch.autograd.Function):
    @staticmethod
    def forward(x, ind, ind_inv, dim):
        return numtorch.tensor(np.take_along_axis(x.numpy(), ind.numpy(), dim))

    @staticmethod
    def setup_context(ctx, inputs, output):
        _, ind, ind_inv, dim = inputs
        ctx.save_for_backward(ind, ind_inv)
        ctx.dim = dim

    @staticmethod
    def backward(ctx, g):
        ind, ind_inv = ctx.saved_tensors
        return NumpyTake.apply(g, ind_inv, ind, ctx.dim), None, None, None

    @staticmethod
    def vmap(info, in_dims, x, ind, ind_inv, dim):
        logical = x.dim() if in_dims[0] is None else x.dim() - 1
        dim = dim if dim >= 0 else dim + logical

        def front(t, d):
            return t.expand(info.batch_size, *t.shape) if d is None else t.movedim(d, 0)

        x, ind, ind_inv = (front(t, d) for t, d in zip((x, ind, ind_inv), in_dims[:3]))
        return NumpyTake.apply(x, ind, ind_inv, dim + 1), 0


def numpy_sort(x, dim=-1):
    return NumpySort.apply(x, dim)[0]


def fd_jacobian(f, x, eps=1e-6):
    """Central differences of f at x: (out.numel(), x.numel())."""
    a = x.numpy().astype(np.float64)
    cols = []
    for i in range(a.size):
        d = np.zeros(a.size)
        d[i] = eps
        hi = f(numtorch.tensor((a.ravel() + d).reshape(a.shape))).numpy().ravel()
        lo = f(numtorch.tensor((a.ravel() - d).reshape(a.shape))).numpy().ravel()
        cols.append((hi - lo) / (2 * eps))
    return np.stack(cols, 1)


@pytest.fixture
def x():
    return numtorch.tensor([0.5, -1.25, 2.0, 0.75], dtype=D)


def test_mycube_grad_and_grad_grad(x):
    np.testing.assert_allclose(grad(lambda t: my_cube(t).sum())(x).numpy(), 3 * x.numpy() ** 2)
    ggx = grad(grad(my_cube))(x[2])
    np.testing.assert_allclose(ggx.item(), 6 * x[2].item())


def test_mycube_vjp_and_jacrev_match_finite_differences(x):
    out, fn = vjp(my_cube, x)
    ct = numtorch.tensor([1.0, -2.0, 0.5, 3.0], dtype=D)
    (g,) = fn(ct)
    np.testing.assert_allclose(out.numpy(), x.numpy() ** 3)
    np.testing.assert_allclose(g.numpy(), ct.numpy() @ fd_jacobian(my_cube, x), rtol=1e-6)
    np.testing.assert_allclose(jacrev(my_cube)(x).numpy(), fd_jacobian(my_cube, x), rtol=1e-6)


def test_mycube_jvp_and_jacfwd_use_the_jvp_staticmethod(x):
    t = numtorch.tensor([1.0, 0.5, -1.0, 2.0], dtype=D)
    out, tan = jvp(my_cube, (x,), (t,))
    np.testing.assert_allclose(tan.numpy(), fd_jacobian(my_cube, x) @ t.numpy(), rtol=1e-6)
    np.testing.assert_allclose(jacfwd(my_cube)(x).numpy(), fd_jacobian(my_cube, x), rtol=1e-6)
    # forward-over-reverse reads the tangent of the saved output dx
    h = hessian(lambda t: my_cube(t).sum())(x)
    np.testing.assert_allclose(h.numpy(), np.diag(6 * x.numpy()), rtol=1e-10)


def test_mycube_generated_vmap_rule_matches_a_loop(x):
    xs = x.reshape(2, 2)
    np.testing.assert_allclose(vmap(my_cube)(x).numpy(), x.numpy() ** 3)
    np.testing.assert_allclose(vmap(vmap(my_cube))(xs).numpy(), xs.numpy() ** 3)
    loop = np.stack([grad(my_cube)(x[i]).numpy() for i in range(4)])
    np.testing.assert_allclose(vmap(grad(my_cube))(x).numpy(), loop)
    # a transform outside the vmap differentiates through the generated Vmapped<MyCube>
    np.testing.assert_allclose(grad(lambda t: vmap(my_cube)(t).sum())(x).numpy(), 3 * x.numpy() ** 2)
    _, tan = jvp(vmap(my_cube), (x,), (numtorch.ones_like(x),))
    np.testing.assert_allclose(tan.numpy(), 3 * x.numpy() ** 2)


def test_linear_function_under_vmap_grad_and_jacrev():
    rng = np.random.default_rng(0)
    inp = numtorch.tensor(rng.standard_normal((5, 2, 3)))
    w = numtorch.tensor(rng.standard_normal((4, 3)))
    b = numtorch.tensor(rng.standard_normal(4))
    got = vmap(LinearFunction.apply, in_dims=(0, None, None))(inp, w, b)
    want = np.stack([inp.numpy()[i] @ w.numpy().T + b.numpy() for i in range(5)])
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)

    def loss(w, x):
        return LinearFunction.apply(x, w, b).pow(2).sum()

    per_sample = vmap(grad(loss), in_dims=(None, 0))(w, inp)
    loop = np.stack([grad(loss)(w, inp[i]).numpy() for i in range(5)])
    np.testing.assert_allclose(per_sample.numpy(), loop, rtol=1e-12)
    g_outer = grad(lambda w: vmap(lambda x: loss(w, x))(inp).sum())(w)
    np.testing.assert_allclose(g_outer.numpy(), loop.sum(0), rtol=1e-10)
    jac = jacrev(lambda t: LinearFunction.apply(inp[0], t, b))(w)
    fd = fd_jacobian(lambda t: LinearFunction.apply(inp[0], t, b), w)
    np.testing.assert_allclose(jac.reshape(8, 12).numpy(), fd, rtol=1e-6, atol=1e-9)


def test_needs_input_grad_follows_argnums():
    seen = []

    class Mul(numtorch.autograd.Function):
        @staticmethod
        def forward(x, y):
            return x * y

        @staticmethod
        def setup_context(ctx, inputs, output):
            seen.append(ctx.needs_input_grad)
            ctx.save_for_backward(*inputs)

        @staticmethod
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            return g * y, g * x

    x = numtorch.tensor([1.0, 2.0], dtype=D)
    y = numtorch.tensor([3.0, 4.0], dtype=D)
    g = grad(lambda a, b: Mul.apply(a, b).sum())(x, y)
    np.testing.assert_allclose(g.numpy(), y.numpy())
    gs = grad(lambda a, b: Mul.apply(a, b).sum(), argnums=(0, 1))(x, y)
    np.testing.assert_allclose(gs[1].numpy(), x.numpy())
    assert seen == [(True, False), (True, True)]


def test_vmap_staticmethod_receives_info_and_in_dims():
    NumpySort.calls.clear()
    xs = numtorch.tensor([[3.0, 1.0, 2.0], [0.0, -1.0, 5.0]], dtype=D)
    got = vmap(numpy_sort, randomness="same")(xs)
    np.testing.assert_allclose(got.numpy(), np.sort(xs.numpy(), 1))
    assert NumpySort.calls[-1].batch_size == 2 and NumpySort.calls[-1].randomness == "same"
    g = grad(lambda t: (numpy_sort(t) * numtorch.tensor([1.0, 2.0, 3.0], dtype=D)).sum())(xs[0])
    np.testing.assert_allclose(g.numpy(), [3.0, 1.0, 2.0])
    # jacrev vmaps the backward: NumpyTake's own vmap staticmethod runs
    jac = jacrev(numpy_sort)(xs[1])
    np.testing.assert_allclose(jac.numpy(), fd_jacobian(numpy_sort, xs[1]), atol=1e-8)
    per_sample = vmap(grad(lambda t: numpy_sort(t)[0]))(xs)
    np.testing.assert_allclose(per_sample.numpy(), [[0, 1, 0], [0, 1, 0]])


class Combined(numtorch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2


@pytest.mark.parametrize("transform", [
    lambda f: grad(lambda x: f(x).sum()),
    lambda f: vmap(f),
    lambda f: (lambda x: jvp(f, (x,), (x,))),
    lambda f: jacrev(f),
], ids=["grad", "vmap", "jvp", "jacrev"])  # fmt: skip
def test_combined_forward_raises_under_a_transform(transform):
    x = numtorch.ones(2, dtype=D)
    with pytest.raises(RuntimeError) as e:
        transform(Combined.apply)(x)
    assert str(e.value) == (
        "In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, "
        "jacrev, ...), it must override the setup_context staticmethod. " + DOCS
    )
    np.testing.assert_allclose(Combined.apply(x).numpy(), [2.0, 2.0])  # fine outside


class NoRule(numtorch.autograd.Function):
    @staticmethod
    def forward(x):
        return x * 2

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass

    @staticmethod
    def backward(ctx, g):
        return g * 2


def test_vmap_without_a_rule_raises():
    with pytest.raises(RuntimeError) as e:
        vmap(NoRule.apply)(numtorch.ones(3, 2))
    assert str(e.value) == (
        "You tried to vmap over NoRule, but it does not have vmap support. Please override and "
        "implement the vmap staticmethod or set generate_vmap_rule=True. " + DOCS
    )
    with pytest.raises(NotImplementedError, match="you must either override the vmap staticmethod"):
        NoRule.vmap(None, (0,), numtorch.ones(2))
    # grad alone needs no vmap rule
    np.testing.assert_allclose(grad(lambda x: NoRule.apply(x).sum())(numtorch.ones(2)).numpy(), [2, 2])


def test_vmap_with_both_rules_raises():
    class Both(NoRule):
        generate_vmap_rule = True

        @staticmethod
        def vmap(info, in_dims, x):
            return x * 2, 0

    with pytest.raises(RuntimeError, match="has both generate_vmap_rule=True and an overridden vmap"):
        vmap(Both.apply)(numtorch.ones(3, 2))


def test_vmap_staticmethod_bad_return_raises():
    class Bad(NoRule):
        @staticmethod
        def vmap(info, in_dims, x):
            return x * 2

    with pytest.raises(RuntimeError, match="Expected the vmap staticmethod to have two returns"):
        vmap(Bad.apply)(numtorch.ones(3, 2))


def test_jvp_without_jvp_staticmethod_raises():
    with pytest.raises(NotImplementedError, match="You must implement the jvp function"):
        jvp(NoRule.apply, (numtorch.ones(2),), (numtorch.ones(2),))
