"""Linear-algebra regressions found by differential fuzzing against PyTorch (issue 10); expected
values are PyTorch 2.13's."""

import math
import re

import numpy as np
import pytest

import numtorch

_u8 = numtorch.uint8


@pytest.mark.parametrize("eq,n,dtype,value", [
    ("i,j->j", 2, numtorch.int64, [60000, 30000]),  # i summed alone (sum() promotes): no wrap
    ("i,i,j->", 3, numtorch.int64, None),
    ("ii->", 1, numtorch.int64, None),
    ("i,j->ij", 2, _u8, None),                   # no sum: stays uint8, as bmm
    ("i,i->", 2, _u8, [(200 * 200 + 100 * 100) % 256]),  # contraction inside bmm wraps
])  # fmt: skip
def test_einsum_integer_result_dtype_follows_pytorch(eq, n, dtype, value):
    a = numtorch.tensor([200, 100], dtype=_u8)
    ops = [a.reshape(2, 1).expand(2, 2).contiguous() if eq == "ii->" else a][:1] * n
    r = numtorch.einsum(eq, *ops)
    assert r.dtype is dtype
    if value is not None:
        assert r.reshape(-1).tolist() == value


@pytest.mark.parametrize("shapes,dts,want", [
    (((), (2, 2)), (numtorch.int32, numtorch.int8), numtorch.int8),      # 0-d ranks lower
    (((0, 2), ()), (numtorch.uint8, numtorch.int64), numtorch.uint8),
    (((2,), (1,)), (numtorch.int32, numtorch.float32), numtorch.float32),
    (((), (2, 2)), (numtorch.float32, numtorch.float16), numtorch.float16),
    (((), ()), (numtorch.uint8, numtorch.int8), numtorch.int16),
])  # fmt: skip
def test_block_diag_result_type_ranks_zero_dim_lower(shapes, dts, want):
    r = numtorch.block_diag(*(numtorch.ones(s, dtype=d) for s, d in zip(shapes, dts)))
    assert r.dtype is want
    assert np.count_nonzero(r.numpy()) == sum(int(np.prod(s)) for s in shapes)


def test_svd_of_nan_raises_linalg_error_with_pytorchs_text():
    a = numtorch.tensor([[float("nan"), 0.0], [0.0, 1.0]])
    msg = "^linalg.svd: The algorithm failed to converge because the input matrix contained non-finite values.$"
    for fn in (numtorch.linalg.svd, numtorch.linalg.svdvals, numtorch.svd, numtorch.linalg.pinv):
        with pytest.raises(numtorch.linalg.LinAlgError, match=msg):
            fn(a)


@pytest.mark.parametrize("a,b,shape", [((0, 3), (0, 2), (3, 2)), ((2, 0), (2, 2), (0, 2)),
                                       ((0, 2, 2), (0, 2, 2), (0, 2, 2))])  # fmt: skip
def test_lstsq_of_empty_matrices(a, b, shape):
    x = numtorch.linalg.lstsq(numtorch.ones(a), numtorch.ones(b)).solution
    assert x.shape == shape and not x.any()


@pytest.mark.parametrize("eq,shapes", [
    ("ab,ab->", [(1, 1), (1, 0)]),
    ("ab,bc->ac", [(2, 1), (0, 3)]),
    ("ab,ab->ab", [(1, 1), (1, 0)]),
    ("a,a->a", [(1,), (0,)]),
    ("ab,b,b->a", [(2, 1), (0,), (1,)]),
])  # fmt: skip
def test_einsum_broadcasts_a_size_one_dim_against_zero(eq, shapes):
    # a size-1 dim broadcasts against 0: the contraction runs over no elements (sum is 0)
    arrs = [np.ones(s) for s in shapes]
    got = numtorch.einsum(eq, *[numtorch.tensor(a) for a in arrs])
    np.testing.assert_array_equal(got.numpy(), np.einsum(eq, *arrs))


def test_tensordot_with_an_empty_contracted_dim():
    got = numtorch.tensordot(numtorch.ones(1, 1), numtorch.ones(1, 0))
    assert got.shape == () and got.item() == 0.0


