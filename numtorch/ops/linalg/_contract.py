"""Contractions for numtorch/ops/linalg/core.py: the BLAS product, PyTorch's product checks, einsum.

``product`` is the one place a matrix product is computed (Note [Matrix products go to BLAS]
in linalg.py); the ``_*_checks`` raise PyTorch's shape and dtype errors in PyTorch's order. ``parse`` reproduces PyTorch's einsum equation parsing and checks (its messages
verbatim); ``einsum_compute`` contracts; ``einsum_backward`` is einsum's derivative, written
as einsums so that double backward works.
"""

from __future__ import annotations

import math

import numpy as np

from ... import _dtype as D
from ... import _factory_utils as F
from ..._tensor import Tensor
from .._quiet import IGNORE as _IGNORE
from .._quiet import quiet as _quiet
from .._quiet import restore as _restore

_empty = np.empty

_CXX = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int", "int32": "int",
        "int64": "long int", "float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float", "float64": "double",
        "complex64": "c10::complex<float>", "complex128": "c10::complex<double>", "uint16": "short unsigned int",
        "uint32": "unsigned int", "uint64": "long unsigned int"}  # fmt: skip
_ELL = -1  # ellipsis marker while parsing
_NLETTERS = 52


def dot_quiet(x: np.ndarray, y: np.ndarray, dest: np.ndarray) -> None:
    """``np.dot(x, y, dest)`` with NumPy's floating-point warnings off (Note [Quiet
    floating-point flags]): Note [Small products through np.dot]'s one BLAS call."""
    tok = _quiet(_IGNORE)
    try:
        x.dot(y, dest)  # np.dot's C function without its dispatch (Note [Dot's own result])
    finally:
        _restore(tok)


def product(x: np.ndarray, y: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``x @ y`` with NumPy's matmul rules via ``np.matmul(..., out=...)``; half runs in float32."""
    if out is None and 0 < x.ndim <= 2 and 0 < y.ndim <= 2 and x.dtype.kind in "fc" and x.dtype != np.float16:
        # Note [Small products through np.dot]: a 2-D or 1-D product of one dtype is np.dot,
        # the same BLAS call as np.matmul's (bit for bit: tests/ops/linalg/test_small_products.py)
        # without the gufunc's overhead (2,3)@(3,4): 0.9 us against 1.5-2.3 us
        fx, fy = x.flags, y.flags  # layouts BLAS takes as they are (others: matmul's own loop)
        if (x.dtype == y.dtype and x.shape[-1] != 1 and (fx.c_contiguous or fx.f_contiguous)
                and (fy.c_contiguous or fy.f_contiguous)):  # fmt: skip
            dest = _empty(_result_shape(x.shape, y.shape), x.dtype)
            dot_quiet(x, y, dest)
            return dest
    half = x.dtype == np.float16
    if half:
        x, y = x.astype(np.float32), y.astype(np.float32)
    shape = _result_shape(x.shape, y.shape)
    dest = (
        out
        if out is not None and not half and out.dtype == x.dtype and out.shape == shape
        else None
    )
    if dest is None:
        dest = np.empty(shape, x.dtype)
    tok = _quiet(_IGNORE)  # integer products wrap, as in C++ (Note [Quiet floating-point flags])
    try:
        if x.ndim >= 2 and y.ndim >= 2 and x.shape[-1] == 1:
            # outer products (per-sample weight gradients under vmap): one broadcast multiply,
            # twice as fast as a stack of k=1 BLAS calls and the same single product per element
            np.multiply(x, y, out=dest)
        elif y.ndim == 2 and x.ndim > 2 and x.size and dest.size and dest.flags.c_contiguous:
            # a stack of matrices times one matrix is one GEMM on the stacked rows (as PyTorch
            # folds it; a strided stack is copied once); NumPy would loop over the stack (measured
            # (21846, 2, 3) @ (3, 4) fwd+bwd 8.4x PyTorch's time)
            np.matmul(x.reshape(-1, x.shape[-1]), y, out=dest.reshape(-1, y.shape[-1]))
        else:
            np.matmul(x, y, out=dest)
    finally:
        _restore(tok)
    if half:
        dest = dest.astype(np.float16)
    if out is not None and dest is not out:
        np.copyto(out, dest, casting="unsafe")
        return out
    return dest


def _result_shape(s1, s2) -> tuple:
    if len(s1) == 1 and len(s2) == 1:
        return ()
    if len(s1) == 1:
        return tuple(s2[:-2]) + (s2[-1],)
    if len(s2) == 1:
        return tuple(s1[:-1])
    b1, b2 = tuple(s1[:-2]), tuple(s2[:-2])
    # equal or absent batch dims need no broadcast_shapes call (1.5 us on a tiny product)
    batch = b1 if b1 == b2 or not b2 else b2 if not b1 else tuple(np.broadcast_shapes(b1, b2))
    return batch + (s1[-2], s2[-1])


# dtypes ATen's CPU product kernels (dot, addmv, addmm, bmm) are not built for
# (Note [Wide unsigned dtypes])
_NO_KERNEL = frozenset((D.bool, D.uint16, D.uint32, D.uint64))


def _not_impl(kernel: str, dt: D.dtype):
    return NotImplementedError(f"\"{kernel}\" not implemented for '{F.cname(dt)}'")


# ---- checks, in PyTorch's order ------------------------------------------------------------------
def _mm_checks(s1, s2, d1: D.dtype, d2: D.dtype, names=("self", "mat2")) -> None:
    if len(s1) != 2:
        raise RuntimeError(f"{names[0]} must be a matrix")
    if len(s2) != 2:
        raise RuntimeError(f"{names[1]} must be a matrix")
    if s1[1] != s2[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({s1[0]}x{s1[1]} and {s2[0]}x{s2[1]})"
        )
    if d1 is not d2:
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: {_CXX[d1.name]} != {_CXX[d2.name]}"
        )
    if d1 in _NO_KERNEL and s1[0] * s1[1] * s2[1]:  # an empty product never reaches the kernel
        raise _not_impl("addmm_impl_cpu_", d1)


