"""Linear algebra: matmul shapes and broadcasting, error messages, einsum, derivatives, LinAlgError."""

from __future__ import annotations

import math

import numpy as np
import pytest

import numtorch
from numtorch.autograd import gradcheck, gradgradcheck
from numtorch.testing import assert_close


def _r(*shape, dtype=np.float64, seed=0):
    return numtorch.from_numpy(np.random.default_rng(seed).standard_normal(shape).astype(dtype))


# ---- matmul -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "sa,sb,out",
    [((3,), (3,), ()), ((2, 3), (3,), (2,)), ((3,), (3, 4), (4,)), ((2, 3), (3, 4), (2, 4)),
     ((5, 2, 3), (3, 4), (5, 2, 4)), ((3,), (5, 3, 4), (5, 4)), ((5, 2, 3), (3,), (5, 2)),
     ((2, 1, 2, 3), (3, 3, 2), (2, 3, 2, 2)), ((1, 2, 3), (4, 3, 2), (4, 2, 2)), ((2, 0), (0, 3), (2, 3)),
     ((0, 2, 3), (3, 4), (0, 2, 4))],
)  # fmt: skip
def test_matmul_shapes_and_values_follow_numpy_broadcasting(sa, sb, out):
    a, b = _r(*sa), _r(*sb, seed=1)
    r = numtorch.matmul(a, b)
    assert r.shape == out
    np.testing.assert_allclose(r.numpy(), np.matmul(a.numpy(), b.numpy()), rtol=1e-12, atol=1e-12)
    assert_close(a @ b, r)
    assert_close(a.matmul(b), r)


def test_rmatmul_is_reflected():
    a, b = _r(2, 3), _r(3, 4)
    assert_close(b.__rmatmul__(a), a @ b)


@pytest.mark.parametrize(
    "sa,sb,msg",
    [((2, 3), (4, 5), "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"),
     ((), (3,), "both arguments to matmul need to be at least 1D, but they are 0D and 1D"),
     ((3,), (), "both arguments to matmul need to be at least 1D, but they are 1D and 0D"),
     ((3,), (4,), "inconsistent tensor size, expected tensor [3] and src [4] to have the same number of elements, "
                  "but got 3 and 4 elements respectively"),
     ((2, 3), (4,), "size mismatch, got input (2), mat (2x3), vec (4)"),
     ((3,), (4, 5), "mat1 and mat2 shapes cannot be multiplied (1x3 and 4x5)"),
     ((2, 2, 3), (4,), "size mismatch, got input (4), mat (4x3), vec (4)"),
     ((2, 2, 3), (4, 5), "mat1 and mat2 shapes cannot be multiplied (4x3 and 4x5)"),
     ((3,), (2, 4, 5), "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [2, 4]."),
     ((2, 3), (2, 4, 5), "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [2, 4]."),
     ((2, 2, 3), (3, 3, 5), "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"),
     ((4,), (2, 1, 5), "size mismatch, got input (10), mat (10x1), vec (4)")],
)  # fmt: skip
def test_matmul_errors_match_pytorch(sa, sb, msg):
    with pytest.raises(RuntimeError) as e:
        numtorch.matmul(numtorch.zeros(sa), numtorch.zeros(sb))
    assert str(e.value) == msg


@pytest.mark.parametrize(
    "call,msg",
    [(lambda a, b: numtorch.matmul(a(2, 3), b(3, 2)), "expected m1 and m2 to have the same dtype, but got: float != double"),
     (lambda a, b: numtorch.mm(a(2, 3), b(3, 2)), "expected m1 and m2 to have the same dtype, but got: float != double"),
     (lambda a, b: numtorch.matmul(a(3), b(3)), "dot : expected both vectors to have same dtype, but found Float and Double"),
     (lambda a, b: numtorch.dot(a(2), b(2)), "dot : expected both vectors to have same dtype, but found Float and Double"),
     (lambda a, b: numtorch.mv(b(2, 3), a(3)), "addmv input tensors must have the same dtype, but got Float, Double, and Float"),
     (lambda a, b: numtorch.bmm(a(2, 2, 3), b(2, 3, 2)), "expected scalar type Float but found Double"),
     (lambda a, b: numtorch.matmul(a(2, 2, 3), b(2, 3, 2)), "expected scalar type Float but found Double")],
)  # fmt: skip
def test_mixed_dtypes_raise_pytorchs_errors(call, msg):
    def f32(*s):
        return numtorch.zeros(*s)

    def f64(*s):
        return numtorch.zeros(*s, dtype=numtorch.float64)

    with pytest.raises(RuntimeError) as e:
        call(f32, f64)
    assert str(e.value) == msg