@pytest.mark.parametrize("where", ["A", "B"])
@pytest.mark.parametrize("bad", [float("nan"), float("-inf")])
def test_lstsq_of_non_finite_input_raises_runtime_error(where, bad):
    a = numtorch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 7.0]], dtype=numtorch.float64)
    b = numtorch.tensor([[1.0], [2.0], [4.0]], dtype=numtorch.float64)
    (a if where == "A" else b)[1, 0] = bad
    with pytest.raises(RuntimeError, match="^torch.linalg.lstsq: Argument 4 has illegal value") as info:
        numtorch.linalg.lstsq(a, b)
    assert info.value.__context__ is None


@pytest.mark.parametrize("dtype,name", [(numtorch.uint8, "unsigned char"), (numtorch.float32, "float")])
def test_linalg_cholesky_out_must_have_the_result_dtype(dtype, name):
    a = numtorch.tensor([[4.0, 1.0], [1.0, 3.0]], dtype=numtorch.float64)
    out = numtorch.zeros(2, 2, dtype=dtype)
    with pytest.raises(RuntimeError, match=f"^Expected out tensor to have dtype double, but got {name} instead$"):
        numtorch.linalg.cholesky(a, out=out)
    np.testing.assert_array_equal(out.numpy(), np.zeros((2, 2)))


@pytest.mark.parametrize("shape", [(0, 0), (2, 0, 0), (3, 0, 2), (2, 3, 0)])
def test_lu_factor_and_lu_of_empty_matrices(shape):
    A = numtorch.zeros(shape, dtype=numtorch.float64)
    LU, piv = numtorch.linalg.lu_factor(A)
    assert LU.shape == shape and piv.shape == shape[:-2] + (min(shape[-2:]),) and piv.dtype == numtorch.int32
    P, L, U = numtorch.linalg.lu(A)
    m, n = shape[-2:]
    assert (P.shape, L.shape, U.shape) == (shape[:-2] + (m, m), shape[:-2] + (m, min(m, n)), shape[:-2] + (min(m, n), n))


def test_lu_solve_of_empty_systems():
    A = numtorch.zeros(2, 0, 0, dtype=numtorch.float64)
    assert numtorch.linalg.lu_solve(*numtorch.linalg.lu_factor(A), A).shape == (2, 0, 0)


@pytest.mark.parametrize("p", [None, 2, -2, 1, -1, math.inf, "fro", "nuc"])
def test_cond_of_an_empty_matrix_is_zero(p):
    r = numtorch.linalg.cond(numtorch.zeros(2, 0, 0, dtype=numtorch.complex64), p)
    assert r.dtype == numtorch.float32 and r.tolist() == [0.0, 0.0]


def test_cond_of_an_empty_matrix_checks_a_string_order_for_squareness_first():
    with pytest.raises(RuntimeError, match="must be batches of square matrices"):
        numtorch.linalg.cond(numtorch.zeros(3, 0), "fro")
    assert numtorch.linalg.cond(numtorch.zeros(3, 0), 1).item() == 0.0


@pytest.mark.parametrize("ord", [1, 2, math.inf])
@pytest.mark.parametrize("shape", [(0, 0), (3, 0), (2, 0, 3)])
def test_matrix_norm_of_an_empty_matrix_with_a_positive_order_is_zero(ord, shape):
    r = numtorch.linalg.matrix_norm(numtorch.zeros(shape), ord)
    assert r.shape == shape[:-2] and not r.any()


@pytest.mark.parametrize("ord", [-1, -2, -math.inf])
def test_matrix_norm_of_an_empty_matrix_with_a_negative_order_refuses(ord):
    with pytest.raises(IndexError, match=r"^amin\(\): Expected reduction dim"):
        numtorch.linalg.matrix_norm(numtorch.zeros(0, 0), ord)


