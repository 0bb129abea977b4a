"""Linear algebra: matmul/mm/bmm/mv/dot/vdot, addmm/addmv/addbmm/baddbmm, outer/ger, einsum,
tensordot, kron, cross, trace, and numtorch.linalg (inv, det, solve, cross, norms).

# Note [Matrix products go to BLAS]
# Every product ends in ``np.matmul(a, b, out=preallocated)`` (_product), so float32/float64/
# complex reach BLAS through NumPy and integers use NumPy's loops; half is multiplied in float32
# and rounded once (PyTorch accumulates half in float too). Shape and dtype checks run first, in
# PyTorch's order and with its messages, so no NumPy error reaches the user. einsum contracts two
# operands as one batched matmul (_pair) and hands three or more to np.einsum(optimize=...).
"""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ... import _factory_utils as F
from ..._dispatch import dispatch
from ..._tensor import Tensor, _make, _view, _wrap_dim
from ._contract import (
    _NO_KERNEL,
    _CXX,
    _bmm_checks,
    _dot_checks,
    _matmul_checks,
    _mm_checks,
    _mv_checks,
    _not_impl,
    _result_shape,
    broadcast_error,
    einsum_backward,
    einsum_compute,
    parse_sublists,
    product,
)  # fmt: skip
from .._pointwise import warn_resize
from .._registry import OPS, defop, public
from ..._state import STATE
from ...kernels import lazy
from .. import _quiet
from . import _fast_contract as _fc
from . import _fast_products as _fp
from . import _fast_small as _fs
from . import _np_lapack as _lapack
from ._matmul import _call, _matmul, _real_plain, matmul_backward, matmul_cpu, unobserved


class LinAlgError(RuntimeError):
    """Raised by numtorch.linalg functions for singular or otherwise unsolvable inputs.

    >>> issubclass(numtorch.linalg.LinAlgError, RuntimeError)
    True
    """


LinAlgError.__module__ = "numtorch.linalg"


def np_svd(a, **kw):
    """np.linalg.svd with PyTorch's error: LAPACK's non-convergence (NaN/inf input) is a
    numtorch.linalg.LinAlgError with PyTorch's text, not NumPy's."""
    try:
        return _lapack.svd(a, **kw)  # Note [np.linalg without its wrappers]
    except np.linalg.LinAlgError:
        if not np.all(np.isfinite(a)):
            raise LinAlgError("linalg.svd: The algorithm failed to converge because the input matrix "
                              "contained non-finite values.") from None  # fmt: skip
        raise LinAlgError("linalg.svd: The algorithm failed to converge because the input matrix is "
                          "ill-conditioned or has too many repeated singular values.") from None  # fmt: skip


def _mH(x: Tensor) -> Tensor:
    return x.mH if x._dtype.category == D._COMPLEX else x.mT


def _cj(x: Tensor) -> Tensor:
    return x.conj() if x._dtype.category == D._COMPLEX else x


# ---- the product ------------------------------------------------------------------------------------
def _scalar(v, dt: D.dtype):
    """alpha/beta as the computation type holds them (PyTorch's checked Scalar conversion)."""
    if (v.__class__ is int or v.__class__ is float) and (v == 1 or v == 0):
        return v  # what every dtype holds exactly: _addprod only compares it with 0 and 1
    return F.scalar_to(v, D.float32 if dt is D.float16 else dt)


def _addprod(self_arr, prod: np.ndarray, beta, alpha, dt: D.dtype, k: int = 1) -> np.ndarray:
    b, a = _scalar(beta, dt), _scalar(alpha, dt)
    tok = _quiet.quiet(_quiet.IGNORE)  # Note [Quiet floating-point flags]
    try:
        if not k and b != 0 and dt.category == D._COMPLEX:  # ATen's empty-contraction shortcut is
            return np.multiply(self_arr, b, out=prod)  # self * beta: (inf+3j) * (1+0j) is inf+nanj
        if a != 1:
            prod = np.multiply(prod, a, out=prod, casting="unsafe")
        if b != 0:  # beta == 0 ignores self, NaNs included
            prod = np.add(prod, self_arr if b == 1 else self_arr * b, out=prod, casting="unsafe")
    finally:
        _quiet.restore(tok)
    return prod


# ---- registration helpers ---------------------------------------------------------------------------
def _out_check(out: Tensor, res_dt: D.dtype, rule: str) -> None:
    if rule == "same" and out._dtype is not res_dt:
        raise RuntimeError(
            f"Expected out tensor to have dtype {_CXX[res_dt.name]}, but got {_CXX[out._dtype.name]} instead"
        )
    if rule == "cast" and not D.can_cast(res_dt, out._dtype):
        raise RuntimeError(
            f"result type {F.cname(res_dt)} can't be cast to the desired output type {F.cname(out._dtype)}"
        )


def prepare_out(out: Tensor, shape: tuple, res_dt: D.dtype, rule: str = "same") -> None:
    """PyTorch's out= rules: dtype check, then resize_output (warning when ``out`` had elements)."""
    _out_check(out, res_dt, rule)
    if out._data.shape != shape:
        if out._data.size:
            warn_resize(out._data.shape, shape, 7)
        out._data = F.alloc(shape, out._dtype.np)


