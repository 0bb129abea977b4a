"""The aten calls a TorchDispatchMode records, numtorch vs torch, for the same script."""

import pytest

torch = pytest.importorskip("torch")

import numtorch  # noqa: E402

# name -> script over a module T (torch or numtorch) and F (its nn.functional)
CASES = {
    "add": "x + y", "add_scalar": "x + 2", "add_alpha": "T.add(x, y, alpha=2)",
    "add_alpha_float": "T.add(x, y, alpha=1.0)", "mul": "x * 2", "sub": "x - y",
    "div_floor": "T.div(x, y, rounding_mode='floor')", "sum": "x.sum()", "sum_dim": "x.sum(1)",
    "sum_keep": "x.sum(1, keepdim=True)", "sum_tuple": "x.sum((0, 1))", "sum_dtype": "x.sum(dtype=T.float64)",
    "mean_dim": "x.mean(0)", "mean_keep": "x.mean(1, True)", "amax": "x.amax(1)", "logsumexp": "x.logsumexp(1)",
    "relu": "T.relu(x)", "exp": "x.exp()", "view": "x.view(12)", "reshape": "x.reshape(2, 6)",
    "t": "x.t()", "transpose": "x.transpose(0, 1)", "unsqueeze": "x.unsqueeze(0)", "expand": "v.expand(3, 4)",
    "cat": "T.cat([x, y], 1)", "clone": "x.clone()", "softmax": "T.softmax(x, 1)",
    "log_softmax": "F.log_softmax(x, 1)", "cross_entropy": "F.cross_entropy(x, tgt)",
    "linear": "F.linear(x, m.t(), T.ones(5))", "layer_norm": "F.layer_norm(x, (4,))",
    "zeros": "T.zeros(3)", "ones": "T.ones(2, 3)", "empty": "T.empty(2)", "full": "T.full((2,), 3.0)",
    "arange": "T.arange(5)", "rand": "T.rand(3)", "randn": "T.randn(3)", "zeros_like": "T.zeros_like(x)",
    "ones_like": "T.ones_like(x)", "full_like": "T.full_like(x, 2.0)", "new_zeros": "x.new_zeros(2)",
    "new_full": "x.new_full((2,), 1.0)", "eye": "T.eye(3)", "linspace": "T.linspace(0, 1, 5)",
    "to_dtype": "x.to(T.float64)", "add_": "x.clone().add_(1)", "mul_": "x.clone().mul_(y)",
    "zero_": "x.clone().zero_()", "fill_": "x.clone().fill_(2)", "copy_": "x.clone().copy_(y)",
    "conv2d": "F.conv2d(T.ones(1, 1, 4, 4), T.ones(2, 1, 3, 3))", "max_pool2d": "F.max_pool2d(T.ones(1, 1, 4, 4), 2)",
    "addmm": "T.addmm(T.ones(3, 5), x, m)", "baddbmm": "T.baddbmm(T.ones(2, 3, 5), T.ones(2, 3, 4), T.ones(2, 4, 5), beta=2)",
    "leaky_relu": "F.leaky_relu(x, 0.01)", "hardtanh": "F.hardtanh(x)", "clamp": "x.clamp(min=0)",
    "where": "T.where(x > 0, x, y)", "gather": "x.gather(1, tgt[:, None])",
    "bw_note": "a = T.ones(10, requires_grad=True); (a * 2).sum().backward()",
    "bw_mul": "a = x.clone().requires_grad_(); b = y.clone().requires_grad_(); (a * b).sum().backward()",
    "bw_add": "a = x.clone().requires_grad_(); b = y.clone().requires_grad_(); (a + b).sum().backward()",
    "bw_view": "a = x.clone().requires_grad_(); a.view(12).sum().backward()",
    "bw_reshape": "a = x.clone().requires_grad_(); a.reshape(2, 6).sum().backward()",
    "bw_relu_sumdim": "a = x.clone().requires_grad_(); a.sum(1).sum().backward()",
    # Note [conj_physical of a real tensor is itself]: nothing reaches the mode for a real tensor
    "conj_physical_real": "T.conj_physical(x); x.conj_physical()",
    "conj_physical_complex": "T.conj_physical(T.complex(x, y))",
    "conj_physical_of_conj": "T.complex(x, y).conj().conj_physical()",
    "conj_physical_out": "T.conj_physical(x, out=T.empty(3, 4))",
    "conj_physical_": "x.clone().conj_physical_(); T.complex(x, y).conj_physical_()",
    "bw_conj_physical": "a = T.complex(x, y).requires_grad_(); T.conj_physical(a).abs().sum().backward()",
    "stack": "T.stack([x, y]); T.stack([x, y], 1, out=T.empty(3, 2, 4))",
    "bw_stack": "a = x.clone().requires_grad_(); T.stack([a, y.double()], -1).sum().backward()",
}  # fmt: skip
# forward + backward of the ops whose derivative formulas must make PyTorch's aten calls
# (saved outputs are detached when saved and when unpacked, fused *_backward ops)
_BW = {
    "mean": "a.mean()", "mean_dim": "a.mean(1).sum()", "mean_keep": "a.mean(1, True).sum()",
    "mean_tuple": "a.mean((0, 1))", "relu": "a.relu().sum()", "exp": "a.exp().sum()",
    "sigmoid": "a.sigmoid().sum()", "tanh": "a.tanh().sum()", "softmax": "a.softmax(1).sum()",
    "log_softmax": "F.log_softmax(a, 1).sum()", "cross_entropy": "F.cross_entropy(a, tgt)",
    "layer_norm": "F.layer_norm(a, (4,)).sum()", "expand": "a.expand(2, 3, 4).sum()",
    "sum_mul": "(a * y).sum(1).sum()", "linear": "F.linear(a, m.t(), T.ones(5)).sum()",
    "max_pool2d": "F.max_pool2d(a[None, None], 2).sum()", "mm": "T.mm(a, m).sum()",
    "addmm_scaled": "T.addmm(T.ones(3, 5), a, m, alpha=2, beta=3).sum()",
}  # fmt: skip
CASES.update({f"bw_{k}": f"a = x.clone().requires_grad_(); ({v}).backward()" for k, v in _BW.items()})
# fused nn ops: PyTorch's one aten call each, and its fused backward op
# (one operand requiring grad each: with both, numtorch accumulates grid's gradient before input's)
_GS = "a = T.ones(1, 2, 3, 3, requires_grad=True); g = T.zeros(1, 2, 2, 2); "
_GG = "a = T.ones(1, 2, 3, 3); g = T.zeros(1, 2, 2, 2, requires_grad=True); "
CASES.update({
    "grid_sampler_2d": "T.grid_sampler(T.ones(1, 2, 3, 3), T.zeros(1, 2, 2, 2), 0, 1, False)",
    "bw_grid_sampler_2d": _GS + "T.grid_sampler(a, g, 0, 1, False).sum().backward()",
    "bw_grid_sampler_2d_grid": _GG + "T.grid_sampler(a, g, 0, 2, False).sum().backward()",
    "bw_grid_sampler_2d_bicubic": _GG + "F.grid_sample(a, g, mode='bicubic', align_corners=True).sum().backward()",
    "bw_grid_sampler_2d_nearest": _GS + "F.grid_sample(a, g, mode='nearest', align_corners=True).sum().backward()",
    "affine_grid": "F.affine_grid(T.ones(2, 2, 3), (2, 1, 3, 4), align_corners=False)",
    # weight and reduction given: PyTorch's C++ callers pass an undefined Tensor? that a mode sees as a
    # trailing None, where numtorch, as a Python caller, drops it with the other trailing defaults
    "bw_multi_margin_loss": "a = x.clone().requires_grad_(); "
                            "F.multi_margin_loss(a, tgt, p=2, weight=T.ones(4), reduction='sum').backward()",
    "bw_multilabel_margin_loss": "a = x.clone().requires_grad_(); "
                                 "F.multilabel_margin_loss(a, T.tensor([[0, 2, -1, 1]] * 3)).backward()",
    "embedding_bag_forward_only": "F.embedding_bag(T.tensor([0, 3, 1, 1]), T.ones(5, 3), T.tensor([0, 2, 4]), "
                                  "mode='sum', per_sample_weights=T.ones(4), include_last_offset=True)",
})  # fmt: skip