@pytest.mark.parametrize("ord", ["fro", "nuc", 2, math.inf])
def test_norm_with_an_order_and_no_dim_refuses_more_than_two_dimensions(ord):
    with pytest.raises(RuntimeError, match=r"^linalg.norm: If dim is not specified but ord is, the input must "
                                           r"be 1D or 2D. Got 3D.$"):  # fmt: skip
        numtorch.linalg.norm(numtorch.zeros(2, 2, 2), ord)


@pytest.mark.parametrize("dim", [(0, 1, 2), ()])
def test_norm_refuses_a_dim_of_other_than_one_or_two_entries(dim):
    with pytest.raises(RuntimeError, match=r"^linalg.norm: If dim is specified, it must be of length 1 or 2. "
                                           rf"Got \[{', '.join(map(str, dim))}\]$"):  # fmt: skip
        numtorch.linalg.norm(numtorch.zeros(2, 2, 2), 2, dim=dim)


_B = numtorch.bool


@pytest.mark.parametrize("fn,shape", [
    (lambda: numtorch.mm(numtorch.zeros(3, 0, dtype=_B), numtorch.zeros(0, 2, dtype=_B)), (3, 2)),
    (lambda: numtorch.mm(numtorch.zeros(0, 1, dtype=_B), numtorch.zeros(1, 2, dtype=_B)), (0, 2)),
    (lambda: numtorch.mv(numtorch.zeros(1, 0, dtype=_B), numtorch.zeros(0, dtype=_B)), (1,)),
    (lambda: numtorch.bmm(numtorch.zeros(2, 3, 0, dtype=_B), numtorch.zeros(2, 0, 2, dtype=_B)), (2, 3, 2)),
    (lambda: numtorch.matmul(numtorch.zeros(2, 0, 3, dtype=_B), numtorch.zeros(3, 4, dtype=_B)), (2, 0, 4)),
    (lambda: numtorch.einsum("ij,jk->ik", numtorch.zeros(3, 0, dtype=_B), numtorch.zeros(0, 2, dtype=_B)), (3, 2)),
])  # fmt: skip
def test_bool_products_with_nothing_to_multiply_give_zeros(fn, shape):
    r = fn()  # PyTorch returns before the kernel that refuses bool
    assert r.dtype == _B and r.shape == shape and not r.any()


def test_bool_products_with_something_to_multiply_refuse():
    with pytest.raises(NotImplementedError, match="^\"addmm_impl_cpu_\" not implemented for 'Bool'$"):
        numtorch.mm(numtorch.zeros(3, 1, dtype=_B), numtorch.zeros(1, 2, dtype=_B))
    with pytest.raises(NotImplementedError, match="^\"bmm\" not implemented for 'Bool'$"):
        numtorch.bmm(numtorch.zeros(1, 2, 2, dtype=_B), numtorch.zeros(1, 2, 2, dtype=numtorch.float32))
    with pytest.raises(RuntimeError, match="^result type Long can't be cast to the desired output type Bool$"):
        numtorch.addmm(numtorch.zeros(2, dtype=_B), numtorch.zeros(3, 0, dtype=_B), numtorch.zeros(0, 2, dtype=_B))


def test_bmm_of_an_empty_product_takes_batch2s_dtype():
    r = numtorch.bmm(numtorch.zeros(2, 3, 0), numtorch.zeros(2, 0, 2, dtype=numtorch.float64))
    assert r.dtype == numtorch.float64 and r.shape == (2, 3, 2) and not r.any()
    with pytest.raises(RuntimeError, match="^expected scalar type Float but found Double$"):
        numtorch.bmm(numtorch.zeros(2, 3, 1), numtorch.zeros(2, 1, 2, dtype=numtorch.float64))


@pytest.mark.parametrize("eq,s1,s2,d1,d2,want", [
    ("i,i->", (1,), (1,), numtorch.float16, numtorch.float32, numtorch.float32),  # size-1 sums: a.mul(b)
    ("i,j->ij", (2,), (3,), numtorch.int32, numtorch.bool, numtorch.int32),
    ("i,i->", (0,), (0,), numtorch.float64, _B, _B),  # an empty contraction: bmm returns b's dtype
    ("ij,jk->", (2, 3), (3, 2), _B, numtorch.int32, numtorch.int64),  # lone sums first: both int64
])  # fmt: skip
def test_einsum_of_two_operands_follows_pytorchs_mul_or_bmm_route(eq, s1, s2, d1, d2, want):
    assert numtorch.einsum(eq, numtorch.ones(s1, dtype=d1), numtorch.ones(s2, dtype=d2)).dtype == want