def write_result(out: Tensor, arr: np.ndarray, res_dt: D.dtype, rule: str = "same") -> Tensor:
    prepare_out(out, arr.shape, res_dt, rule)
    return F.write_out(out, arr)


def _product_out(check):
    """A product's ``.out`` kernel: np.matmul writes straight into ``out`` (no temporary)."""

    def impl(self, other, out):
        if check is _mv_check:  # PyTorch names out (addmv's self) in the dtype message
            check(self, other, out)
        d1, d2 = self._data.ndim, other._data.ndim
        dot = check is _dot_checks or check is _matmul_checks and d1 == d2 == 1  # matmul.out folds to dot_out
        if dot and out._dtype is not self._dtype:  # dot_out: before dot's own checks
            raise RuntimeError(f"result dtype {F.cname(out._dtype)} does not match input dtype {F.cname(self._dtype)}")
        if check is _matmul_checks and d1 >= 2 and d2 == 1 and out._dtype is not self._dtype:
            # matmul.out folds (..., n, k) @ (k,) to mv_out, whose addmv names out first
            _mv_checks((int(np.prod(self._data.shape[:-1])), self._data.shape[-1]), other._data.shape,
                       self._dtype, other._dtype, self_dt=out._dtype)  # fmt: skip
        try:
            check(self, other)
        except NotImplementedError:  # the meta function checks out's dtype before the kernel's refusal
            _out_check(out, other._dtype, "same")
            raise
        x, dt = self._data, self._dtype
        if dt is not other._dtype:  # Note [Empty bmm]: only an empty bmm gets here, in batch2's dtype
            x, dt = x.astype(other._data.dtype), other._dtype
        shape = _result_shape(self._data.shape, other._data.shape)
        if (check is _mm_check or check is _matmul_checks and d1 == d2 == 2) and out._data.shape == shape:
            F.check_no_internal_overlap(out._data)  # mm_out's internal-overlap error (bmm_out, mv_out: none)
        prepare_out(out, shape, dt)
        product(x, other._data, out=out._data)
        out._vc[0] += 1
        return out

    return impl


def _rule_check(rule: str, out: Tensor, dt: D.dtype) -> None:
    """The out= dtype texts of the ops that write through another op (``dt``: the result's)."""
    if out._dtype is dt:
        return
    if rule == "dot":  # vdot_out, as dot_out
        raise RuntimeError(f"result dtype {F.cname(out._dtype)} does not match input dtype {F.cname(dt)}")
    if rule == "addmm_":  # addbmm_out ends in out.addmm_(...)
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {F.cname(out._dtype)} and {F.cname(dt)}")
    if rule == "tensordot":  # at::tensordot_out: no promotion into out
        raise RuntimeError(f"tensordot: Expected the output tensor to have dtype {F.cname(dt)}, but got an "
                           f"output tensor with dtype {F.cname(out._dtype)}")  # fmt: skip


def _op(schema: str, impl, backward=None, rule="same", composite=False, out_impl=None):
    """Declare ``schema`` and its ``.out`` overload (impl's result written into ``out`` unless
    ``out_impl`` computes into it directly)."""
    name, rest = schema.split("(", 1)
    base, _, ov = name.partition(".")
    args, ret = rest.rsplit(") -> ", 1)
    star = ", *" if "*" not in args else ""
    out_ov = f"{base}.{ov + '_' if ov else ''}out"
    out_schema = f"{out_ov}({args}{star}, Tensor(a!) out) -> Tensor(a!)"

    def copy_out(*v):
        if rule == "dot":  # before the op's own checks
            _rule_check(rule, v[-1], v[0]._dtype)
        try:
            res = impl(*v[:-1])
        except NotImplementedError:  # a structured op's meta checks out's dtype before the kernel's refusal
            if rule == "same" and isinstance(v[0], Tensor):
                _out_check(v[-1], v[0]._dtype, rule)
            elif rule == "addmm_":
                _rule_check(rule, v[-1], v[0]._dtype)
            raise
        _rule_check(rule, v[-1], res._dtype)
        return write_result(v[-1], res._data, res._dtype, rule if rule in ("same", "cast") else "same")

    out_impl = out_impl or copy_out
    if composite:
        return defop(schema, composite=impl), defop(out_schema, composite=out_impl)
    return defop(schema, cpu=impl, backward=backward), defop(out_schema, cpu=out_impl)