@pytest.mark.parametrize(
    "call,exc,msg",
    [(lambda: numtorch.bmm(numtorch.zeros(2, 3), numtorch.zeros(3, 2)), RuntimeError, "batch1 must be a 3D tensor"),
     (lambda: numtorch.bmm(numtorch.zeros(1, 2, 3), numtorch.zeros(3, 2)), RuntimeError, "batch2 must be a 3D tensor"),
     (lambda: numtorch.mm(numtorch.zeros(3), numtorch.zeros(3, 2)), RuntimeError, "self must be a matrix"),
     (lambda: numtorch.dot(numtorch.zeros(2, 2), numtorch.zeros(2, 2)), RuntimeError,
      "1D tensors expected, but got 2D and 2D tensors"),
     (lambda: numtorch.mv(numtorch.zeros(3), numtorch.zeros(3)), RuntimeError, "vector + matrix @ vector expected, got 1, 1, 1"),
     (lambda: numtorch.addmm(numtorch.zeros(3), numtorch.zeros(2, 3), numtorch.zeros(3, 2)), RuntimeError,
      "The expanded size of the tensor (2) must match the existing size (3) at non-singleton dimension 1.  "
      "Target sizes: [2, 2].  Tensor sizes: [3]"),
     (lambda: numtorch.addmm(numtorch.zeros(2, 2, dtype=numtorch.float64), numtorch.zeros(2, 3), numtorch.zeros(3, 2)),
      RuntimeError, "self and mat2 must have the same dtype, but got Double and Float"),
     (lambda: numtorch.addbmm(numtorch.zeros(2, 2), numtorch.zeros(4, 2, 3), numtorch.zeros(5, 3, 2)), RuntimeError,
      "batch1 and batch2 must have same number of batches, got 4 and 5"),
     (lambda: numtorch.baddbmm(numtorch.zeros(4, 2, 2, dtype=numtorch.float64), numtorch.zeros(4, 2, 3),
                               numtorch.zeros(4, 3, 2)), RuntimeError,
      "Input dtypes must be the same, got: input double, batch1: float, batch2: float"),
     (lambda: numtorch.outer(numtorch.zeros(2, 2), numtorch.zeros(3)), RuntimeError,
      "outer: Expected 1-D argument self, but got 2-D"),
     (lambda: numtorch.mm(numtorch.ones(2, 2, dtype=numtorch.bool), numtorch.ones(2, 2, dtype=numtorch.bool)),
      NotImplementedError, "\"addmm_impl_cpu_\" not implemented for 'Bool'"),
     (lambda: numtorch.trace(numtorch.zeros(3)), RuntimeError, "trace: expected a matrix, but got tensor with dim 1"),
     (lambda: numtorch.linalg.cross(numtorch.zeros(3, 2), numtorch.zeros(3, 2)), RuntimeError,
      "linalg.cross: inputs dimension -1 must have length 3. Got 2 and 2"),
     (lambda: numtorch.cross(numtorch.zeros(2, 4), numtorch.zeros(2, 4)), RuntimeError, "no dimension of size 3 in input"),
     (lambda: numtorch.tensordot(numtorch.zeros(2, 3), numtorch.zeros(4, 4), dims=1), RuntimeError,
      "contracted dimensions need to match, but first has size 3 in dim -1 and second has size 4 in dim 0"),
     (lambda: numtorch.tensordot(numtorch.zeros(2, 3), numtorch.zeros(3, 4), dims=-1), RuntimeError,
      "tensordot expects dims >= 0, but got dims=-1"),
     (lambda: numtorch.matmul(numtorch.zeros(2, 3), numtorch.zeros(3, 2), out=numtorch.zeros(2, 2, dtype=numtorch.float64)),
      RuntimeError, "Expected out tensor to have dtype float, but got double instead")],
)  # fmt: skip
def test_product_errors_match_pytorch(call, exc, msg):
    with pytest.raises(exc) as e:
        call()
    assert str(e.value) == msg