@pytest.mark.parametrize("call,exc,msg", [
    (lambda A: numtorch.linalg.eigh(A.long()), NotImplementedError, "\"linalg_eigh_cpu\" not implemented for 'Long'"),
    (lambda A: numtorch.linalg.solve_triangular(A.bool(), A.bool(), upper=True), NotImplementedError,
     "\"triangular_solve_cpu\" not implemented for 'Bool'"),
    (lambda A: numtorch.linalg.solve_triangular(A.half(), A.half(), upper=True), NotImplementedError,
     "\"triangular_solve_cpu\" not implemented for 'Half'"),
    (lambda A: numtorch.linalg.householder_product(A.long(), numtorch.ones(2, dtype=numtorch.long)), NotImplementedError,
     "\"orgqr_cpu\" not implemented for 'Long'"),
    (lambda A: numtorch.linalg.vecdot(A.long(), A.long()), RuntimeError,
     "linalg.vecdot: Expected a floating point or complex tensor as input. Got Long"),
    (lambda A: numtorch.linalg.eigvals(A.half()), NotImplementedError, "\"linalg_eig_out_cpu\" not implemented for 'Half'"),
    (lambda A: numtorch.linalg.svdvals(A.half()), NotImplementedError, "\"linalg_svd_cpu\" not implemented for 'Half'"),
    (lambda A: numtorch.linalg.qr(A.half()), NotImplementedError, "\"geqrf_cpu\" not implemented for 'Half'"),
    (lambda A: numtorch.linalg.solve(A.half(), A.half()), NotImplementedError, "\"lu_cpu\" not implemented for 'Half'"),
    (lambda A: numtorch.linalg.matrix_rank(A.half()), RuntimeError,
     "This function doesn't handle types other than float and double"),
])  # fmt: skip
def test_linalg_dtype_refusals_are_pytorchs(call, exc, msg):
    with pytest.raises(exc, match=f"^{re.escape(msg)}$"):
        call(numtorch.ones(2, 2))


def test_tensordot_keeps_an_integer_dtype_when_it_sums_a_size_one_dim():
    i32 = numtorch.int32
    r = numtorch.tensordot(numtorch.ones(3, 1, dtype=i32), numtorch.ones(1, 2, dtype=i32), dims=2)
    assert r.dtype == i32 and r.item() == 6  # PyTorch: t1.sum(dim, keepdim, dtype=int32), then mm


@pytest.mark.parametrize("eq", ["ij,ij->", "ij,ij->i", "ij,ij->j"])
def test_einsum_gradient_where_each_operand_broadcasts_a_different_label(eq):
    # x holds i at full size and j at 1, y the other way round: x's gradient comes back (1, 2)
    x = numtorch.tensor([[0.5], [1.5], [-2.0]], dtype=numtorch.float64, requires_grad=True)
    y = numtorch.tensor([[1.0, -3.0]], dtype=numtorch.float64, requires_grad=True)
    assert numtorch.autograd.gradcheck(lambda a, b: numtorch.einsum(eq, a, b), (x, y))


@pytest.mark.filterwarnings("ignore::UserWarning")  # torch.cholesky is deprecated (its warning)
def test_deprecated_cholesky_takes_out_and_checks_its_dtype_first():
    o = numtorch.zeros(2, 2, dtype=numtorch.int64)
    with pytest.raises(RuntimeError, match="^cholesky: Expected result to be safely castable from Float dtype, "
                                           "but got result with dtype Long$"):  # fmt: skip
        numtorch.cholesky(numtorch.eye(2), out=o)
    a = numtorch.tensor([[4.0, 2.0], [2.0, 2.0]], dtype=numtorch.float64)
    o = numtorch.empty(0, dtype=numtorch.float32)
    assert numtorch.cholesky(a, True, out=o) is o
    assert o.dtype == numtorch.float32 and o.tolist() == [[2.0, 1.0], [0.0, 1.0]]