def _mv_checks(
    ms, vs, md: D.dtype, vd: D.dtype, self_dims=1, self_numel=None, self_dt=None
) -> None:
    if not (len(ms) == 2 and len(vs) == 1 and self_dims <= 1):
        raise RuntimeError(
            f"vector + matrix @ vector expected, got {self_dims}, {len(ms)}, {len(vs)}"
        )
    n = ms[0] if self_numel is None else self_numel
    if ms[1] != vs[0] or not (ms[0] == n or n == 1):
        raise RuntimeError(f"size mismatch, got input ({n}), mat ({ms[0]}x{ms[1]}), vec ({vs[0]})")
    sd = vd if self_dt is None else self_dt
    if not (sd is md is vd):
        raise RuntimeError(
            f"addmv input tensors must have the same dtype, but got {F.cname(sd)}, {F.cname(md)}, and {F.cname(vd)}"
        )
    if md in _NO_KERNEL and ms[0] * ms[1]:  # an empty product never reaches the kernel
        raise _not_impl("addmv_impl_cpu", md)


def _dot_checks(a: Tensor, b: Tensor) -> None:
    if a._data.ndim != 1 or b._data.ndim != 1:
        raise RuntimeError(
            f"1D tensors expected, but got {a._data.ndim}D and {b._data.ndim}D tensors"
        )
    if a._dtype is not b._dtype:
        raise RuntimeError(
            f"dot : expected both vectors to have same dtype, but found {F.cname(a._dtype)} and {F.cname(b._dtype)}"
        )
    n1, n2 = a._data.size, b._data.size
    if n1 != n2:
        raise RuntimeError(
            f"inconsistent tensor size, expected tensor [{n1}] and src [{n2}] to have the same number of elements, but got {n1} and {n2} elements respectively"
        )
    if a._dtype in _NO_KERNEL:
        raise _not_impl("dot", a._dtype)