def test_integer_and_half_products():
    a = numtorch.full((2, 3), 20, dtype=numtorch.uint8)
    assert numtorch.mm(a, a.mT).tolist() == [[176, 176], [176, 176]]  # wraps like C++
    h = numtorch.ones(2, 3, dtype=numtorch.float16)
    r = numtorch.matmul(h, h.mT)
    assert r.dtype is numtorch.float16 and r.tolist() == [[3.0, 3.0], [3.0, 3.0]]
    assert (
        numtorch.dot(
            numtorch.ones(3, dtype=numtorch.int32), numtorch.ones(3, dtype=numtorch.int32)
        ).item()
        == 3
    )


def test_addmm_beta_zero_ignores_nan_and_integer_alpha_truncates():
    nan = numtorch.full((2, 2), float("nan"))
    r = numtorch.addmm(nan, numtorch.ones(2, 3), numtorch.ones(3, 2), beta=0)
    assert r.tolist() == [[3.0, 3.0], [3.0, 3.0]]
    i = numtorch.ones(2, 2, dtype=numtorch.int64)
    assert numtorch.addmm(i, i, i, beta=2, alpha=3).tolist() == [[8, 8], [8, 8]]


def test_out_receives_the_product_in_place():
    out = numtorch.empty(2, 4)
    ptr = out.data_ptr()
    assert numtorch.matmul(_r(2, 3, dtype=np.float32), _r(3, 4, dtype=np.float32), out=out) is out
    assert out.data_ptr() == ptr
    with pytest.warns(UserWarning, match="An output with one or more elements was resized"):
        numtorch.mm(numtorch.ones(2, 3), numtorch.ones(3, 2), out=numtorch.zeros(5))


def test_out_with_requires_grad_is_refused():
    with pytest.raises(
        RuntimeError,
        match=r"matmul\(\): functions with out=\.\.\. arguments don't support automatic differentiation",
    ):
        numtorch.matmul(
            numtorch.ones(3, requires_grad=True), numtorch.ones(3), out=numtorch.zeros(())
        )


# ---- derivatives beyond the OpInfo samples --------------------------------------------------------------
@pytest.mark.parametrize("sa,sb", [((3,), (3,)), ((3,), (3, 2)), ((2, 3), (3,)), ((3,), (2, 3, 2)), ((2, 2, 3), (3,)),
                                   ((1, 2, 3), (2, 3, 2)), ((2, 1, 2, 3), (3, 3, 2)), ((2, 2, 3), (3, 2))])  # fmt: skip
def test_matmul_gradients_reduce_broadcast_batch_dims(sa, sb):
    a, b = _r(*sa).requires_grad_(), _r(*sb, seed=1).requires_grad_()
    assert gradcheck(numtorch.matmul, (a, b))
    assert gradgradcheck(numtorch.matmul, (a, b))


@pytest.mark.parametrize(
    "eq,shapes",
    [("ij,jk->ik", [(2, 3), (3, 2)]), ("bij,bjk->bik", [(2, 2, 3), (2, 3, 2)]), ("ii->i", [(3, 3)]), ("ii", [(3, 3)]),
     ("ij->", [(2, 3)]), ("i,j->ij", [(2,), (3,)]), ("...ij,...jk", [(2, 1, 2, 3), (3, 3, 2)]),
     ("ij,ij->i", [(1, 3), (2, 3)]), ("ij,jk,kl->il", [(2, 3), (3, 2), (2, 2)]), ("ii,i->i", [(2, 2), (2,)]),
     ("bn,anm,bm->ba", [(2, 3), (2, 3, 2), (2, 2)]), ("ijk->kj", [(2, 3, 2)])],
)  # fmt: skip
def test_einsum_gradients(eq, shapes):
    ops = tuple(_r(*s, seed=i).requires_grad_() for i, s in enumerate(shapes))

    def f(*ts):
        return numtorch.einsum(eq, *ts)

    assert gradcheck(f, ops)
    assert gradgradcheck(f, ops)