def _bind(name, sig, ops, *, method=True, module="torch", doc=None, relevant=None, fast=False, fast_cond=""):
    """Public function (with ``out=``) and Tensor method for an (op, op_out) pair; ``fast``: with
    Note [Binding fast call] (every parameter is one the op takes, in its order), taken only
    where ``fast_cond`` (a condition over the parameters) holds too."""
    op, op_out = ops
    params = [p.strip().split("=")[0] for p in sig.split(",") if p.strip() and p.strip() != "*"]
    rel = relevant or tuple(p for p in params[:2] if p in ("input", "other", "mat2", "vec", "vec2", "tensor",
                                                          "mat1", "mat", "batch1", "batch2", "A", "B"))  # fmt: skip

    def fbody(*v):
        *vals, out = v
        return dispatch(op, vals) if out is None else dispatch(op_out, [*vals, out])

    fbody.__doc__ = doc
    star = "" if "*" in sig else ", *"
    if fast is True:
        ffast = (op, tuple(params), "out is None")
    elif callable(fast):  # a function of the parameters that behaves as the body
        ffast = (fast, tuple(params), "out is None" + (f" and {fast_cond}" if fast_cond else ""))
    elif fast:  # (a, b) ranks: Note [Product fast calls]
        fast = _fp.make(op, fast)
        ffast = (fast, tuple(params), "out is None")
    else:
        ffast = None
    public(name, f"{sig}{star}, out=None", fbody, relevant=rel, module=module, ops=(op, op_out), fast=ffast)
    if method:
        msig = sig.replace("input", "self", 1)

        def mbody(*v):
            return dispatch(op, list(v))

        mbody.__doc__ = doc
        mrel = ("self",) + tuple(r for r in rel if r != "input")
        mfast = (op if fast is True else fast, ("self", *params[1:]), *([fast_cond] if fast_cond else [])) if fast else None
        public(name, msig, mbody, relevant=mrel, module="Tensor", ops=(op,), fast=mfast)


# ---- matmul / mm / bmm / mv / dot / vdot ------------------------------------------------------------
# matmul's body: numtorch/ops/linalg/_matmul.py (Note [matmul is CompositeImplicit])
# the cpu kernel and formula serve the plain-tensor case only (Note [matmul fast path])
_MATMUL = (defop("matmul(Tensor self, Tensor other) -> Tensor", composite=_matmul, cpu=matmul_cpu,
                 backward={("self", "other"): matmul_backward}),
           defop("matmul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)",
                 cpu=_product_out(_matmul_checks)))  # fmt: skip
_bind("matmul", "input, other", _MATMUL, fast=_fp.MATMUL, doc="""Matrix product with PyTorch's rules for 1-D operands
    (dot, matrix-vector) and broadcast batch dimensions; BLAS through NumPy.

    >>> numtorch.matmul(numtorch.ones(2, 3), numtorch.ones(3)).shape
    torch.Size([2])
    """)  # fmt: skip
_MATMUL_FAST = _fp.make(_MATMUL[0], _fp.MATMUL)
public("__matmul__", "self, other", lambda self, other: dispatch(_MATMUL[0], [self, other]),
       relevant=("self", "other"), module="Tensor", ops=(_MATMUL[0],), fast=(_MATMUL_FAST, ("self", "other")))  # fmt: skip
public("__rmatmul__", "self, other", lambda self, other: dispatch(_MATMUL[0], [other, self]),
       relevant=("self", "other"), module="Tensor", ops=(_MATMUL[0],), fast=(_MATMUL_FAST, ("other", "self")))  # fmt: skip


def _product_cpu(check):
    def impl(self, other):
        check(self, other)
        if self._dtype is not other._dtype:  # Note [Empty bmm]: batch2's dtype
            return _make(product(self._data.astype(other._data.dtype), other._data), other._dtype)
        return _make(product(self._data, other._data), self._dtype)

    return impl


def _mm_check(a: Tensor, b: Tensor) -> None:
    _mm_checks(a._data.shape, b._data.shape, a._dtype, b._dtype)


def _bmm_check(a: Tensor, b: Tensor) -> None:
    _bmm_checks(a._data.shape, b._data.shape, a._dtype, b._dtype)


def _mv_check(a: Tensor, b: Tensor, out: Tensor | None = None) -> None:
    _mv_checks(
        a._data.shape,
        b._data.shape,
        a._dtype,
        b._dtype,
        self_dt=None if out is None else out._dtype,
    )


_MM = _op("mm(Tensor self, Tensor mat2) -> Tensor", _product_cpu(_mm_check), out_impl=_product_out(_mm_check), backward={
    # mat2's formula first: PyTorch's generated MmBackward0 computes it first
    "mat2": lambda grad, self, mat2: _mm_mat2_grad(grad, self, mat2), "self": lambda grad, mat2: _mm_mat1_grad(grad, mat2)})  # fmt: skip
_bind("mm", "input, mat2", _MM, fast=_fp.MM, doc="""Product of two matrices (no broadcasting).

    >>> numtorch.mm(numtorch.ones(2, 3), numtorch.ones(3, 4)).shape
    torch.Size([2, 4])
    """)  # fmt: skip


_BMM = _op("bmm(Tensor self, Tensor mat2) -> Tensor", _product_cpu(_bmm_check), out_impl=_product_out(_bmm_check), backward={
    "self": lambda grad, mat2: grad.bmm(_mH(mat2)), "mat2": lambda grad, self: _mH(self).bmm(grad)})  # fmt: skip
_bind("bmm", "input, mat2", _BMM, fast=_fp.bmm(_BMM[0]), doc="""Batched product of 3-D tensors ``(b, n, k) @ (b, k, m)``.

    >>> numtorch.bmm(numtorch.ones(2, 3, 4), numtorch.ones(2, 4, 5)).shape
    torch.Size([2, 3, 5])
    """)  # fmt: skip