def _bmm_checks(s1, s2, d1: D.dtype, d2: D.dtype, kernel="bmm") -> None:
    if len(s1) != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if len(s2) != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if s2[0] != s1[0] or s2[1] != s1[2]:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{s1[0]}, {s1[2]}] but got: [{s2[0]}, {s2[1]}]."
        )
    # Note [Empty bmm]: an empty result or contraction returns zeros before the kernel's dtype
    # checks, in batch2's dtype (PyTorch's meta function allocates with batch2's options)
    if not (s1[0] * s1[1] * s2[2] and s1[2]):
        return
    if d1 in _NO_KERNEL:  # the kernel dispatches on batch1's dtype, then compares batch2's
        raise _not_impl(kernel, d1)
    if d1 is not d2:
        raise RuntimeError(f"expected scalar type {F.cname(d1)} but found {F.cname(d2)}")


def broadcast_error(a, b, offset=0):
    """PyTorch's message for shapes that do not broadcast (dims counted from the left of the result)."""
    a, b = tuple(a), tuple(b)
    if a == b:  # a linalg.cross's backward (~1.6 us through the loop and generators below)
        return a
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    out = []
    for i, (x, y) in enumerate(zip(a, b, strict=True)):
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            raise RuntimeError(
                f"The size of tensor a ({x}) must match the size of tensor b ({y}) at non-singleton dimension {i + offset}"
            )
    return tuple(out)


def _estrides(a: np.ndarray) -> tuple:
    return tuple(s // a.itemsize for s in a.strides)


def _should_fold(a: Tensor, b: Tensor) -> bool:
    """PyTorch's should_fold: fold the larger operand into a matrix when that needs no copy."""
    larger = a._data.ndim >= b._data.ndim
    big = a._data if larger else np.swapaxes(b._data, -1, -2)
    small = b if larger else a
    if not (big.ndim >= 3 and small._data.ndim <= 2):
        return False
    if small._rg:
        return True
    if a._data.ndim == 2:
        return False
    if big.size == 0:
        return True
    sh, st = big.shape, _estrides(big)
    return all(st[i] == st[i + 1] * sh[i + 1] for i in range(big.ndim - 2))


def _matmul_checks(a: Tensor, b: Tensor) -> None:
    d1, d2 = a._data.ndim, b._data.ndim
    s1, s2, t1, t2 = a._data.shape, b._data.shape, a._dtype, b._dtype
    if d1 == 0 or d2 == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {d1}D and {d2}D"
        )
    if d1 == d2 >= 3 and t1 is t2 and t1 not in _NO_KERNEL and s1[-1] == s2[-2] and s1[:-2] == s2[:-2]:
        return  # equal batches (attention's products): nothing below can refuse them
    if d1 == 1 and d2 == 1:
        return _dot_checks(a, b)
    if d1 == 2 and d2 == 1:
        return _mv_checks(s1, s2, t1, t2)
    if d1 == 1 and d2 == 2:
        return _mm_checks((1, s1[0]), s2, t1, t2)
    if d1 == 2 and d2 == 2:
        return _mm_checks(s1, s2, t1, t2)
    if _should_fold(a, b):
        if d1 >= 3:
            mat = (math.prod(s1[:-1]), s1[-1])
            return _mv_checks(mat, s2, t1, t2) if d2 == 1 else _mm_checks(mat, s2, t1, t2)
        mat = (math.prod(s2[:-2]) * s2[-1], s2[-2])
        return _mv_checks(mat, s1, t2, t1) if d1 == 1 else _mm_checks(mat, s1[::-1], t2, t1)
    batch = broadcast_error(s1[:-2], s2[:-2])
    n, k1 = (s1[-2] if d1 >= 2 else 1), s1[-1]
    k2, m = (s2[-2], s2[-1]) if d2 >= 2 else (s2[-1], 1)
    _bmm_checks((math.prod(batch), n, k1), (math.prod(batch), k2, m), t1, t2)


# ---- parsing ------------------------------------------------------------------------------------------
def _label(c: str) -> int:
    return ord(c) - ord("A") if c.isupper() else ord(c) - ord("a") + 26