@pytest.mark.parametrize("x1, x2, shape", [
    ((1, 2), (0, 2), (1, 0)), ((0, 2), (3, 2), (0, 3)), ((2, 1, 2), (1, 0, 2), (2, 1, 0)),
])  # fmt: skip
def test_cdist_of_empty_inputs_needs_no_kernel(x1, x2, shape):
    # float16 and mixed dtypes are refused only by the kernel, which an empty result skips
    r = numtorch.cdist(numtorch.ones(x1, dtype=numtorch.float16), numtorch.ones(x2, dtype=numtorch.float32))
    assert r.shape == shape and r.dtype is numtorch.float16
    z = numtorch.cdist(numtorch.ones(1, 0, dtype=numtorch.float16), numtorch.ones(2, 0, dtype=numtorch.float16))
    assert z.tolist() == [[0.0, 0.0]]
    with pytest.raises(NotImplementedError, match="^\"cdist\" not implemented for 'Half'$"):
        numtorch.cdist(numtorch.ones(1, 2, dtype=numtorch.float16), numtorch.ones(1, 2, dtype=numtorch.float16))


def test_cdist_checks_shapes_before_dtypes():
    with pytest.raises(RuntimeError, match="^cdist only supports at least 2D tensors, X1 got: 1D$"):
        numtorch.cdist(numtorch.ones(2, dtype=numtorch.int64), numtorch.ones(3, 2, dtype=numtorch.int64))


@pytest.mark.parametrize("a, b, want", [(numtorch.float16, numtorch.int32, numtorch.float16),
                                        (numtorch.uint8, numtorch.float16, numtorch.float16)])  # fmt: skip
def test_dist_checks_the_promoted_difference(a, b, want):
    assert numtorch.dist(numtorch.ones(3, 1, dtype=a), numtorch.zeros(3, 1, dtype=b)).dtype is want
    with pytest.raises(RuntimeError, match="^norm\\(\\): input dtype should be either floating point or complex. Got Long instead.$"):
        numtorch.dist(numtorch.ones(2, dtype=numtorch.int32), numtorch.ones(2, dtype=numtorch.int64))


@pytest.mark.parametrize("dtype", [numtorch.int64, numtorch.bool])
def test_eigh_and_lu_factor_of_empty_integer_matrices_return_before_the_kernel(dtype):
    w, v = numtorch.linalg.eigh(numtorch.ones(0, 2, 2, dtype=dtype))
    assert w.shape == (0, 2) and v.shape == (0, 2, 2) and w.dtype is v.dtype is dtype
    assert numtorch.linalg.eigvalsh(numtorch.ones(0, 0, dtype=dtype)).shape == (0,)
    lu, piv = numtorch.linalg.lu_factor(numtorch.ones(2, 0, 0, dtype=dtype))
    assert lu.shape == (2, 0, 0) and lu.dtype is dtype and piv.shape == (2, 0) and piv.dtype is numtorch.int32
    with pytest.raises(NotImplementedError, match="not implemented for"):
        numtorch.linalg.eigh(numtorch.ones(2, 2, dtype=dtype))


def test_eigh_non_convergence_is_torchs_linalg_error():
    a = numtorch.tensor([[math.nan, 1.0, 2.0], [1.0, 2.0, 3.0], [2.0, 3.0, 4.0]], dtype=numtorch.float64)
    with pytest.raises(numtorch.linalg.LinAlgError, match="^linalg.eigh: The algorithm failed to converge") as e:
        numtorch.linalg.eigh(a)
    assert e.value.__suppress_context__  # NumPy's error is not shown