def _record(T, F, Mode, script):
    def norm(v):
        if isinstance(v, T.Tensor):
            return ("T", tuple(v.shape), str(v.dtype).split(".")[-1])
        if isinstance(v, (list, tuple)):
            return [norm(e) for e in v]
        if isinstance(v, T.dtype):
            return ("dtype", str(v).split(".")[-1])
        if isinstance(v, T.device):
            return ("device", str(v))
        if isinstance(v, (bool, int, float, str)) or v is None:
            return (type(v).__name__, v)
        return repr(v).replace("numtorch", "torch")

    log = []

    class Rec(Mode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            log.append((str(func), norm(args), {k: norm(w) for k, w in (kwargs or {}).items()}))
            return func(*args, **(kwargs or {}))

    env = {"T": T, "F": F, "x": T.ones(3, 4), "y": T.ones(3, 4) * 2, "m": T.ones(4, 5), "v": T.ones(4),
           "tgt": T.tensor([1, 0, 3])}  # fmt: skip
    with Rec():
        exec(script, env)
    return log


@pytest.mark.parametrize("name", sorted(CASES))
def test_dispatch_mode_sees_torch_calls(name):
    from numtorch.utils._python_dispatch import TorchDispatchMode as NMode
    from torch.utils._python_dispatch import TorchDispatchMode as TMode

    want = _record(torch, torch.nn.functional, TMode, CASES[name])
    got = _record(numtorch, numtorch.nn.functional, NMode, CASES[name])
    # torch passes layout=torch.strided in a few internal calls; numtorch has no layout object
    for _, _, kw in want:
        kw.pop("layout", None)
    assert got == want


# Note [Python key placement]: CompositeImplicitAutograd ops decompose above the Python key
# (a mode sees their pieces); the others reach it whole.
KINDS = ["add.Tensor", "mul.Tensor", "sum.default", "sum.dim_IntList", "mean.dim", "view.default",
         "reshape.default", "linear.default", "softmax.int", "log_softmax.int", "cross_entropy_loss.default",
         "layer_norm.default", "flatten.using_ints", "relu.default", "exp.default", "mm.default",
         "addmm.default", "expand.default", "t.default", "transpose.int", "clone.default", "zeros.default",
         "ones_like.default", "_softmax.default", "native_layer_norm.default", "cat.default", "conv2d.default",
         "convolution.default", "dropout.default", "where.self", "unsqueeze.default", "matmul.default",
         "outer.default", "ger.default", "sort.default", "sort.stable", "lift_fresh.default",
         "_local_scalar_dense.default", "squeeze_.dim", "conj_physical.default", "conj_physical.out",
         "_conj_physical.default", "_conj_physical.out", "conj_physical_.default", "stack.default", "stack.out"]  # fmt: skip


@pytest.mark.parametrize("name", KINDS)
def test_composite_implicit_kind_matches_torch(name):
    packet, overload = name.split(".")
    op = getattr(getattr(numtorch.ops.aten, packet), overload)
    torch_implicit = torch._C._dispatch_has_kernel_for_dispatch_key(
        f"aten::{packet}" + ("" if overload == "default" else f".{overload}"), "CompositeImplicitAutograd"
    )
    assert ("composite" in op.impls) == torch_implicit


# matmul decomposes as PyTorch's _matmul_impl: dot / mv / mm (+ unsqueeze, squeeze_) / folding
# to mm or mv / expand + bmm, and the branch depends on requires_grad (should_fold)
MATMUL_SHAPES = [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)), ((5, 2, 3), (3,)),
                 ((3,), (5, 3, 4)), ((5, 2, 3), (3, 4)), ((2, 3), (5, 3, 4)), ((5, 2, 3), (5, 3, 4)),
                 ((6, 5, 2, 3), (5, 3, 4)), ((5, 2, 3), (1, 3, 4)), ((1, 2, 3), (5, 3, 4)),
                 ((5, 2, 3), (1, 1, 3, 4)), ((1, 5, 2, 3), (3, 4)), ((2, 5, 2, 3), (1, 3, 4)),
                 ((5, 2, 3), (2, 1, 3, 4)), ((3,), (1, 3, 4)), ((1, 2, 3), (3,)), ((1, 2, 3), (1, 3, 4)),
                 ((0, 2, 3), (3, 4)), ((2, 3, 0), (0, 4))]  # fmt: skip