def _char(label: int) -> str:
    return chr(ord("A") + label) if label < 26 else chr(ord("a") + label - 26)


def _err(msg: str):
    return RuntimeError(f"einsum(): {msg}")


def parse(equation: str, shapes: list) -> tuple[list, list, dict]:
    """Per-operand label lists, output labels and label sizes, with PyTorch's checks.

    Letters are labels 0..51 (A-Z, a-z); ellipsis dimensions are labels 52.. (right-aligned)."""
    num_ops = len(shapes)
    arrow = equation.find("->")
    lhs = equation if arrow < 0 else equation[:arrow]
    op_labels: list = [[]]
    ell_seen, i = False, 0
    while i < len(lhs):
        c = lhs[i]
        if c == ".":
            if ell_seen:
                raise _err(
                    f"found '.' for operand {len(op_labels) - 1} for which an ellipsis was already found"
                )
            if not (i + 2 < len(lhs) and lhs[i + 1] == "." and lhs[i + 2] == "."):
                raise _err(
                    f"found '.' for operand {len(op_labels) - 1} that is not part of any ellipsis"
                )
            op_labels[-1].append(_ELL)
            ell_seen, i = True, i + 2
        elif c == ",":
            if len(op_labels) >= num_ops:
                raise _err("fewer operands were provided than specified in the equation")
            op_labels.append([])
            ell_seen = False
        elif c != " ":
            if not (c.isascii() and c.isalpha()):
                raise _err(
                    f"invalid subscript given at index {i} in the equation string, subscripts must be in [a-zA-Z]"
                )
            op_labels[-1].append(_label(c))
        i += 1
    if len(op_labels) != num_ops:
        raise _err("more operands were provided than specified in the equation")
    count = [0] * _NLETTERS
    ell_dims = 0
    for k, (labels, shape) in enumerate(zip(op_labels, shapes, strict=True)):
        n = sum(1 for x in labels if x != _ELL)
        has_ell = _ELL in labels
        for x in labels:
            if x != _ELL:
                count[x] += 1
        if has_ell:
            ell_dims = max(ell_dims, len(shape) - n)
        if (n > len(shape)) if has_ell else (n != len(shape)):
            what = (
                ") is more than the number of dimensions ("
                if has_ell
                else ") does not match the number of dimensions ("
            )
            tail = "" if has_ell else " and no ellipsis was given"
            raise _err(
                f"the number of subscripts in the equation ({n}{what}{len(shape)}) for operand {k}{tail}"
            )
    ell = [_NLETTERS + j for j in range(ell_dims)]
    out = _output(equation, arrow, lhs, count, ell)
    expanded, sizes = [], {}
    for k, (labels, shape) in enumerate(zip(op_labels, shapes, strict=True)):
        full = []
        for x in labels:
            full += ell[ell_dims - (len(shape) - len(labels) + 1) :] if x == _ELL else [x]
        expanded.append(full)
        _check_sizes(k, full, shape, sizes, ell_dims)
    return expanded, out, sizes


def _output(equation, arrow, lhs, count, ell) -> list:
    if arrow < 0:  # implicit: the ellipsis, then labels seen exactly once, in label order
        return ell + [x for x in range(_NLETTERS) if count[x] == 1]
    rhs, out, ell_out, i = equation[arrow + 2 :], [], False, 0
    while i < len(rhs):
        c = rhs[i]
        if c == ".":
            if ell_out:
                raise _err("found '.' for output but an ellipsis (...) was already found")
            if not (i + 2 < len(rhs) and rhs[i + 1] == "." and rhs[i + 2] == "."):
                raise _err("found '.' for output that is not part of any ellipsis (...)")
            out += ell
            ell_out, i = True, i + 2
        elif c != " ":
            if not (c.isascii() and c.isalpha()):
                raise _err(
                    f"invalid subscript given at index {len(lhs) + 2 + i} in the equation string, subscripts must be in [a-zA-Z]"
                )
            x = _label(c)
            if count[x] == 0 or x in out:
                why = (
                    "appears more than once in the output"
                    if x in out
                    else "does not appear in the equation for any input operand"
                )
                raise _err(f"output subscript {c} {why}")
            out.append(x)
        i += 1
    return out