_MV = _op("mv(Tensor self, Tensor vec) -> Tensor", _product_cpu(_mv_check), out_impl=_product_out(_mv_check), backward={
    "self": lambda grad, vec: grad.outer(_cj(vec)), "vec": lambda grad, self: _cj(self).t().mv(grad)})  # fmt: skip
_bind("mv", "input, vec", _MV, fast=_fp.MV, doc="""Matrix-vector product.

    >>> numtorch.mv(numtorch.ones(2, 3), numtorch.ones(3))
    tensor([3., 3.])
    """)  # fmt: skip


def _vdot_cpu(self, other):
    _dot_checks(self, other)
    return _make(product(np.conj(self._data), other._data), self._dtype)


_DOT = _op("dot(Tensor self, Tensor tensor) -> Tensor", _product_cpu(_dot_checks), out_impl=_product_out(_dot_checks), backward={
    "self": lambda grad, tensor: grad * _cj(tensor), "tensor": lambda grad, self: grad * _cj(self)})  # fmt: skip
_VDOT = _op("vdot(Tensor self, Tensor other) -> Tensor", _vdot_cpu, rule="dot", backward={
    "self": lambda grad, other: _cj(grad) * other, "other": lambda grad, self: grad * self})  # fmt: skip
_bind("dot", "input, tensor", _DOT, fast=_fp.DOT, doc="""Inner product of two 1-D tensors of the same dtype.

    >>> numtorch.dot(numtorch.tensor([1.0, 2.0]), numtorch.tensor([3.0, 4.0]))
    tensor(11.)
    """)  # fmt: skip
_bind("vdot", "input, other", _VDOT, fast=_fp.DOT, doc="""Inner product conjugating the first vector.

    >>> numtorch.vdot(numtorch.tensor([1.0, 2.0]), numtorch.tensor([3.0, 4.0]))
    tensor(11.)
    """)  # fmt: skip


# ---- addmm / addmv / addbmm / baddbmm ---------------------------------------------------------------
def _expand_to(t: Tensor, shape: tuple) -> np.ndarray:
    s = t._data.shape
    if len(s) > len(shape):
        sizes = ", ".join(str(x) for x in s)
        raise RuntimeError(
            f"expand(torch.{F.cname(t._dtype)}Tensor{{[{sizes}]}}, size={list(shape)}): the number of sizes provided ({len(shape)}) must be greater or equal to the number of dimensions in the tensor ({len(s)})"
        )
    lead = len(shape) - len(s)
    for i, x in reversed(list(enumerate(s))):  # PyTorch scans from the last dim
        if x != 1 and x != shape[lead + i]:
            raise RuntimeError(
                f"The expanded size of the tensor ({shape[lead + i]}) must match the existing size ({x}) at non-singleton dimension {lead + i}.  Target sizes: {list(shape)}.  Tensor sizes: {list(s)}"
            )
    return t._data if s == shape else np.broadcast_to(t._data, shape)


_BLAS_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _addmm_cpu(self, mat1, mat2, beta=1, alpha=1):
    s1, s2 = mat1._data.shape, mat2._data.shape
    if len(s1) != 2:
        raise RuntimeError(f"mat1 must be a matrix, got {len(s1)}-D tensor")
    if len(s2) != 2:
        raise RuntimeError(f"mat2 must be a matrix, got {len(s2)}-D tensor")
    for what, t in (("self", self), ("mat1", mat1)):
        if t._dtype is not mat2._dtype:
            raise RuntimeError(
                f"{what} and mat2 must have the same dtype, but got {F.cname(t._dtype)} and {F.cname(mat2._dtype)}"
            )
    if mat2._dtype is D.bool and s1[1] == s2[0]:  # ATen expands self before the kernel's bool refusal
        _expand_to(self, (s1[0], s2[1]))
    _mm_checks(s1, s2, mat1._dtype, mat2._dtype)
    shape = (s1[0], s2[1])
    if mat2._dtype is D.bool and not s1[1] and shape[0] * shape[1] and beta.__class__ is not bool and beta != 0:
        # no contraction: PyTorch's result.mul_(beta) promotes a bool result with the number
        what = {int: "Long", float: "Float"}.get(beta.__class__, "ComplexFloat")
        raise RuntimeError(f"result type {what} can't be cast to the desired output type Bool")
    bs = self._data.shape
    if (beta.__class__ is int and alpha.__class__ is int and beta == 1 and alpha == 1
            and (bs == shape or bs == shape[1:]) and self._data.dtype in _BLAS_FLOATS):  # fmt: skip
        # F.linear's case: one product and one broadcast bias add, no Scalar conversions or
        # expanded view (3x PyTorch's time on a (8, 16) input before)
        res = product(mat1._data, mat2._data)
        tok = _quiet.quiet(_quiet.IGNORE)
        try:
            np.add(res, self._data, out=res)
        finally:
            _quiet.restore(tok)
        return _make(res, self._dtype)
    base = _expand_to(self, shape)
    return _make(_addprod(base, product(mat1._data, mat2._data), beta, alpha, self._dtype, s1[1]), self._dtype)