def test_singular_inputs_raise_linalg_error():
    with pytest.raises(numtorch.linalg.LinAlgError) as e:
        numtorch.linalg.inv(numtorch.zeros(2, 2))
    assert isinstance(e.value, RuntimeError)
    assert str(e.value) == ("linalg.inv: The diagonal element 1 is zero, the inversion could not be completed because "
                            "the input matrix is singular.")  # fmt: skip
    batch = numtorch.stack([numtorch.eye(3), numtorch.tensor([[1.0, 0, 0], [0, 0, 0], [0, 0, 1]])])
    with pytest.raises(
        numtorch.linalg.LinAlgError,
        match=r"^linalg.inv: \(Batch element 1\): The diagonal element 2 is zero",
    ):
        numtorch.linalg.inv(batch)
    with pytest.raises(
        numtorch.linalg.LinAlgError,
        match=r"^torch.linalg.solve: \(Batch element 1\): The solver failed",
    ):
        numtorch.linalg.solve(
            numtorch.stack([numtorch.eye(2), numtorch.zeros(2, 2)]), numtorch.ones(2, 2)
        )
    assert numtorch.linalg.det(numtorch.zeros(2, 2)).item() == 0.0


@pytest.mark.parametrize(
    "call,exc,msg",
    [(lambda: numtorch.linalg.inv(numtorch.zeros(2, 3)), RuntimeError,
      "linalg.inv: A must be batches of square matrices, but they are 2 by 3 matrices"),
     (lambda: numtorch.linalg.inv(numtorch.zeros(3)), RuntimeError, "linalg.inv: The input tensor A must have at least 2 dimensions."),
     (lambda: numtorch.linalg.inv(numtorch.eye(2, dtype=numtorch.int64)), RuntimeError,
      "linalg.inv: Expected a floating point or complex tensor as input. Got Long"),
     (lambda: numtorch.linalg.inv(numtorch.eye(2, dtype=numtorch.float16)), RuntimeError,
      "linalg.inv: Low precision dtypes not supported. Got Half"),
     (lambda: numtorch.linalg.det(numtorch.zeros(2, 3)), RuntimeError,
      "linalg.det: A must be batches of square matrices, but they are 2 by 3 matrices"),
     (lambda: numtorch.linalg.solve(numtorch.eye(2), numtorch.ones(3)), RuntimeError,
      "linalg.solve: Incompatible shapes of A and B for the equation AX = B (2x2 and 3x1)"),
     (lambda: numtorch.linalg.solve(numtorch.eye(2), numtorch.ones(2, dtype=numtorch.float64)), RuntimeError,
      "linalg.solve: Expected A and B to have the same dtype, but found A of type Float and B of type Double instead"),
     (lambda: numtorch.linalg.vector_norm(numtorch.ones(2, dtype=numtorch.int64)), RuntimeError,
      "linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long"),
     (lambda: numtorch.linalg.matrix_norm(numtorch.ones(2)), RuntimeError,
      "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."),
     (lambda: numtorch.linalg.matrix_norm(numtorch.ones(2, 2), ord=3), RuntimeError, "linalg.matrix_norm: Order 3 not supported."),
     (lambda: numtorch.linalg.norm(numtorch.ones(2, 2, 2), ord=2), RuntimeError,
      "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got 3D.")],
)  # fmt: skip
def test_linalg_errors_match_pytorch(call, exc, msg):
    with pytest.raises(exc) as e:
        call()
    assert str(e.value) == msg