def _check_sizes(k, labels, shape, sizes, ell_dims) -> None:
    first = {}
    for dim, (x, s) in enumerate(zip(labels, shape, strict=True)):
        if x in first:
            prev = shape[first[x]]
            if s != prev:
                raise _err(
                    f"subscript {_char(x)} is repeated for operand {k} but the sizes don't match, {s} != {prev}"
                )
            continue
        first[x] = dim
        if s != 1:
            seen = sizes.get(x, 1)
            if seen != 1 and seen != s:
                if x >= _NLETTERS:
                    raise _err(
                        f"dimension {dim} covered by ellipsis in operand {k}has size {s} which does not broadcast with previously seen ellipsis with size {seen} for the respective dimension"
                    )
                raise _err(
                    f"subscript {_char(x)} has size {s} for operand {k} which does not broadcast with previously seen size {seen}"
                )
            sizes[x] = s
        else:
            sizes.setdefault(x, 1)


# ---- contraction --------------------------------------------------------------------------------------
def _prepare(a: np.ndarray, labels: list, sizes: dict):
    """Take diagonals for repeated labels; drop size-1 dims that broadcast against another size."""
    labels = list(labels)
    while len(set(labels)) < len(labels):
        x = next(x for x in labels if labels.count(x) > 1)
        p = labels.index(x)
        q = labels.index(x, p + 1)
        a = np.moveaxis(np.diagonal(a, axis1=p, axis2=q), -1, p)
        del labels[q]
    # a size-1 dim broadcasts against 0 too (then the contraction is over no elements)
    keep = [i for i, x in enumerate(labels) if not (a.shape[i] == 1 and sizes[x] != 1)]
    return a.reshape([a.shape[i] for i in keep]), [labels[i] for i in keep]


# Note [einsum plans]
# A small einsum, inner or tensordot spent most of its time in Python planning: parsing the
# equation, choosing dtypes, and _pair's label bookkeeping (what to sum, the transposes and
# reshapes), ~25 us of inner's 46. Both depend only on the equation (or labels), the operands'
# shapes and dtypes, so they are computed once per such key (an error is raised, never cached)
# and the same NumPy calls then run on the arrays: the results are bit for bit the unplanned
# ones. The caches are cleared when they pass _PLAN_MAX entries.
_PLAN_MAX = 1024
_EIN_PLANS: dict = {}
_PAIR_PLANS: dict = {}


def _pair(a, la, b, lb, out) -> np.ndarray:
    """Two-operand contraction as one batched matmul: (batch, a-free, k) @ (batch, k, b-free)."""
    key = (tuple(la), tuple(lb), tuple(out), a.shape, b.shape)
    plan = _PAIR_PLANS.get(key)
    if plan is None:
        if len(_PAIR_PLANS) >= _PLAN_MAX:
            _PAIR_PLANS.clear()
        plan = _PAIR_PLANS[key] = _pair_plan(a.shape, la, b.shape, lb, out)
    sum_a, sum_b, perm_a, shape_a, perm_b, shape_b, res_shape, perm_out = plan
    if sum_a:
        a = a.sum(axis=sum_a, dtype=a.dtype)
    if sum_b:
        b = b.sum(axis=sum_b, dtype=b.dtype)
    if perm_a is not None:
        a = a.transpose(perm_a)
    if perm_b is not None:
        b = b.transpose(perm_b)
    res = product(a.reshape(shape_a), b.reshape(shape_b)).reshape(res_shape)
    return res if perm_out is None else res.transpose(perm_out)