def _addmv_cpu(self, mat, vec, beta=1, alpha=1):
    _mv_checks(
        mat._data.shape,
        vec._data.shape,
        mat._dtype,
        vec._dtype,
        self._data.ndim,
        self._data.size,
        self._dtype,
    )
    m, sa = mat._data.shape[0], self._data
    base = sa if sa.shape == (m,) else np.broadcast_to(sa.reshape(-1) if sa.size == 1 else sa, (m,))
    k = mat._data.shape[1]
    return _make(_addprod(base, product(mat._data, vec._data), beta, alpha, self._dtype, k), self._dtype)


def _baddbmm_cpu(self, batch1, batch2, beta=1, alpha=1):
    s1, s2 = batch1._data.shape, batch2._data.shape
    if len(s1) != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if len(s2) != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    base = _expand_to(self, (s1[0], s1[1], s2[2]))
    if self._dtype is not batch1._dtype:  # batch2's dtype is the kernel's check (_bmm_checks)
        raise RuntimeError(
            f"Input dtypes must be the same, got: input {_CXX[self._dtype.name]}, batch1: {_CXX[batch1._dtype.name]}, batch2: {_CXX[batch2._dtype.name]}"
        )
    _bmm_checks(s1, s2, batch1._dtype, batch2._dtype, "baddbmm")
    if not (base.size and s1[2]):
        return _empty_baddbmm(base, beta, batch2._dtype)
    return _make(
        _addprod(base, product(batch1._data, batch2._data), beta, alpha, self._dtype), self._dtype
    )


def _empty_baddbmm(base: np.ndarray, beta, dt: D.dtype) -> Tensor:
    # Note [Empty bmm]: ATen's result has batch2's dtype; with no contraction it is
    # result.copy_(self).mul_(beta) (alpha unused), so beta must cast to that dtype
    res = np.zeros(base.shape, dt.np)
    if not base.size or beta == 0:
        return _make(res, dt)
    r = D.result_type_of([dt], [], [beta])
    if not D.can_cast(r, dt):
        raise RuntimeError(f"result type {F.cname(r)} can't be cast to the desired output type {F.cname(dt)}")
    with np.errstate(all="ignore"):
        return _make(_addprod(base.astype(dt.np), res, beta, 1, dt, 0), dt)


def _addbmm_cpu(self, batch1, batch2, beta=1, alpha=1):
    s1, s2 = batch1._data.shape, batch2._data.shape
    for i, s in ((1, s1), (2, s2)):
        if len(s) != 3:
            _expand_to(self, (s1[1] if len(s1) > 1 else 1, s2[-1]))
            raise RuntimeError(f"batch{i} must be a 3D tensor")
    base = _expand_to(self, (s1[1], s2[2]))
    for t in (self, batch1):
        if t._dtype is not batch2._dtype:
            raise RuntimeError(
                f"self and mat2 must have the same dtype, but got {F.cname(t._dtype)} and {F.cname(batch2._dtype)}"
            )
    if s1[0] != s2[0]:
        raise RuntimeError(
            f"batch1 and batch2 must have same number of batches, got {s1[0]} and {s2[0]}"
        )
    if s1[2] != s2[1]:
        raise RuntimeError(
            f"Incompatible matrix sizes for bmm ({s1[1]}x{s1[2]} and {s2[1]}x{s2[2]})"
        )
    n, k, m, b = s1[1], s1[2], s2[2], s1[0]
    scaled = not b or not k and n * m  # result.mul_(beta) (no batch, even empty) or addmm_'s: no cast
    if self._dtype is not D.bool and self._dtype.category <= D._INT and beta.__class__ is float and beta != 0 and scaled:
        raise RuntimeError(f"result type Float can't be cast to the desired output type {F.cname(self._dtype)}")
    if self._dtype in _NO_KERNEL:  # bool and wide unsigned: no addmm kernel, reached only when it has work
        if n * k * m * b:
            raise _not_impl("addmm_impl_cpu_", self._dtype)
        # a bool result promoted by a number, as above (by alpha's type in addmm_, as torch 2.13 reports it)
        num = beta if beta != 0 and (not b or scaled and beta.__class__ is float) else alpha if b and scaled else True
        if self._dtype is D.bool and num.__class__ is not bool:
            what = {int: "Long", float: "Float"}.get(num.__class__, "ComplexFloat")
            raise RuntimeError(f"result type {what} can't be cast to the desired output type Bool")
    # sum over batches == one matmul of the batch-concatenated operands
    x = batch1._data.swapaxes(0, 1).reshape(n, b * k)  # np.moveaxis(batch1, 0, 1) of a 3-D batch
    prod = product(x, batch2._data.reshape(b * k, m))
    return _make(_addprod(base, prod, beta, alpha, self._dtype, b * k), self._dtype)


_SCAL = "*, Scalar beta=1, Scalar alpha=1"
def _bexp(grad: Tensor, b1: Tensor, b2: Tensor) -> Tensor:  # addbmm's gradient over the batch
    return grad.unsqueeze(0).expand(b1.shape[0], b1.shape[1], b2.shape[2])


def _maybe_mul(t: Tensor, s) -> Tensor:
    # PyTorch's maybe_multiply: a factor of 1 costs no full-size pass; a number is mul.Scalar
    if s == 1:
        return t
    return dispatch(OPS["aten::mul.Scalar"], [t, s]) if isinstance(s, (int, float, complex)) else t * s