# ---- einsum parsing ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "eq,shapes,msg",
    [("ij,jk->ik", [(2, 3), (4, 4)], "einsum(): subscript j has size 4 for operand 1 which does not broadcast with "
                                     "previously seen size 3"),
     ("ij,jk->ik", [(2, 3)], "einsum(): fewer operands were provided than specified in the equation"),
     ("ij", [(2, 3), (3, 4)], "einsum(): more operands were provided than specified in the equation"),
     ("ijk,jk->ik", [(2, 3), (3, 4)], "einsum(): the number of subscripts in the equation (3) does not match the number "
                                      "of dimensions (2) for operand 0 and no ellipsis was given"),
     ("i1", [(2, 3)], "einsum(): invalid subscript given at index 1 in the equation string, subscripts must be in [a-zA-Z]"),
     ("ij->ii", [(2, 3)], "einsum(): output subscript i appears more than once in the output"),
     ("ij->k", [(2, 3)], "einsum(): output subscript k does not appear in the equation for any input operand"),
     ("...i...->i", [(2, 3)], "einsum(): found '.' for operand 0 for which an ellipsis was already found"),
     ("i.j", [(2, 3)], "einsum(): found '.' for operand 0 that is not part of any ellipsis"),
     ("ij->i->j", [(2, 3)], "einsum(): invalid subscript given at index 5 in the equation string, subscripts must be in [a-zA-Z]"),
     ("ii->i", [(3, 4)], "einsum(): subscript i is repeated for operand 0 but the sizes don't match, 4 != 3"),
     ("...ij,...jk->...ik", [(2, 2, 3), (5, 3, 4)], "einsum(): dimension 0 covered by ellipsis in operand 1has size 5 which "
                                                     "does not broadcast with previously seen ellipsis with size 2 for the "
                                                     "respective dimension")],
)  # fmt: skip
def test_einsum_errors_match_pytorch(eq, shapes, msg):
    with pytest.raises(RuntimeError) as e:
        numtorch.einsum(eq, *[numtorch.zeros(s) for s in shapes])
    assert str(e.value) == msg


def test_einsum_call_forms_and_implicit_output():
    a, b = _r(2, 3), _r(3, 4)
    ref = a.numpy() @ b.numpy()
    for r in (numtorch.einsum("ij,jk->ik", a, b), numtorch.einsum("ij,jk", [a, b]), numtorch.einsum("i j , j k -> i k", a, b),
              numtorch.einsum(a, [0, 1], b, [1, 2], [0, 2]), numtorch.einsum(a, [0, 1], b, [1, 2])):  # fmt: skip
        np.testing.assert_allclose(r.numpy(), ref, rtol=1e-12)
    assert numtorch.einsum("ba", _r(2, 3)).shape == (3, 2)  # implicit output sorts labels
    assert numtorch.einsum("ij->...", _r(2, 3)).shape == ()
    assert (
        numtorch.einsum("ij->i", numtorch.ones(2, 3, dtype=numtorch.bool)).dtype is numtorch.int64
    )
    with pytest.raises(TypeError, match="expected Tensor as element 0 in argument 1, but got int"):
        numtorch.einsum("i", [1, 2])
    with pytest.raises(RuntimeError, match="expected scalar type Float but found Double"):
        numtorch.einsum("i,i", numtorch.ones(2), numtorch.ones(2, dtype=numtorch.float64))


def test_einsum_and_tensordot_dispatch_as_aten_ops():
    from numtorch.utils._python_dispatch import TorchDispatchMode

    seen = []

    class Log(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))

    with Log():
        numtorch.einsum("ij,jk", numtorch.ones(2, 3), numtorch.ones(3, 2))
        numtorch.mm(numtorch.ones(2, 3), numtorch.ones(3, 2))
        numtorch.linalg.inv(numtorch.eye(2))
    assert {"aten.einsum.default", "aten.mm.default", "aten.linalg_inv.default"} <= set(seen)


def test_cross_without_dim_warns_and_uses_the_first_dim_of_size_3():
    a, b = _r(3, 2), _r(3, 2, seed=1)
    with pytest.warns(
        UserWarning, match="Using torch.cross without specifying the dim arg is deprecated"
    ):
        r = numtorch.cross(a, b)
    np.testing.assert_allclose(r.numpy(), np.cross(a.numpy(), b.numpy(), axis=0))


def test_det_backward_matches_adjugate_formula():
    a = numtorch.tensor([[2.0, 1.0], [1.0, 3.0]], dtype=numtorch.float64, requires_grad=True)
    numtorch.linalg.det(a).backward()
    np.testing.assert_allclose(a.grad.numpy(), [[3.0, -1.0], [-1.0, 2.0]], rtol=1e-12)