def _pair_plan(sa, la, sb, lb, out) -> tuple:
    """What _pair does to operands of these shapes and labels (Note [einsum plans])."""
    sums = []
    for arr_name in ("a", "b"):
        shape, lab, other = (sa, la, lb) if arr_name == "a" else (sb, lb, la)
        summed = tuple(i for i, x in enumerate(lab) if x not in other and x not in out)
        sums.append(summed)
        if summed:
            shape = tuple(n for i, n in enumerate(shape) if i not in summed)
            lab = [x for i, x in enumerate(lab) if i not in summed]
        if arr_name == "a":
            sa, la = shape, lab
        else:
            sb, lb = shape, lab
    batch = [x for x in la if x in lb and x in out]
    contract = [x for x in la if x in lb and x not in out]
    fa, fb = [x for x in la if x not in lb], [x for x in lb if x not in la]
    size = dict(zip(la, sa, strict=True)) | dict(zip(lb, sb, strict=True))
    bs, ms, ks, ns = ([size[x] for x in g] for g in (batch, fa, contract, fb))
    b_, m_, k_, n_ = (math.prod(g) for g in (bs, ms, ks, ns))
    # without batch dims the product is 2-D: np.matmul's loop over a batch of one runs the same
    # inner loop on the same matrices, and product() may then take np.dot (Note [Small products
    # through np.dot]); identity transposes are skipped
    sh_a, sh_b = ((m_, k_), (k_, n_)) if not batch else ((b_, m_, k_), (b_, k_, n_))
    cur = batch + fa + fb
    perms = ([la.index(x) for x in batch + fa + contract], [lb.index(x) for x in batch + contract + fb],
             [cur.index(x) for x in out])  # fmt: skip
    pa, pb, po = (None if p == sorted(p) else p for p in perms)
    return sums[0], sums[1], pa, sh_a, pb, sh_b, bs + ms + ns, po


def _sums_alone(labels, shapes, out) -> bool:
    """Whether PyTorch's einsum sums a dimension with ``sum`` (not inside bmm): a summed label
    that only one operand holds with a size other than 1 (any summed label of a lone operand)."""
    if len(labels) == 1:
        return any(x not in out for x in labels[0])
    for x in set().union(*labels) - set(out):
        holders = [k for k, lab in enumerate(labels) if x in lab]
        big = [k for k in holders if any(s != 1 for y, s in zip(labels[k], shapes[k]) if y == x)]
        if len(holders) == 1 or len(big) == 1:
            return True
    return False


def _pair_dtypes(labels, shapes, out, a: D.dtype, b: D.dtype) -> tuple:
    """(dtype, a's, b's) PyTorch's einsum gives two operands, dtype None where bmm checks a's and
    b's: an integral operand with a label summed in it alone is first sum()med (int64); then
    ``a.mul(b)`` (promoting) when no summed label has a size other than 1 in both, else bmm,
    whose empty result or contraction returns zeros in b's dtype (Note [Empty bmm])."""
    sa, sb = (dict(zip(lab, sh, strict=True)) for lab, sh in zip(labels, shapes, strict=True))
    both = {x for x in sa.keys() & sb.keys() if x not in out and sa[x] != 1 and sb[x] != 1}
    a, b = (D.int64 if dt.category <= D._INT and any(x not in out and x not in both and n != 1
                                                     for x, n in own.items()) else dt
            for dt, own in ((a, sa), (b, sb)))  # fmt: skip
    if not both:
        return D.promote_types(a, b), a, b
    kept = [max(sa.get(x, 1), sb.get(x, 1)) if 0 not in (sa.get(x), sb.get(x)) else 0
            for x in sa.keys() | sb.keys() if x in out or x in both]  # fmt: skip
    return (b if 0 in kept else None), a, b


