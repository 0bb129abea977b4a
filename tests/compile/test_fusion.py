"""Fused pointwise regions agree with eager calls, bitwise (Note [Fused kernels]), over the
pointwise OpInfo table, broadcasting, type promotion, Python scalars and layouts."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch
from numtorch._compile import fusion
from numtorch.testing._opinfo import pointwise
from tests.ops._harness import to_nt

PW_INFOS = [i for i in pointwise.core.OPINFOS + pointwise.special.OPINFOS]
DTYPES = ("float32", "float64", "int64", "bool")


def regions(cf) -> list:
    return [st for e in cf.cache.values() for st in (e.steps or ()) if isinstance(st, fusion.Region)]


def plan_views(steps) -> list:
    """The plan views of ``steps``, each link of a view chain included (Note [View chains])."""
    from numtorch._compile import chains

    out = []
    for st in steps:
        out += st.links if isinstance(st, chains.ChainStep) else [st] if isinstance(st, fusion.ViewStep) else []
    return out


def same(a, b) -> None:
    assert type(a) is type(b)
    if isinstance(a, numtorch.Tensor):
        assert a.dtype is b.dtype and a.shape == b.shape
        x, y = a.detach().numpy(), b.detach().numpy()
        if x.dtype.kind in "fc":
            np.testing.assert_array_equal(x, y)  # NaNs in the same places count as equal
        else:
            assert np.array_equal(x, y)
    elif isinstance(a, (tuple, list)):
        assert len(a) == len(b)
        for u, v in zip(a, b, strict=True):
            same(u, v)
    else:
        assert a == b


# Note [Default and slow test runs]: each case compiles fused kernels (~1 s cold), so the default
# run takes these ops in float32; every entry and dtype runs under -m slow
_DEFAULT = {"add", "sub", "mul", "div", "pow", "exp", "log", "tanh", "sigmoid", "sqrt", "abs", "neg",
            "where", "clamp", "maximum", "eq", "lt", "logical_and", "bitwise_and", "floor", "remainder",
            "nn.functional.relu", "nn.functional.gelu", "nn.functional.silu", "erf", "atan2", "lerp"}  # fmt: skip


def _cases():
    for info in PW_INFOS:
        for dt in DTYPES:
            if dt in info.dtypes:
                marks = () if dt == "float32" and info.name in _DEFAULT else (pytest.mark.slow,)
                yield pytest.param(info, dt, id=f"{info.name}-{dt}", marks=marks)


@pytest.mark.parametrize(("info", "dtype"), list(_cases()))
def test_fused_chain_matches_eager_bitwise(info, dtype):
    op = info.resolve()
    rng = np.random.default_rng(0)

    def f(x, *args, **kwargs):
        y = op(x, *args, **kwargs)
        if not isinstance(y, numtorch.Tensor):
            return y
        return y, y + y  # a second pointwise call makes a region when op is fusable

    for s in info.sample_inputs(dtype, rng):
        cf = numtorch.compile(f)  # one per sample: the recompile limit would make later ones eager
        args, kwargs = to_nt(tuple(s.args)), to_nt(dict(s.kwargs))
        x = to_nt(s.input)
        try:
            want = f(x, *args, **kwargs)
        except Exception as e:  # the compiled call raises what the eager call raises
            with pytest.raises(type(e)):
                cf(x, *args, **kwargs)
            continue
        same(cf(x, *args, **kwargs), want)  # the capturing call
        same(cf(x, *args, **kwargs), want)  # the fused (or replayed) call


def test_common_ops_fuse():
    cf = numtorch.compile(lambda x, y: ((x * 2 + y).sigmoid() - 0.5).abs().sqrt() * y)
    x, y = numtorch.randn(8, 5), numtorch.randn(5)
    for _ in range(2):
        cf(x, y)
    (r,) = regions(cf)
    assert len(r.nodes) == 7


@pytest.mark.parametrize(
    ("xs", "ys"),
    [((3, 4), (4,)), ((3, 1), (1, 5)), ((), (6,)), ((2, 3, 4), (3, 1)), ((5,), ()), ((0, 3), (3,))],
)
def test_broadcasting(xs, ys):
    def f(x, y):
        return (x + y).exp() * y - x

    cf = numtorch.compile(f)
    x, y = numtorch.randn(*xs), numtorch.randn(*ys)
    for _ in range(2):
        same(cf(x, y), f(x, y))


@pytest.mark.parametrize(
    ("dx", "dy", "scalar"),
    [("int64", "float32", 2), ("int32", "int64", 3), ("bool", "float64", 1.5), ("float32", "float64", 2.5),
     ("int64", "int64", 0.5), ("bool", "int64", True), ("int32", "float32", -7)],
)
def test_type_promotion_and_scalars(dx, dy, scalar):
    def f(x, y):
        return (x * scalar + y) * (x > 0) - y * scalar

    cf = numtorch.compile(f)
    rng = np.random.default_rng(1)
    x = numtorch.from_numpy((rng.standard_normal((4, 3)) * 5).astype(dx))
    y = numtorch.from_numpy((rng.standard_normal(3) * 5).astype(dy))
    want = f(x, y)
    for _ in range(2):
        same(cf(x, y), want)
    assert regions(cf)


def test_zero_dim_tensor_operand_promotes_like_a_scalar():
    def f(x, s):
        return (x * s).relu() + s

    cf = numtorch.compile(f)
    x, s = numtorch.randn(6), numtorch.tensor(2.0, dtype=numtorch.float64)
    for _ in range(2):
        r = cf(x, s)
        same(r, f(x, s))
    assert r.dtype is numtorch.float32


@pytest.mark.parametrize("layout", ["transposed", "sliced", "expanded"])
def test_non_contiguous_inputs_take_the_strided_kernel(layout):
    base = numtorch.randn(6, 8)
    x = {"transposed": base.t(), "sliced": base[:, ::2], "expanded": base[:1].expand(6, 8)}[layout]

    def f(x):
        return (x * 3).tanh() + x

    cf = numtorch.compile(f)
    for _ in range(2):
        same(cf(x), f(x))
    # a contiguous call of the same shape uses the same graph's contiguous kernel
    y = x.contiguous()
    same(cf(y), f(y))


def test_large_input_takes_the_parallel_kernel():
    def f(x):
        return ((x + 1) * 2).sigmoid()

    cf = numtorch.compile(f)
    x = numtorch.randn(300_000)
    for _ in range(2):
        same(cf(x), f(x))


def test_intermediate_read_by_a_later_op_is_materialized():
    def f(x, w):
        h = (x * 2).relu()
        m = h @ w  # not pointwise: h must reach memory
        return m.sigmoid() + 1, h

    cf = numtorch.compile(f)
    x, w = numtorch.randn(4, 3), numtorch.randn(3, 2)
    for _ in range(2):
        same(cf(x, w), f(x, w))
    assert len(regions(cf)) == 2


def test_in_place_ops_split_regions_and_mutate_like_eager():
    def f(x):
        y = x * 2 + 1
        y.mul_(3)
        x.add_(1)
        return y.exp() - x

    cf = numtorch.compile(f)
    a, b = numtorch.randn(5), None
    b = a.clone()
    want = f(b)
    cf(a.clone())
    got = cf(a)
    same(got, want)
    same(a, b)


def test_float16_and_complex_run_their_own_kernels():
    def f(x):
        return (x * 2 + 1) * x

    for dt in (numtorch.float16, numtorch.complex64):
        cf = numtorch.compile(f)
        x = numtorch.randn(5).to(dt)
        for _ in range(2):
            same(cf(x), f(x))
        assert not regions(cf)


def test_backend_eager_replays_without_fusion():
    def f(x):
        return (x + 1).cos() * 2

    cf = numtorch.compile(f, backend="eager")
    x = numtorch.randn(5)
    for _ in range(2):
        same(cf(x), f(x))
    assert not regions(cf)
    (entry,) = cf.cache.values()
    assert [str(n.op) for n in entry.graph.nodes] == ["aten.add.Tensor", "aten.cos.default", "aten.mul.Tensor"]


@pytest.mark.parametrize("kind", ["sum", "mean", "amax"])
@pytest.mark.parametrize("shape", [(7,), (6, 33), (2, 3, 50), (0, 4)])
@pytest.mark.parametrize("keepdim", [False, True])
def test_trailing_reduction_is_fused(kind, shape, keepdim):
    def f(x, y):
        z = (x * y + 1).tanh() - x
        return getattr(z, kind)(-1, keepdim=keepdim) if kind != "amax" else z.amax(-1, keepdim)

    cf = numtorch.compile(f)
    x, y = numtorch.randn(*shape, dtype=numtorch.float64), numtorch.randn(shape[-1], dtype=numtorch.float64)
    want = f(x, y)
    for _ in range(2):
        got = cf(x, y)
        assert got.shape == want.shape and got.dtype is want.dtype
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-12)
    (r,) = regions(cf)
    assert r.reduce == (kind, keepdim)


def test_trailing_reduction_keeps_nan_and_falls_back_for_other_layouts():
    def f(x):
        return (x * 2).exp().amax(-1), (x + 1).sigmoid().sum(1)

    cf = numtorch.compile(f)
    x = numtorch.randn(4, 6)
    x[1, 2] = float("nan")
    for _ in range(2):
        for a, b in zip(cf(x), f(x), strict=True):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)
    assert np.isnan(cf(x)[0].numpy()[1])
    xt = numtorch.randn(6, 4).t()  # the same guards but for contiguity: another capture
    for _ in range(2):
        for a, b in zip(cf(xt), f(xt), strict=True):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)


def test_reduced_value_read_elsewhere_is_not_folded():
    def f(x):
        z = (x * 2).sigmoid()
        return z.sum(-1), z

    cf = numtorch.compile(f)
    x = numtorch.randn(3, 4)
    for _ in range(2):
        for a, b in zip(cf(x), f(x), strict=True):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)
    assert all(r.reduce is None for r in regions(cf))


def test_a_failing_fused_kernel_falls_back_to_the_regions_calls():
    def f(x):
        return (x * 2 + 1).exp()

    cf = numtorch.compile(f)
    x = numtorch.randn(5)
    cf(x)
    (r,) = regions(cf)

    def broken(*a):
        raise TypeError("no typing")

    r.kc = r.kp = r.ks = broken
    for _ in range(2):
        same(cf(x), f(x))
    assert r.failed


def test_linear_bias_and_gelu_fuse_into_one_region_after_mm():
    # Note [addmm epilogue]: addmm becomes mm + a region doing bias add + GELU (row operand "r")
    lin = numtorch.nn.Linear(6, 8)

    def f(x, r):
        return numtorch.nn.functional.gelu(lin(x)) + r

    cf = numtorch.compile(f)
    x, r = numtorch.randn(5, 6), numtorch.randn(5, 8)
    with numtorch.no_grad():
        for _ in range(2):
            same(cf(x, r), f(x, r))
    (reg,) = regions(cf)
    assert [n.op.__name__ for n in reg.nodes] == ["add.Tensor", "gelu.default", "add.Tensor"]
    assert "r" in reg.pattern
    ops = [n.op.__name__ for e in cf.cache.values() for n in e.graph.nodes]
    assert "mm.default" in ops and "addmm.default" not in ops


def test_addmm_with_scaled_terms_or_a_non_pointwise_reader_is_kept():
    def f(b, x, w):
        return numtorch.addmm(b, x, w, beta=2).relu(), numtorch.addmm(b, x, w) @ w.t()

    cf = numtorch.compile(f)
    b, x, w = numtorch.randn(3), numtorch.randn(4, 2), numtorch.randn(2, 3)
    for _ in range(2):
        same(cf(b, x, w), f(b, x, w))
    ops = [n.op.__name__ for e in cf.cache.values() for n in e.graph.nodes]
    assert ops.count("addmm.default") == 2


@pytest.mark.parametrize("affine", [True, False])
def test_residual_add_and_layer_norm_fuse_bitwise(affine):
    # Note [Fused layer_norm prologue]: eager's own row helpers, so outputs agree bitwise
    norm = numtorch.nn.LayerNorm(8, elementwise_affine=affine)
    if affine:
        with numtorch.no_grad():
            norm.weight.uniform_(0.5, 1.5)
            norm.bias.uniform_(-1, 1)

    def f(x, h):
        s = x + h * 2
        return norm(s), s

    cf = numtorch.compile(f)
    x, h = numtorch.randn(3, 5, 8), numtorch.randn(8)
    with numtorch.no_grad():
        for _ in range(2):
            same(cf(x, h), f(x, h))
        (reg,) = regions(cf)
        assert reg.reduce[0] == "layer_norm"
        # another layout takes the region, then layer_norm's own kernel
        xt = numtorch.randn(3, 8, 5).transpose(1, 2)
        same(cf(xt, h), f(xt, h))


def test_plan_views_alias_like_eager_views():
    # Note [Plan views]: view / t / transpose steps share storage and version counter with the input
    def f(x):
        v = x.view(6, 2)
        return (v.t() * 2 + 1).transpose(0, 1), v

    cf = numtorch.compile(f)
    x = numtorch.randn(3, 4)
    for _ in range(2):
        same(cf(x), f(x))
    assert any(isinstance(st, fusion.ViewStep) for e in cf.cache.values() for st in e.steps)
    _, v = cf(x)
    v[0, 0] = 5.0
    assert x[0, 0].item() == 5.0 and v._version == x._version
    xt = numtorch.randn(4, 3).t()  # not contiguous: another guard set, eager's error
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        cf(xt)


def _attention_scores(x, m):
    return (x * 0.25).masked_fill(m, float("-inf")).softmax(-1), (x + 1).log_softmax(-1)


def close(a, b) -> None:
    # Note [Fused trailing softmax]: a fused softmax runs eager's own row kernels on bitwise-equal
    # scores (the short-row ones at most 128 wide, the per-row one beyond), so results are eager's bits
    if isinstance(a, (tuple, list)):
        for u, v in zip(a, b, strict=True):
            close(u, v)
        return
    assert a.dtype is b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


def test_scale_mask_and_softmax_fuse_into_one_region():
    # Note [Fused masked_fill], Note [Fused trailing softmax]: the causal mask is a block operand
    # ("b"), the softmax runs a row kernel on the fused row
    cf = numtorch.compile(_attention_scores)
    x, m = numtorch.randn(2, 3, 5, 5), numtorch.ones(1, 1, 5, 5).tril() == 0
    for _ in range(2):
        close(cf(x, m), _attention_scores(x, m))
    r1, r2 = regions(cf)
    assert [n.op.__name__ for n in r1.nodes] == ["mul.Tensor", "masked_fill.Scalar"]
    assert (r1.reduce, r2.reduce, r1.pattern) == (("softmax", False), ("softmax", True), "ab")
    xt = numtorch.randn(2, 3, 5, 5).transpose(2, 3)  # another layout: the region, then softmax's own kernel
    close(cf(xt, m), _attention_scores(xt, m))
    x, m = numtorch.randn(3, 130), numtorch.zeros(130, dtype=numtorch.bool)  # rows past 128: the per-row kernel
    m[5] = True
    for _ in range(2):
        close(cf(x, m), _attention_scores(x, m))
    assert all(r.reduce[0] == "softmax" for r in regions(cf))


def test_mask_made_between_scale_and_masked_fill_is_hoisted():
    # Note [Fusion regions]: the eq of the mask's shape (and the alias of the buffer) run first
    mask = numtorch.ones(4, 4).tril().view(1, 1, 4, 4)

    def f(x):
        return (x * 0.5).masked_fill(mask[:, :, :4, :4] == 0, float("-inf")).softmax(-1)

    cf = numtorch.compile(f)
    x = numtorch.randn(2, 2, 4, 4)
    for _ in range(2):
        close(cf(x), f(x))
    (r,) = regions(cf)
    assert [n.op.__name__ for n in r.nodes] == ["mul.Tensor", "masked_fill.Scalar"] and r.reduce == ("softmax", False)


def test_linear_on_a_3d_input_moves_its_bias_into_the_region():
    # Note [addmm epilogue]: addmm then a view back to 3-D becomes mm, view, bias add + GELU
    lin = numtorch.nn.Linear(6, 8)

    def f(x):
        return numtorch.nn.functional.gelu(lin(x))

    cf = numtorch.compile(f)
    x = numtorch.randn(2, 5, 6)
    with numtorch.no_grad():
        for _ in range(2):
            same(cf(x), f(x))
    (reg,) = regions(cf)
    assert [n.op.__name__ for n in reg.nodes] == ["add.Tensor", "gelu.default"] and "r" in reg.pattern
    ops = [n.op.__name__ for e in cf.cache.values() for n in e.graph.nodes]
    assert "mm.default" in ops and "addmm.default" not in ops


def test_direct_steps_run_products_clones_and_sums_bitwise():
    # Note [Direct steps]: checked once at capture, the eager kernels' own calls at each hit
    from numtorch._compile import direct
    from numtorch.utils._python_dispatch import TorchDispatchMode

    def f(x, w, b):
        h = x @ w
        return (h, numtorch.bmm(b, b.transpose(1, 2)), b.transpose(1, 2).contiguous(), h.sum(0, True), b.sum((1, 2)),
                x.t() @ x)  # fmt: skip

    cf = numtorch.compile(f)
    x, w, b = numtorch.randn(5, 7), numtorch.randn(7, 3), numtorch.randn(2, 4, 6)
    for _ in range(2):
        same(cf(x, w, b), f(x, w, b))
    (e,) = cf.cache.values()
    kinds = sorted(type(st).__name__ for st in e.steps if type(st).__module__ == direct.__name__)
    assert kinds == ["CloneStep", "MatmulStep", "MatmulStep", "MatmulStep", "SumStep", "SumStep"]
    # Note [Folded views]: the transposes only a product reads are not steps of their own
    folded = [v.kind for st in e.steps if isinstance(st, direct.MatmulStep) for v in st.views if v is not None]
    assert sorted(folded) == ["t", "transpose"]
    assert not any(isinstance(st, fusion.ViewStep) and st.kind == "t" for st in e.steps)

    class Count(TorchDispatchMode):
        seen = 0

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            Count.seen += 1
            return func(*args, **(kwargs or {}))

    with Count():  # a dispatch mode sees every call: the steps run their nodes
        got = cf(x, w, b)
    same(got, f(x, w, b))
    assert Count.seen == len(e.graph.nodes)


def test_expand_to_its_own_shape_is_a_plan_view():
    # Note [Plan views]: matmul's broadcast expands its operands to the shape they have
    def f(a, b):
        return a @ b.transpose(-2, -1)

    cf = numtorch.compile(f)
    a, b = numtorch.randn(2, 3, 4, 5), numtorch.randn(2, 3, 6, 5)
    for _ in range(2):
        same(cf(a, b), f(a, b))
    (e,) = cf.cache.values()
    kinds = [v.kind for v in plan_views(e.steps)]
    assert kinds.count("expand") == 2
    r = cf(a, b)
    assert r._base is None and r.shape == (2, 3, 4, 6)


def test_view_of_a_strided_slice_is_a_plan_view_and_an_impossible_one_raises():
    # Note [Plan views]: splitting the heads off a q/k/v slice needs no copy
    def f(x):
        q, k = x.split(4, dim=1)
        return q.view(3, 2, 2) * 2, k

    cf = numtorch.compile(f)
    x = numtorch.randn(3, 8)
    with numtorch.no_grad():
        for _ in range(2):
            same(cf(x), f(x))
        (e,) = cf.cache.values()
        (vs,) = [st for st in e.steps if isinstance(st, fusion.ViewStep) and st.kind == "view"]

        class NoNode:
            def run(self, env):
                raise AssertionError("the view ran its node")

        vs.node = NoNode()
        same(cf(x), f(x))
        g = numtorch.compile(lambda t: t.view(-1))
        t = numtorch.randn(3, 4).t()
        with pytest.raises(RuntimeError, match="view size is not compatible"):
            g(t)


def test_integer_arange_is_made_once_unless_returned():
    # Note [Constant factories]: position ids are kept; a returned arange is made at every call
    from numtorch._compile import direct

    emb = numtorch.nn.Embedding(8, 3)

    def f(x):
        return emb(numtorch.arange(x.shape[0])) * x

    def g(x):
        return numtorch.arange(x.shape[0]) + 0, numtorch.arange(x.shape[0])

    cf, cg = numtorch.compile(f), numtorch.compile(g)
    x = numtorch.randn(5, 1)
    with numtorch.no_grad():
        for _ in range(3):
            same(cf(x), f(x))
        (e,) = cf.cache.values()
        (st,) = [st for st in e.steps if isinstance(st, direct.ConstStep)]
        assert st.value is not None and cf(x) is not None and e.steps[e.steps.index(st)].value is st.value
        a, b = cg(x), cg(x)
        b[1][0] = 7  # the caller owns a returned arange: the next call makes a fresh one
        same(cg(x), g(x))
        assert cg(x)[1] is not cg(x)[1]
        (e,) = cg.cache.values()  # only the arange that the add reads is kept
        assert sum(isinstance(st, direct.ConstStep) for st in e.steps) == 1


def test_linear_steps_take_parameters_directly():
    # addmm runs as AddmmStep; a Parameter operand (bias, weight) takes the direct path, not its node
    from numtorch._compile import direct

    lin = numtorch.nn.Linear(4, 6)
    w = numtorch.nn.Parameter(numtorch.randn(6, 3))

    def f(x):
        y = lin(x)
        return y, y @ w, w.t()

    cf = numtorch.compile(f)
    x = numtorch.randn(5, 4)
    with numtorch.no_grad():
        for _ in range(2):
            same(cf(x), f(x))
        (e,) = cf.cache.values()
        steps = [st for st in e.steps if type(st).__module__ in (direct.__name__, fusion.__name__)]
        assert {"AddmmStep", "MatmulStep", "ViewStep"} <= {type(st).__name__ for st in steps}

        def boom(env):
            raise AssertionError("the node ran")

        for st in steps:
            object.__setattr__(st, "node", type("N", (), {"run": staticmethod(boom)})())
        same(cf(x), f(x))


def test_view_chains_run_as_one_step():
    # Note [View chains]: links that only the next view reads make one tensor, the last link's
    from numtorch._compile import chains
    from numtorch.utils._python_dispatch import TorchDispatchMode

    def f(x):
        v = x.view(6, 2).t().transpose(0, 1).view(3, 4)  # one chain of four links
        w = x.view(2, 6)  # read twice: its own step, and a chain of two after it
        return v, w * 2, w.view(12).view(3, 4)

    cf = numtorch.compile(f)
    x = numtorch.randn(4, 3).t().contiguous()
    for _ in range(2):
        same(cf(x), f(x))
    (e,) = cf.cache.values()
    links = [[v.kind for v in st.links] for st in e.steps if isinstance(st, chains.ChainStep)]
    assert ["view", "t", "transpose", "view"] in links and ["view", "view"] in links
    v, _, u = cf(x)
    assert v._base is x and v._version == x._version
    v[0, 0] = 9.0
    assert x.view(-1)[0].item() == 9.0 and u[0, 0].item() == 9.0 and x._version == v._version

    class Count(TorchDispatchMode):
        seen = 0

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            Count.seen += 1
            return func(*args, **(kwargs or {}))

    with Count():  # a dispatch mode sees every link
        got = cf(x)
    same(got, f(x))
    assert Count.seen == len(e.graph.nodes)