# ---- matrix_power ---------------------------------------------------------------------------------
def test_matrix_power_values_errors_and_identity_for_zero():
    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    for n in (0, 1, 2, 5, -1, -3):
        np.testing.assert_allclose(numtorch.linalg.matrix_power(numtorch.tensor(a), n).numpy(),
                                   np.linalg.matrix_power(a, n), rtol=1e-10)  # fmt: skip
    assert numtorch.matrix_power(numtorch.tensor([[1, 1], [0, 1]]), 3).tolist() == [[1, 3], [0, 1]]
    with pytest.raises(RuntimeError, match="^linalg.matrix_power: A must be batches of square matrices, but they are 2 by 3 matrices$"):
        numtorch.linalg.matrix_power(numtorch.ones(2, 3), 2)
    with pytest.raises(RuntimeError, match="^linalg.matrix_power: The input tensor A must have at least 2 dimensions.$"):
        numtorch.linalg.matrix_power(numtorch.ones(3), 2)
    with pytest.raises(RuntimeError, match="^linalg.inv: Expected a floating point or complex tensor as input. Got Long$"):
        numtorch.linalg.matrix_power(numtorch.ones(2, 2, dtype=numtorch.int64), -1)
    x = numtorch.tensor(a, requires_grad=True)
    r = numtorch.linalg.matrix_power(x, 0)
    r.sum().backward()  # n == 0: a copy of the identity that still carries (zero) gradient to A
    assert r.requires_grad and x.grad.tolist() == [[0.0, 0.0], [0.0, 0.0]]


# ---- slogdet / logdet ----------------------------------------------------------------------------
def test_slogdet_logdet_values_named_tuples_out_and_errors():
    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    r = numtorch.linalg.slogdet(numtorch.tensor(a))
    assert type(r).__name__ == "linalg_slogdet" and r._fields == ("sign", "logabsdet")
    sign, logabs = np.linalg.slogdet(a)
    assert r.sign.item() == sign and abs(r.logabsdet.item() - logabs) < 1e-12
    assert type(numtorch.slogdet(numtorch.tensor(a))).__name__ == "slogdet"
    assert math.isnan(numtorch.logdet(numtorch.tensor(a)).item())  # negative determinant
    assert numtorch.logdet(numtorch.tensor([[0.0, 0.0], [0.0, 1.0]])).item() == -math.inf
    assert abs(numtorch.tensor([[2.0, 0.0], [0.0, 3.0]]).logdet().item() - math.log(6)) < 1e-6
    outs = (numtorch.empty(0, dtype=numtorch.float64), numtorch.empty(0, dtype=numtorch.float64))
    got = numtorch.linalg.slogdet(numtorch.tensor(a), out=outs)
    assert got.sign is outs[0] and outs[1].item() == r.logabsdet.item()
    with pytest.raises(RuntimeError, match="^linalg.slogdet: Low precision dtypes not supported. Got Half$"):
        numtorch.linalg.slogdet(numtorch.ones(2, 2, dtype=numtorch.float16))
    with pytest.raises(RuntimeError, match="^logdet: A must be batches of square matrices, but they are 2 by 3 matrices$"):
        numtorch.logdet(numtorch.ones(2, 3))
    with pytest.raises(RuntimeError, match="^logdet: Expected a floating point or complex tensor as input. Got Long$"):
        numtorch.logdet(numtorch.ones(2, 2, dtype=numtorch.int64))


# ---- inner / multi_dot --------------------------------------------------------------------------
def test_multi_dot_matches_the_matmul_chain_and_raises_pytorchs_errors():
    rng = np.random.default_rng(0)
    v, m, a = rng.standard_normal(3), rng.standard_normal((3, 3)), rng.standard_normal((2, 3))
    t = numtorch.tensor
    np.testing.assert_allclose(numtorch.linalg.multi_dot([t(v), t(m), t(m), t(v)]).numpy(), v @ m @ m @ v)
    np.testing.assert_allclose(numtorch.linalg.multi_dot([t(a), t(m), t(a).T]).numpy(), a @ m @ a.T)
    assert numtorch.linalg.multi_dot([t(v), t(m)]).shape == (3,) and numtorch.linalg.multi_dot([t(m), t(v)]).shape == (3,)
    x = t(m, requires_grad=True)
    assert gradcheck(lambda w: numtorch.linalg.multi_dot([w, w, t(v)]), (x,))
    errors = [([t(m)], "expected at least 2 tensors but got 1"),
              ([t(np.ones((2, 2, 2))), t(m)], "the first tensor must be 1D or 2D but got 3D"),
              ([t(m), t(v), t(m)], "tensor 1 must be 2D but got 1D"),
              ([t(m).float(), t(m)], "all tensors must have be the same dtype but tensor 0 is float and tensor 1 double"),
              ([t(m), t(np.ones((2, 2)))], r"tensors 0 and 1 with shapes \[3, 3\] and \[2, 2\] cannot be multiplied")]  # fmt: skip
    for tensors, msg in errors:
        with pytest.raises(RuntimeError, match=f"^multi_dot\\(\\): {msg}$"):
            numtorch.linalg.multi_dot(tensors)
    with pytest.raises(RuntimeError, match=r"^inner\(\) the last dimension must match on both input tensors but got shapes \[2\] and \[3\]$"):
        numtorch.inner(numtorch.ones(2), numtorch.ones(3))