def einsum_compute(equation: str, tensors: list) -> tuple[np.ndarray, D.dtype]:
    key = (equation, *[(t._data.shape, t._dtype) for t in tensors])
    plan = _EIN_PLANS.get(key)
    if plan is None:
        if len(_EIN_PLANS) >= _PLAN_MAX:
            _EIN_PLANS.clear()
        plan = _EIN_PLANS[key] = _einsum_plan(equation, tensors)
    labels, out, sizes, res_dt, work, as_is = plan
    if as_is:  # nothing to cast, no diagonal, no size-1 dim to drop
        ops = [(t._data, lab) for t, lab in zip(tensors, labels, strict=True)]
    else:
        ops = [
            _prepare(t._data.astype(work, copy=False), lab, sizes)
            for t, lab in zip(tensors, labels, strict=True)
        ]
    if len(ops) == 2:
        tok = _quiet(_IGNORE)
        try:
            res = _pair(ops[0][0], ops[0][1], ops[1][0], ops[1][1], out)
        finally:
            _restore(tok)
    else:
        ids = {x: i for i, x in enumerate(sorted(set(out).union(*(lab for _, lab in ops))))}
        args = [v for a, lab in ops for v in (a, [ids[x] for x in lab])]
        with np.errstate(all="ignore"):
            res = np.einsum(*args, [ids[x] for x in out], optimize="greedy" if len(ops) > 2 else False)
    res = np.asarray(res)
    # a pair's result comes from product()'s fresh array (np.shares_memory: ~0.25 us an operand);
    # np.einsum of one operand (or none summed) may return a view of it
    if (
        res.dtype != res_dt.np
        or len(ops) != 2
        and any(np.shares_memory(res, t._data) for t in tensors)
    ):
        res = res.astype(res_dt.np)
    return res, res_dt


def _einsum_plan(equation: str, tensors: list) -> tuple:
    """(labels, output labels, sizes, result dtype, working dtype) of einsum_compute, with the
    errors PyTorch raises first (Note [einsum plans])."""
    labels, out, sizes = parse(equation, [t._data.shape for t in tensors])
    shapes = [t._data.shape for t in tensors]
    dts = [t._dtype for t in tensors]
    dt = None
    if len(tensors) == 2:
        dt, *dts = _pair_dtypes(labels, shapes, out, *dts)
    if dt is None:
        dt = dts[0]
        if len(tensors) > 1 and dt is D.bool:
            raise NotImplementedError("\"bmm\" not implemented for 'Bool'")
        for other in dts[1:]:
            if other is not dt:
                raise RuntimeError(f"expected scalar type {F.cname(dt)} but found {F.cname(other)}")
    res_dt = dt
    work = np.float32 if dt is D.float16 else dt.np
    if dt.category <= D._INT and _sums_alone(labels, shapes, out):
        res_dt, work = D.int64, np.int64  # PyTorch sums such dims with sum(), which gives int64
    prepared = [_prepared_labels(lab, sh, sizes) for lab, sh in zip(labels, shapes, strict=True)]
    if len(set(out).union(*prepared)) > _NLETTERS:
        raise RuntimeError("einsum(): more than 52 distinct subscripts (letters plus ellipsis dimensions)")
    as_is = prepared == labels and all(t._data.dtype == work for t in tensors)
    return labels, out, sizes, res_dt, work, as_is


def _prepared_labels(labels: list, shape, sizes: dict) -> list:
    """The labels _prepare leaves an operand of ``shape`` (no array needed)."""
    labels, shape = list(labels), list(shape)
    while len(set(labels)) < len(labels):
        x = next(x for x in labels if labels.count(x) > 1)
        q = labels.index(x, labels.index(x) + 1)
        del labels[q], shape[q]
    return [x for x, n in zip(labels, shape, strict=True) if not (n == 1 and sizes[x] != 1)]


def parse_sublists(args) -> tuple[str, list]:
    """``einsum(a, [0, 1], b, [1, 2], [0, 2])`` -> ("Ab,bC->AC"-style equation, [a, b]), as torch.functional."""

    def letters(sub) -> str:
        s = ""
        for v in sub:
            if v is Ellipsis:
                s += "..."
            elif isinstance(v, int) and 0 <= v < _NLETTERS:
                s += _char(v)
            else:
                raise ValueError(
                    "einsum(): subscript in subscript list is not within the valid range [0, 52)"
                )
        return s

    equation = ",".join(letters(s) for s in args[1 : len(args) - len(args) % 2 : 2])
    if len(args) % 2:
        return equation + "->" + letters(args[-1]), list(args[:-1:2])
    return equation, list(args[::2])