def test_matrix_exp_of_a_non_finite_matrix_is_nan_and_leaves_the_others():
    a = numtorch.stack([numtorch.tensor([[math.inf, 0.5], [1.0, -3.0]], dtype=numtorch.float64),
                        numtorch.eye(2, dtype=numtorch.float64)])  # fmt: skip
    r = numtorch.linalg.matrix_exp(a)
    assert np.isnan(r[0].numpy()).all() and np.allclose(r[1].numpy(), np.eye(2) * math.e)
    c = numtorch.linalg.matrix_exp(numtorch.tensor([[complex(math.inf, 1.0), 0], [0, 1]], dtype=numtorch.complex128))
    assert np.isnan(c.numpy().real).all() and np.isnan(c.numpy().imag).all()
    # a 1x1 matrix is exp, as PyTorch's trivial case: exp(inf+1j) = inf+infj
    c = numtorch.linalg.matrix_exp(numtorch.tensor([[complex(math.inf, 1.0)]], dtype=numtorch.complex128))
    assert c.item() == complex(math.inf, math.inf)


def test_tensordot_sums_a_dim_contracted_with_size_one_in_its_own_dtype():
    a = numtorch.tensor([[1, 6]], dtype=numtorch.uint8)
    b = numtorch.tensor([[6, 8]], dtype=numtorch.uint8).expand(2, 2)
    r = numtorch.tensordot(a, b)
    assert r.dtype is numtorch.uint8 and r.item() == 108 and numtorch.tensordot(b, a).item() == 108


def test_linalg_cholesky_checks_out_dtype_before_factorizing():
    # fuzz seed 30: a non-positive-definite input with an integer out= raised LinAlgError first
    a = numtorch.tensor([[3.096, 0.988], [-3.158, -2.58]])
    out = numtorch.zeros(2, 2, dtype=numtorch.int16)
    with pytest.raises(RuntimeError, match="^Expected out tensor to have dtype float, but got short int instead$"):
        numtorch.linalg.cholesky(a, out=out)
    assert out.tolist() == [[0, 0], [0, 0]]
    numtorch.linalg.cholesky(numtorch.eye(2), out=(good := numtorch.empty(2, 2)))
    assert good.tolist() == [[1.0, 0.0], [0.0, 1.0]]


def test_baddbmm_empty_product_mixed_dtypes():
    # ATen checks only self against batch1 before an empty product; the result has batch2's dtype
    i64, i8 = numtorch.int64, numtorch.int8
    r = numtorch.baddbmm(numtorch.zeros(2, 1, 0, dtype=i64), numtorch.zeros(2, 1, 0, dtype=i64), numtorch.zeros(2, 0, 0, dtype=i8))
    assert r.dtype is i8 and r.shape == (2, 1, 0)
    # no contraction: result.copy_(self).mul_(beta), wrapping into batch2's dtype
    r = numtorch.baddbmm(numtorch.full((1,), 300, dtype=i64), numtorch.zeros(2, 1, 0, dtype=i64), numtorch.zeros(2, 0, 3, dtype=i8), beta=3)
    assert r.dtype is i8 and r.tolist() == [[[-124] * 3]] * 2
    with pytest.raises(RuntimeError, match="expected scalar type Long but found Char"):
        numtorch.baddbmm(numtorch.zeros(2, 1, 3, dtype=i64), numtorch.zeros(2, 1, 2, dtype=i64), numtorch.zeros(2, 2, 3, dtype=i8))


@pytest.mark.parametrize("dt,beta,msg", [
    (numtorch.bool, 1, "result type Long can't be cast to the desired output type Bool"),
    (numtorch.int64, 1.5, "result type Float can't be cast to the desired output type Long"),
    (numtorch.float64, 1j, "result type ComplexDouble can't be cast to the desired output type Double"),
])  # fmt: skip
def test_baddbmm_no_contraction_beta_cast(dt, beta, msg):
    with pytest.raises(RuntimeError, match=msg):
        numtorch.baddbmm(numtorch.zeros(2, 1, 3, dtype=dt), numtorch.zeros(2, 1, 0, dtype=dt), numtorch.zeros(2, 0, 3, dtype=dt), beta=beta)
    r = numtorch.baddbmm(numtorch.ones(2, 1, 3, dtype=dt), numtorch.zeros(2, 1, 0, dtype=dt), numtorch.zeros(2, 0, 3, dtype=dt), beta=0)
    assert r.dtype is dt and not r.any()