@pytest.mark.parametrize(
    "make",
    [
        lambda x, y, w, b: numtorch.nn.functional.linear(x, w, b),  # addmm, weight.t() layout
        lambda x, y, w, b: x.mm(y),
        lambda x, y, w, b: x.reshape(2, 3, 4).matmul(y),  # a stack against one matrix
        lambda x, y, w, b: x.reshape(2, 3, 4).matmul(y.expand(2, 4, 3) * 1),  # equal batches
    ],
)
def test_product_gradients_without_observers_are_the_formulas(make):
    # Note [Direct product gradients]: the same values as the formulas' ops, which a mode still sees
    from numtorch.utils._python_dispatch import TorchDispatchMode

    seen = []

    class Log(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(str(func))
            return func(*args, **(kwargs or {}))

    grads = []
    for mode in (None, Log):
        x, y = _r(6, 4).requires_grad_(), _r(4, 3, seed=1).requires_grad_()
        w, b = _r(3, 4, seed=2).requires_grad_(), _r(3, seed=3).requires_grad_()
        out = make(x, y, w, b)
        g = _r(*out.shape, seed=4)
        if mode is None:
            out.backward(g)
        else:
            with mode():
                out.backward(g)
        grads.append([t.grad for t in (x, y, w, b)])
    for direct, formula in zip(*grads):
        assert (direct is None) == (formula is None)
        if direct is not None:
            assert direct.stride() == formula.stride()
            np.testing.assert_array_equal(direct.numpy(), formula.numpy())
    assert {"aten.mm.default", "aten.bmm.default", "aten.matmul.default"} & set(seen)


@pytest.mark.parametrize("create_graph", [False, True])
def test_matmul_of_a_stack_with_an_empty_inner_dim_has_zero_gradients(create_graph):
    # (2, 3, 0) @ (0, 4): the folded rows of the stack are counted, not reshaped with -1 (which
    # is ambiguous when the last dim is 0); both the direct products and the formula's ops
    a = numtorch.zeros(2, 3, 0, requires_grad=True)
    b = numtorch.zeros(0, 4, requires_grad=True)
    ga, gb = numtorch.autograd.grad((a @ b).sum(), (a, b), create_graph=create_graph)
    assert ga.shape == (2, 3, 0) and gb.shape == (0, 4)


def test_mm_into_an_expanded_out_raises_the_internal_overlap_error():
    # fuzz seed 26: mm wrote into an out whose elements share memory; PyTorch's mm_out (and
    # matmul of two matrices, its fold) raises, its bmm_out and mv_out write
    a, b = numtorch.randn(3, 4), numtorch.randn(4, 2)
    for fn in (numtorch.mm, numtorch.matmul):
        out = numtorch.zeros(1, 2).expand(3, 2)
        with pytest.raises(RuntimeError, match="^unsupported operation: more than one element of the written-to tensor"):
            fn(a, b, out=out)
        assert out.tolist() == [[0.0, 0.0]] * 3
        dense = numtorch.zeros(3, 2)
        fn(a, b, out=dense)
        np.testing.assert_allclose(dense.numpy(), a.numpy() @ b.numpy(), rtol=1e-6)
    resized = numtorch.zeros(1).expand(5)  # a resized out owns fresh memory
    with pytest.warns(UserWarning):
        numtorch.mm(a, b, out=resized)
    assert resized.shape == (3, 2)
    bo = numtorch.zeros(1, 3, 5).expand(2, 3, 5)
    numtorch.bmm(numtorch.ones(2, 3, 4), numtorch.ones(2, 4, 5), out=bo)  # written, as PyTorch
    assert bo.tolist() == [[[4.0] * 5] * 3] * 2