def _matmul_log(T, Mode, sa, sb, rg):
    import math

    log = []

    class Rec(Mode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            log.append(str(func))
            return func(*args, **(kwargs or {}))

    a = T.arange(float(math.prod(sa))).reshape(sa).requires_grad_(rg)
    b = T.arange(float(math.prod(sb))).reshape(sb).requires_grad_(rg)
    with Rec():
        z = T.matmul(a, b)
        n = len(log)
        if rg:
            z.sum().backward()
    grads = [t.grad.tolist() for t in (a, b)] if rg else []
    return log[:n], log[n:], z.tolist(), grads


@pytest.mark.parametrize("rg", [False, True])
@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES)
def test_matmul_pieces(sa, sb, rg):
    from numtorch.utils._python_dispatch import TorchDispatchMode as NMode
    from torch.utils._python_dispatch import TorchDispatchMode as TMode

    tf, tb, tz, tg = _matmul_log(torch, TMode, sa, sb, rg)
    nf, nb, nz, ng = _matmul_log(numtorch, NMode, sa, sb, rg)
    assert nf == tf and nz == tz and ng == tg
    # the backward makes the same calls; the engine may run independent branches in another order
    assert sorted(nb) == sorted(tb)


@pytest.mark.parametrize("script", ["T.outer(T.ones(3), T.arange(2.0))", "T.ger(T.ones(3), T.ones(2))",
                                    "T.tensor([1.0, 2.0])", "T.ones(3).sum().item()", "T.sort(T.ones(3))",
                                    "T.ones(3).sort(0, True)", "T.ones(3).sort(stable=True)",
                                    "T.ones(3).sort(stable=False)"])  # fmt: skip