def test_addmm_bool_expands_self_first():
    with pytest.raises(RuntimeError, match=r"The expanded size of the tensor \(5\) must match the existing size \(2\)"):
        numtorch.addmm(numtorch.zeros(2, dtype=numtorch.bool), numtorch.zeros(3, 4, dtype=numtorch.bool), numtorch.zeros(4, 5, dtype=numtorch.bool))


@pytest.mark.parametrize("a,b,dims,kernel", [
    ((2, 3), (3, 2), 1, "addmm_impl_cpu_"), ((2, 1), (1, 2), 1, "addmm_impl_cpu_"),
    ((2, 3), (4,), 0, "addmm_impl_cpu_"), ((2,), (2,), 1, "dot"), ((0,), (0,), 1, "dot"), ((3,), (1,), 1, "dot"),
])  # fmt: skip
def test_tensordot_bool_refused(a, b, dims, kernel):
    with pytest.raises(NotImplementedError, match=f"\"{kernel}\" not implemented for 'Bool'"):
        numtorch.tensordot(numtorch.zeros(*a, dtype=numtorch.bool), numtorch.zeros(*b, dtype=numtorch.bool), dims)


def test_tensordot_bool_empty_mm_computes():
    assert numtorch.tensordot(numtorch.zeros(2, 0, dtype=numtorch.bool), numtorch.zeros(0, 3, dtype=numtorch.bool), 1).shape == (2, 3)


def test_matrix_exp_scales_each_matrix_of_a_batch():
    # seed 38: one batch-wide scaling set by the largest norm squared a small matrix's
    # rounding error 2**s times over (exp(8.2 + 1.8j) came back with modulus 1)
    a = np.array([[[8.216 + 1.83j]], [[50.0 + 0.5j]], [[1e-3 + 0j]]])
    r = numtorch.linalg.matrix_exp(numtorch.tensor(a)).numpy()
    np.testing.assert_allclose(r, np.exp(a), rtol=1e-12)
    x = numtorch.tensor(np.array([[[0.3, 1.0], [0.0, -0.2]], [[40.0, 0.0], [1.0, 30.0]]]), requires_grad=True)
    assert numtorch.autograd.gradcheck(numtorch.linalg.matrix_exp, (x,))


@pytest.mark.parametrize("rows, order", [
    ([[4, complex(0, math.inf)], [complex(0, -math.inf), 4]], 2),  # complex inf: a NaN pivot
    ([[math.nan, 0], [0, 1]], 1),
    ([[4, 1], [1, math.nan]], 2),
    ([[math.inf, math.inf], [math.inf, 4]], 2),  # LAPACK's inf/inf, where OpenBLAS scales by 0
])  # fmt: skip
def test_cholesky_fails_at_a_nan_pivot_as_lapack(rows, order):
    A = numtorch.tensor(rows, dtype=numtorch.complex128)
    msg = ("linalg.cholesky: The factorization could not be completed because the input is not positive-definite "
           f"(the leading minor of order {order} is not positive-definite).")  # fmt: skip
    with pytest.raises(numtorch.linalg.LinAlgError, match=f"^{re.escape(msg)}$"):
        numtorch.linalg.cholesky(A)
    assert numtorch.linalg.cholesky_ex(A).info.item() == order
    assert numtorch.linalg.cholesky(numtorch.tensor([[math.inf, 0], [0, 1]])).tolist() == [[math.inf, 0], [0, 1]]  # inf pivot: fine