def _tH(x: Tensor) -> Tensor:
    # a matrix's conjugate transpose as PyTorch's mm backward writes it: t() then conj()
    return _cj(x.t())


# Note [Direct product gradients]
# With grad mode off (no create_graph), no dispatch mode or forward-AD level, and plain real CPU
# tensors of one dtype, nothing records or sees the ops a product's gradient formula is written
# with: the same product() calls on the arrays (and their transposed views) that those ops
# reach through t() and mm's dispatch each, so the values are the formula's bit for bit.
def _mm_mat1_grad(grad: Tensor, mat2: Tensor) -> Tensor:
    if not STATE.grad_enabled and _real_plain(grad, mat2):  # Note [Direct product gradients]
        return _make(product(grad._data, mat2._data.T), grad._dtype)
    return grad.mm(_tH(mat2))


def _mm_mat2_grad(grad: Tensor, mat1: Tensor, mat2: Tensor) -> Tensor:
    # PyTorch's mm_mat2_backward: when mat2 is a transposed matrix (linear's weight.t()), compute
    # the gradient in that layout, so that weight's gradient (through t()) is contiguous
    st = mat2._data.strides
    sh = mat2._data.shape
    flip = len(sh) == 2 and st[0] < st[1] and sh[0] > 1 and sh[1] > 1
    if not STATE.grad_enabled and _real_plain(grad, mat1):  # Note [Direct product gradients]
        g, m1 = grad._data, mat1._data
        if flip:  # the product, then its t() view, as the formula's .t() (the leaf may take it)
            p = _make(product(g.T, m1), grad._dtype)
            return _view(p, p._data.T)
        return _make(product(m1.T, g), grad._dtype)
    if flip:
        return grad.t().mm(_cj(mat1)).t()
    return _tH(mat1).mm(grad)


_ADDMM = _op(f"addmm(Tensor self, Tensor mat1, Tensor mat2, {_SCAL}) -> Tensor", _addmm_cpu, backward={
    "self": lambda grad, beta: _maybe_mul(grad, beta),
    "mat1": lambda grad, mat2, alpha: _maybe_mul(_mm_mat1_grad(grad, mat2), alpha),
    "mat2": lambda grad, mat1, mat2, alpha: _maybe_mul(_mm_mat2_grad(grad, mat1, mat2), alpha)})  # fmt: skip
_ADDMV = _op(f"addmv(Tensor self, Tensor mat, Tensor vec, {_SCAL}) -> Tensor", _addmv_cpu, backward={
    "self": lambda grad, beta: _maybe_mul(grad, beta),
    "mat": lambda grad, vec, alpha: _maybe_mul(grad.outer(_cj(vec)), alpha),
    "vec": lambda grad, mat, alpha: _maybe_mul(_mH(mat).mv(grad), alpha)})  # fmt: skip
_BADDBMM = _op(f"baddbmm(Tensor self, Tensor batch1, Tensor batch2, {_SCAL}) -> Tensor", _baddbmm_cpu, backward={
    "self": lambda grad, beta: _maybe_mul(grad, beta),
    "batch1": lambda grad, batch2, alpha: _maybe_mul(grad.bmm(_mH(batch2)), alpha),
    "batch2": lambda grad, batch1, alpha: _maybe_mul(_mH(batch1).bmm(grad), alpha)})  # fmt: skip
_ADDBMM = _op(f"addbmm(Tensor self, Tensor batch1, Tensor batch2, {_SCAL}) -> Tensor", _addbmm_cpu, rule="addmm_", backward={
    "self": lambda grad, beta: _maybe_mul(grad, beta),  # derivatives.yaml's: grad expanded over the batch, then bmm
    "batch1": lambda grad, batch1, batch2, alpha: _maybe_mul(_bexp(grad, batch1, batch2).bmm(_mH(batch2)), alpha),
    "batch2": lambda grad, batch1, batch2, alpha: _maybe_mul(_mH(batch1).bmm(_bexp(grad, batch1, batch2)), alpha)})  # fmt: skip

for _name, _ops, _a, _b, _what, _fast in (
    ("addmm", _ADDMM, "mat1", "mat2", "beta * input + alpha * (mat1 @ mat2)", _fp.addmm),
    ("addmv", _ADDMV, "mat", "vec", "beta * input + alpha * (mat @ vec)", _fp.addmv),
    ("baddbmm", _BADDBMM, "batch1", "batch2", "beta * input + alpha * bmm(batch1, batch2)", _fp.baddbmm),
    ("addbmm", _ADDBMM, "batch1", "batch2", "beta * input + alpha * sum over b of batch1[b] @ batch2[b]", _fp.addbmm),
):  # Note [Addprod fast calls]
    _bind(_name, f"input, {_a}, {_b}, *, beta=1, alpha=1", _ops, relevant=("input", _a, _b), fast=_fast(_ops[0]), doc=f"""``{_what}``
    (``input`` broadcasts; ``beta=0`` ignores it, NaNs included).

    >>> numtorch.addmm(numtorch.zeros(2, 2), numtorch.ones(2, 3), numtorch.ones(3, 2), alpha=2)
    tensor([[6., 6.],
            [6., 6.]])
    """)  # fmt: skip