def test_op_pieces(script):
    from numtorch.utils._python_dispatch import TorchDispatchMode as NMode
    from torch.utils._python_dispatch import TorchDispatchMode as TMode

    want = _record(torch, torch.nn.functional, TMode, script)
    got = _record(numtorch, numtorch.nn.functional, NMode, script)
    for _, _, kw in want:
        kw.pop("layout", None)
    assert got == want


# Note [matmul fast path]: plain no-grad tensors take one kernel; the result must be the one the
# pieces give (under a mode, which forces them), and with requires_grad the pieces' grad_fn is
# PyTorch's
@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES)
def test_matmul_direct_matches_pieces(sa, sb):
    import math

    from numtorch.utils._python_dispatch import TorchDispatchMode as NMode

    class Pass(NMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    a = numtorch.arange(float(math.prod(sa))).reshape(sa)
    b = numtorch.arange(float(math.prod(sb))).reshape(sb) - 2.0
    direct = numtorch.matmul(a, b)
    with Pass():
        pieces = numtorch.matmul(a, b)
    assert direct.shape == pieces.shape and direct.dtype == pieces.dtype
    assert direct.tolist() == pieces.tolist()
    assert direct.tolist() == torch.matmul(torch.tensor(a.tolist()).reshape(sa),
                                           torch.tensor(b.tolist()).reshape(sb)).tolist()  # fmt: skip


@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES)
def test_matmul_grad_fn_matches_torch_under_a_mode(sa, sb):
    # where the pieces run (a mode is active) grad_fn is PyTorch's; without one, numtorch records
    # a single MatmulBackward0 node (Note [matmul fast path]) with the same gradients
    from numtorch.utils._python_dispatch import TorchDispatchMode as NMode
    from torch.utils._python_dispatch import TorchDispatchMode as TMode

    names = []
    for T, Mode in ((torch, TMode), (numtorch, NMode)):
        class Pass(Mode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                return func(*args, **(kwargs or {}))

        a = T.ones(sa, requires_grad=True)
        with Pass():
            names.append(type(T.matmul(a, T.ones(sb)).grad_fn).__name__)
    assert names[1] == names[0]


@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES)
def test_matmul_plain_grads_match_torch(sa, sb):
    import math

    import numpy as np

    def run(T):
        a = T.tensor(np.arange(math.prod(sa), dtype=np.float64).reshape(sa) / 7, requires_grad=True)
        b = T.tensor(np.cos(np.arange(math.prod(sb), dtype=np.float64)).reshape(sb), requires_grad=True)
        z = T.matmul(a, b)
        (z * z).sum().backward()
        return z.detach().numpy(), a.grad.numpy(), b.grad.numpy()

    for got, want in zip(run(numtorch), run(torch), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    a = numtorch.rand(*sa, dtype=numtorch.float64, requires_grad=True)
    b = numtorch.rand(*sb, dtype=numtorch.float64, requires_grad=True)
    assert numtorch.autograd.gradcheck(numtorch.matmul, (a, b))
    assert numtorch.autograd.gradgradcheck(numtorch.matmul, (a, b))


def test_matmul_direct_errors_match_torch():
    for T in (torch, numtorch):
        with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"):
            T.matmul(T.ones(2, 3), T.ones(4, 5))
        with pytest.raises(RuntimeError, match="both arguments to matmul need to be at least 1D"):
            T.matmul(T.ones(()), T.ones(3))


@pytest.mark.parametrize("da,db", [("float32", "float32"), ("int64", "float32"), ("bool", "bool"),
                                   ("int32", "int64"), ("float64", "complex64")])  # fmt: skip
def test_outer_direct_matches_pieces_and_torch(da, db):
    from numtorch.utils._python_dispatch import TorchDispatchMode as NMode

    class Pass(NMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    a, b = numtorch.arange(4).to(getattr(numtorch, da)), (numtorch.arange(3) - 1).to(getattr(numtorch, db))
    direct = numtorch.outer(a, b)
    with Pass():
        pieces = numtorch.outer(a, b)
    want = torch.outer(torch.arange(4).to(getattr(torch, da)), (torch.arange(3) - 1).to(getattr(torch, db)))
    assert str(direct.dtype) == str(pieces.dtype) == str(want.dtype)
    assert direct.tolist() == pieces.tolist() == want.tolist()


# Note [Wrapper subclass metadata]: the strides and storage offset given (contiguous when none)
@pytest.mark.parametrize("size,kw", [((2, 3), {}), ((2, 3), {"strides": (1, 2), "storage_offset": 4}),
                                     ((2, 0), {"strides": (1, 2), "storage_offset": 4}), ((), {}),
                                     ((4, 1, 3), {"strides": (3, 3, 1)}), ((2, 3), {"device": "meta"}),
                                     ((2, 3), {"strides": (1, 2), "storage_offset": 1, "device": "meta"})])  # fmt: skip
def test_wrapper_subclass_metadata_as_torch(size, kw):
    def make(T):
        class W(T.Tensor):
            @classmethod
            def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
                return NotImplemented

        w = T.Tensor._make_wrapper_subclass(W, size, **kw)
        return tuple(w.shape), w.stride(), w.storage_offset(), w.is_contiguous(), w.device.type

    assert make(numtorch) == make(torch)