def test_empty_mixed_dtype_batched_matmul_gives_batch2_dtype():
    # fuzz seeds 42/43: Note [Empty bmm] held for bmm but not for matmul or bmm(out=): NumPy's
    # casting error reached the user, a float32 @ float64 product came back float32
    r = numtorch.matmul(numtorch.zeros(2, 3, 2, dtype=_u8), numtorch.zeros(2, 2, 0))
    assert r.dtype is numtorch.float32 and r.shape == (2, 3, 0)
    r = numtorch.matmul(numtorch.zeros(2, 3, 0), numtorch.zeros(1, 0, 3, dtype=numtorch.float64))
    assert r.dtype is numtorch.float64 and r.tolist() == [[[0.0] * 3] * 3] * 2
    a, b = numtorch.zeros(2, 3, 2, dtype=numtorch.int64), numtorch.zeros(2, 2, 0)
    out = numtorch.zeros(3, 0, dtype=numtorch.int64)
    with pytest.raises(RuntimeError, match="^Expected out tensor to have dtype float, but got long int instead$"):
        numtorch.bmm(a, b, out=out)
    assert out.shape == (3, 0)
    out = numtorch.zeros(0)
    assert numtorch.bmm(numtorch.zeros(2, 3, 0, dtype=numtorch.int64), numtorch.zeros(2, 0, 3), out=out) is out
    assert out.tolist() == [[[0.0] * 3] * 3] * 2


def test_products_check_out_dtype_before_the_kernel_dtype_refusal():
    # fuzz seed 47: addmm(bool ..., out=float16) raised the kernel's NotImplementedError first
    b = numtorch.zeros(3, 2, dtype=numtorch.bool)
    msg = "^Expected out tensor to have dtype bool, but got c10::Half instead$"
    for call in (lambda o: numtorch.addmm(b, b[:, :1], b[:1], out=o), lambda o: numtorch.mm(b[:, :1], b[:1], out=o),
                 lambda o: numtorch.bmm(b[None, :, :1], b[None, :1], out=o)):  # fmt: skip
        out = numtorch.zeros(0, dtype=numtorch.float16)
        with pytest.raises(RuntimeError, match=msg):
            call(out)
        assert out.shape == (0,)


def test_addbmm_integer_and_bool_edge_cases_follow_torch():
    u16 = numtorch.uint16
    with pytest.raises(NotImplementedError, match="^\"addmm_impl_cpu_\" not implemented for 'UInt16'$"):
        numtorch.addbmm(numtorch.zeros(3, 2, dtype=u16), numtorch.zeros(2, 3, 1, dtype=u16), numtorch.zeros(2, 1, 2, dtype=u16))
    assert numtorch.addbmm(numtorch.ones(3, 2, dtype=u16), numtorch.zeros(2, 3, 0, dtype=u16),
                           numtorch.zeros(2, 0, 2, dtype=u16)).tolist() == [[1, 1]] * 3  # fmt: skip
    i = numtorch.ones(2, 2, dtype=numtorch.int64)
    with pytest.raises(RuntimeError, match="^result type Float can't be cast to the desired output type Long$"):
        numtorch.addbmm(i, i[None, :, :0], i[None, :0], beta=0.5)  # no contraction: result.mul_(0.5)
    assert numtorch.addbmm(i, i[None], i[None], beta=0.5).tolist() == [[2, 2], [2, 2]]
    t = numtorch.ones(0, 2, dtype=numtorch.bool)  # an empty result: no kernel
    assert numtorch.addbmm(t, numtorch.ones(2, 0, 1, dtype=numtorch.bool), numtorch.ones(2, 1, 2, dtype=numtorch.bool)).shape == (0, 2)
    with pytest.raises(RuntimeError, match="^result type Long can't be cast to the desired output type Bool$"):
        numtorch.addbmm(t, numtorch.ones(0, 0, 1, dtype=numtorch.bool), numtorch.ones(0, 1, 2, dtype=numtorch.bool))


def test_cdist_dispatches_on_x1_then_compares_x2():
    # fuzz seed 52: a float16 x2 was refused as the kernel's dtype before the mismatch
    with pytest.raises(RuntimeError, match="^expected scalar type Double but found Half$"):
        numtorch.cdist(numtorch.ones(1, 2, dtype=numtorch.float64), numtorch.ones(2, 2, dtype=numtorch.float16))
    with pytest.raises(NotImplementedError, match="^\"cdist\" not implemented for 'Half'$"):
        numtorch.cdist(numtorch.ones(1, 2, dtype=numtorch.float16), numtorch.ones(2, 2, dtype=numtorch.float64))