# ---- outer / ger / einsum / tensordot / kron ------------------------------------------------------
def _outer_cpu(self, vec2):
    for name, t in (("self", self), ("vec2", vec2)):
        if t._data.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t._data.ndim}-D")
    dt = D.promote_types(self._dtype, vec2._dtype)
    a, b = self._data.astype(dt.np, copy=False), vec2._data.astype(dt.np, copy=False)
    if dt in _OUTER_KERNEL and a.size * b.size >= _fs.OUTER_KERNEL_MIN:
        arr = np.empty((a.size, b.size), dt.np)
        _K.outer(a, b, arr)
        return _make(arr, dt)
    with np.errstate(all="ignore"):
        arr = np.multiply.outer(a, b)
    return _make(arr, dt)


_K = lazy("numtorch.kernels.cpu.linalg")
_OUTER_KERNEL = (D.float32, D.float64)  # one product per element: NumPy's bits (test_small_fast.py)


def _outer(self, vec2):
    # CompositeImplicit as PyTorch's: self.reshape({n, 1}) * vec2 (a mode sees view + mul.Tensor);
    # the kernel directly when nothing observes the pieces (Note [matmul fast path])
    if unobserved(self, vec2):
        return _outer_cpu(self, vec2)
    for name, t in (("self", self), ("vec2", vec2)):
        if t.dim() != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t.dim()}-D")
    return _call("mul.Tensor", _call("reshape", self, [self.shape[0], 1]), vec2)


def _outer_ops(name: str) -> tuple:
    out_ov = defop(f"{name}.out(Tensor self, Tensor vec2, *, Tensor(a!) out) -> Tensor(a!)",
                   cpu=lambda self, vec2, out: write_result(out, *_arr_dt(_outer_cpu(self, vec2)), "cast"))
    return defop(f"{name}(Tensor self, Tensor vec2) -> Tensor", composite=_outer), out_ov  # fmt: skip


def _arr_dt(t: Tensor) -> tuple:
    return t._data, t._dtype


_OUTER, _GER = _outer_ops("outer"), _outer_ops("ger")
for _name, _ops in (("outer", _OUTER), ("ger", _GER)):
    _bind(_name, "input, vec2", _ops, fast=_fs.outer(_ops[0]), doc="""Outer product of two 1-D tensors (types promote).

    >>> numtorch.outer(numtorch.tensor([1.0, 2.0]), numtorch.tensor([1.0, 10.0]))
    tensor([[ 1., 10.],
            [ 2., 20.]])
    """)  # fmt: skip


def _einsum_cpu(equation, tensors, path=None):
    arr, dt = einsum_compute(equation, tensors)
    return _make(arr, dt)


einsum_op = defop("einsum(str equation, Tensor[] tensors, *, int[]? path=None) -> Tensor", cpu=_einsum_cpu,
                  backward={"tensors": lambda grad, equation, tensors: einsum_backward(grad, equation, tensors)})  # fmt: skip


def _einsum(args):
    """Einstein summation: ``einsum("ij,jk->ik", a, b)``, operands as varargs or one list, or the
    sublist form ``einsum(a, [0, 1], b, [1, 2], [0, 2])``. Two operands contract as one batched
    BLAS matmul; three or more go through ``np.einsum`` with an optimised path.

    >>> numtorch.einsum("ij,jk->ik", numtorch.ones(2, 3), numtorch.ones(3, 4)).shape
    torch.Size([2, 4])
    """
    if not args or not isinstance(args[0], str):
        if not args:
            raise ValueError(
                "einsum(): must specify the equation string and at least one operand, or at least one operand and its subscripts list"
            )
        equation, operands = parse_sublists(args)
    else:
        equation, operands = args[0], args[1:]
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = operands[0]
    operands = list(operands)
    if not operands:
        raise ValueError(
            "einsum(): must specify the equation string and at least one operand, or at least one operand and its subscripts list"
        )
    for i, t in enumerate(operands):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"expected Tensor as element {i} in argument 1, but got {type(t).__name__}"
            )
    return dispatch(einsum_op, [equation, operands, None])


public("einsum", "*args", _einsum, relevant=(), lists=("args",), ops=(einsum_op,), fast=(_fc.einsum, ("args",)))


def _letters(n, start=0):
    return "".join(
        chr(ord("a") + start + i) if start + i < 26 else chr(ord("A") + start + i - 26)
        for i in range(n)
    )


def _tensordot_dims(a: Tensor, b: Tensor, dims):
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, (int, np.integer)) and not isinstance(dims, bool):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > a._data.ndim or dims > b._data.ndim:
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        return list(range(-dims, 0)), list(range(dims))
    if isinstance(dims, (list, tuple)) and len(dims) == 2:
        da, db = ([d] if isinstance(d, int) else list(d) for d in dims)
        if len(da) != len(db):
            raise RuntimeError("both dimension lists should have same length")
        return da, db
    raise RuntimeError(
        f"tensordot expects dims to be int or tuple[list[int], list[int]] or list[list[int]] containing two lists, but got dims={dims}"
    )


_TD_EQS: dict = {}