# ---- derivative -------------------------------------------------------------------------------------
# Note [einsum backward plans]
# einsum's derivative parsed the equation and built each operand's gradient equation, its
# identity/ones operands' sizes and the broadcast of the result with the operand's shape on
# every backward: ~25 us of a small inner's (or tensordot's) 107 us forward+backward. All of it
# depends only on the equation and the operands' shapes, so it is planned once per such key (as
# Note [einsum plans]) and the same dispatches then run with the same equations and operands:
# the gradients are the unplanned ones. Only the operands' values, the grad's dtype (the extra
# operands' dtype, the conjugate of complex operands) and the expand are read per call.
_GRAD_PLANS: dict = {}


def einsum_backward(grad, equation: str, tensors: list) -> list:
    """d(einsum)/d(operand i) = einsum(grad, other operands -> operand i's subscripts); repeated
    subscripts get an identity operand, subscripts summed only within operand i a ones operand.
    Size-1 broadcast dims come back full size and the engine sums them (sum_to_size); a dim only
    operand i holds at full size comes back as 1 and is expanded."""
    from ..._dispatch import dispatch
    from ..._ops import ops
    from ..factory.core import eye_m, ones

    einsum_op = ops.aten.einsum.default  # through the op table: linalg/core.py imports this module

    key = (equation, *[t._data.shape for t in tensors])
    plan = _GRAD_PLANS.get(key)
    if plan is None:
        if len(_GRAD_PLANS) >= _PLAN_MAX:
            _GRAD_PLANS.clear()
        plan = _GRAD_PLANS[key] = _grad_plan(equation, [t._data.shape for t in tensors])
    dt, kw = grad._dtype, [None, None, None]
    cplx = dt.category == D._COMPLEX
    grads = []
    for i, (eq, others, extra) in enumerate(plan):
        operands = [grad] + [tensors[j].conj() if cplx else tensors[j] for j in others]
        for n, diagonal in extra:
            spec = (eye_m, [n, n, dt, *kw]) if diagonal else (ones, [[n], dt, *kw])
            operands.append(dispatch(*spec))
        g = dispatch(einsum_op, [eq, operands, None])
        # a label operand i holds with size n but every other operand with size 1 comes back as 1:
        # expand it, so that the engine's sum_to_size can then fold the other way round
        gs, ts = g._data.shape, tensors[i]._data.shape
        full = gs if gs == ts else np.broadcast_shapes(gs, ts)
        grads.append(g if full == gs else g.expand(list(full)))
    return grads


def _grad_plan(equation: str, shapes: list) -> list:
    """Per operand: (its gradient's equation, the indices of the other operands it takes, the
    (size, is an identity) of its extra operands) (Note [einsum backward plans])."""
    labels, out, sizes = parse(equation, shapes)
    used = sorted(set(out).union(*labels))
    letter = {x: _char((i + 26) % 52) for i, x in enumerate(used)}
    fresh = iter(_char((i + 26) % 52) for i in range(len(used), _NLETTERS))
    plan = []
    for i, shape in enumerate(shapes):
        others = [j for j in range(len(shapes)) if j != i]
        subs = ["".join(letter[x] for x in labels[j]) for j in others]
        extra, target, seen = [], [], set()
        for x in labels[i]:
            if x in seen:  # a diagonal: the identity ties the repeated subscript to a fresh one
                f = next(fresh)
                target.append(f)
                extra.append(((sizes[x], True), letter[x] + f))
            else:
                seen.add(x)
                target.append(letter[x])
        have = set("".join(letter[x] for x in out) + "".join(subs) + "".join(s for _, s in extra))
        for dim, x in enumerate(labels[i]):
            if letter[x] not in have:
                have.add(letter[x])
                extra.append(((shape[dim], False), letter[x]))
        eq = ",".join(["".join(letter[x] for x in out)] + subs + [s for _, s in extra])
        plan.append((eq + "->" + "".join(target), others, [spec for spec, _ in extra]))
    return plan