def _tensordot_eq(a: Tensor, b: Tensor, dims_a, dims_b) -> str:
    """The einsum equation of tensordot, after its checks (one per shapes and dims: Note
    [einsum plans])."""
    key = (a._data.shape, b._data.shape, tuple(dims_a), tuple(dims_b))
    try:
        eq = _TD_EQS.get(key)
    except TypeError:  # an unhashable dim: _wrap_dim's error
        return _tensordot_eq_of(a, b, dims_a, dims_b)
    if eq is None:
        if len(_TD_EQS) >= 1024:
            _TD_EQS.clear()
        eq = _TD_EQS[key] = _tensordot_eq_of(a, b, dims_a, dims_b)
    return eq


def _tensordot_eq_of(a: Tensor, b: Tensor, dims_a, dims_b) -> str:
    na, nb = a._data.ndim, b._data.ndim
    la, lb = list(_letters(na)), list(_letters(nb, na))
    seen_a, seen_b = set(), set()
    for x, y in zip(dims_a, dims_b, strict=True):
        xa, yb = _wrap_dim(x, na), _wrap_dim(y, nb)
        for seen, d, v in ((seen_a, xa, x), (seen_b, yb, y)):
            if d in seen:
                raise RuntimeError(f"dim {v} appears multiple times in the list of dims")
            seen.add(d)
        s1, s2 = a._data.shape[xa], b._data.shape[yb]
        if s1 != s2 and s1 != 1 and s2 != 1:
            raise RuntimeError(
                f"contracted dimensions need to match, but first has size {s1} in dim {x} and second has size {s2} in dim {y}"
            )
        lb[yb] = la[xa]
    out = [c for i, c in enumerate(la) if i not in seen_a] + [
        c for i, c in enumerate(lb) if i not in seen_b
    ]
    return f"{''.join(la)},{''.join(lb)}->{''.join(out)}"


def _tensordot_composite(self, other, dims_self, dims_other):
    if self._dtype is not other._dtype:
        raise RuntimeError("both inputs should have same dtype")
    eq = _tensordot_eq(self, other, dims_self, dims_other)  # its checks first
    # at::tensordot sums a dim contracted with a size-1 one first, in the operand's own dtype
    # (einsum's own int64 sum would then meet the other operand's dtype)
    for x, y in zip(dims_self, dims_other, strict=True):
        xa, yb = _wrap_dim(x, self.ndim), _wrap_dim(y, other.ndim)
        s1, s2 = self.shape[xa], other.shape[yb]
        if s1 != s2 and s2 == 1:
            self = self.sum(xa, keepdim=True, dtype=self._dtype)
        elif s1 != s2 and s1 == 1:
            other = other.sum(yb, keepdim=True, dtype=other._dtype)
    if self._dtype is D.bool:
        # at::tensordot ends in at::dot (every dim contracted) or at::mm, whose CPU kernels
        # refuse bool; an empty mm returns before its kernel, dot does not
        if len(dims_self) == self.ndim and len(dims_other) == other.ndim:
            raise _not_impl("dot", D.bool)
        if self.numel() and other.numel():
            raise _not_impl("addmm_impl_cpu_", D.bool)
    r = dispatch(einsum_op, [eq, [self, other], None])
    # PyTorch sums a size-1 contracted dim with sum(dtype=input's): integers stay, not int64
    return r if r._dtype is self._dtype else r.to(self._dtype)


_TENSORDOT = _op("tensordot(Tensor self, Tensor other, int[] dims_self, int[] dims_other) -> Tensor",
                 _tensordot_composite, composite=True, rule="tensordot")  # fmt: skip


def _tensordot(a, b, dims, out):
    """Contract ``dims`` (an int: a's last and b's first dims; or two lists of dims) of ``a`` and ``b``.

    >>> numtorch.tensordot(numtorch.ones(2, 3, 4), numtorch.ones(3, 4, 5)).shape
    torch.Size([2, 5])
    """
    da, db = _tensordot_dims(a, b, dims)
    if out is None:
        return dispatch(_TENSORDOT[0], [a, b, da, db])
    return dispatch(_TENSORDOT[1], [a, b, da, db, out])


public("tensordot", "a, b, dims=2, out=None", _tensordot, relevant=("a", "b"), ops=_TENSORDOT,
       fast=(_fc.tensordot_fast(_tensordot, _tensordot_dims, _tensordot_eq), ("a", "b", "dims"), "out is None"))  # fmt: skip


def _kron_composite(self, other):
    n = max(self._data.ndim, other._data.ndim)
    sa = (1,) * (n - self._data.ndim) + self._data.shape
    sb = (1,) * (n - other._data.ndim) + other._data.shape
    a = self.reshape([x for s in sa for x in (s, 1)])
    b = other.reshape([x for s in sb for x in (1, s)])
    return (a * b).reshape([x * y for x, y in zip(sa, sb, strict=True)])


_KRON = _op(
    "kron(Tensor self, Tensor other) -> Tensor", _kron_composite, composite=True, rule="cast"
)
_bind("kron", "input, other", _KRON, fast=_fs.kron(_KRON[0]), doc="""Kronecker product (types promote; fewer dims are padded with 1s).

    >>> numtorch.kron(numtorch.eye(2), numtorch.ones(1, 2))
    tensor([[1., 1., 0., 0.],
            [0., 0., 1., 1.]])
    """)  # fmt: skip
