"""Sorting-based ops: sort, argsort, topk, kthvalue, median, nanmedian, mode, unique
(imported by ``reduction.py``). Ordering is NumPy's stable argsort / argpartition (pure
comparison and data movement); NaN orders as the largest value, as in PyTorch.
"""

from __future__ import annotations

import numpy as np

from ... import _dtype as D
from ... import return_types
from ..._dispatch import dispatch
from ..._tensor import Tensor, _make
from ...kernels import lazy
from . import _reduce as E
from . import _select_fast as F
from . import median_all as _M
from .._registry import defop
from .core import _call, _decl, _evenly, _fn, _select_bw

Sort = return_types.register("sort", ("values", "indices"))
TopK = return_types.register("topk", ("values", "indices"))
KthValue = return_types.register("kthvalue", ("values", "indices"))
Median = return_types.register("median", ("values", "indices"))
NanMedian = return_types.register("nanmedian", ("values", "indices"))
Mode = return_types.register("mode", ("values", "indices"))
K = lazy("numtorch.kernels.cpu.reduction.sorting")
_TOPK_PARTITION = 1024  # rows at least this long select with argpartition before sorting


def _prep(self: Tensor, dim: int, name: str, kernel: str = ""):
    """(array with at least one dim, wrapped dim) for a sort along ``dim``."""
    if kernel and (self._dtype.category == D._COMPLEX or self._dtype is D.bool):
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{E.cname(self._dtype)}'")
    if self._dtype.category == D._COMPLEX:
        raise RuntimeError(f" {name} does not support complex dtypes on CPU")  # sic: PyTorch's text
    a = self._data
    d = E.wrap_dim(dim, a.ndim)
    return (a.reshape(1) if a.ndim == 0 else a), d


def argsort_np(a: np.ndarray, d: int, descending: bool) -> np.ndarray:
    """Stable int64 order along ``d``; descending keeps equal elements in index order."""
    if not descending:
        return np.argsort(a, axis=d, kind="stable")
    n = a.shape[d]
    rev = np.argsort(np.flip(a, d), axis=d, kind="stable")
    return np.ascontiguousarray(np.flip(n - 1 - rev, d))


def _pair(self, vals, idx, cls, keep_shape=True):
    shape = self._data.shape if keep_shape else vals.shape
    return cls(E.wrap(np.ascontiguousarray(vals).reshape(shape), self._dtype),
               _make(np.ascontiguousarray(idx, dtype=np.int64).reshape(shape), D.int64))  # fmt: skip


# ---- sort, argsort ------------------------------------------------------------------------
def _sort_cpu(self, stable, dim, descending):
    a, d = _prep(self, dim, "Sort")
    fast = F.topk(self._data, d, a.shape[d], descending)  # Note [Selection by quickselect]
    if fast is not None:
        return Sort(E.wrap(fast[0], self._dtype), _make(fast[1], D.int64))
    idx = argsort_np(a, d, descending)
    return _pair(self, np.take_along_axis(a, idx, d), idx, Sort)


_SORT_BW = {"self": lambda grad, self, dim, result1: _select_bw(grad, self, dim, True, result1)}
sort, sort_out = _decl(
    "sort.stable(Tensor self, *, bool? stable, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)",
    _sort_cpu, _SORT_BW, mode="exact", nout=2, node_name="SortBackward1",
    out="sort.values_stable(Tensor self, *, bool? stable, int dim=-1, bool descending=False, Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)",
)  # fmt: skip

_SORT0_BW = {"self": lambda grad, self, dim, result1: _select_bw(grad, self, dim, True, result1)}
sort_default, sort_values = _decl(
    "sort(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)",
    lambda self, dim, descending: _sort_cpu(self, None, dim, descending), _SORT0_BW, mode="exact", nout=2,
    node_name="SortBackward0",
    out="sort.values(Tensor self, int dim=-1, bool descending=False, *, Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)",
)  # fmt: skip


def _sort(input, dim, descending, stable, out):
    """``(values, indices)`` sorted along ``dim``; always stable here. NaN sorts last
    (first when ``descending``).

    >>> numtorch.tensor([3, 1, 2]).sort()
    torch.return_types.sort(
    values=tensor([1, 2, 3]),
    indices=tensor([1, 2, 0]))
    """
    if stable is None:  # PyTorch's overload without stable (its mode log shows sort.default)
        return _call(sort_default, sort_values, [input, dim, descending], out)
    return _call(sort, sort_out, [input, stable, dim, descending], out)


_fn("sort", "input, dim=-1, descending=False, *, stable=None, out=None", _sort)

argsort = defop(
    "argsort.stable(Tensor self, *, bool stable, int dim=-1, bool descending=False) -> Tensor",
    cpu=lambda self, stable, dim, descending: _sort_cpu(self, stable, dim, descending).indices,
)  # fmt: skip


def _argsort(input, dim, descending, stable):
    """The indices that sort ``input`` along ``dim`` (stable).

    >>> numtorch.tensor([3, 1, 2]).argsort(descending=True)
    tensor([0, 2, 1])
    """
    return dispatch(argsort, [input, bool(stable), dim, descending])


_fn("argsort", "input, dim=-1, descending=False, *, stable=False", _argsort)


def _msort_out(self, out):
    from ..._factory_utils import write_out

    return write_out(out, dispatch(sort, [self, False, 0, False]).values._data)


msort = defop("msort(Tensor self) -> Tensor",
              composite=lambda self: dispatch(sort, [self, False, 0, False]).values)  # fmt: skip
msort_out = defop("msort.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", composite=_msort_out)


def _msort(input, out):
    """``input`` sorted along its first dimension (the values of ``sort(input, dim=0)``).

    >>> numtorch.tensor([[3, 1], [2, 4]]).msort()
    tensor([[2, 1],
            [3, 4]])
    """
    return _call(msort, msort_out, [input], out)


_fn("msort", "input, *, out=None", _msort)


# ---- topk, kthvalue -----------------------------------------------------------------------
def _int_k(name, k):
    # PyTorch's argument parser refuses a float or bool k before the kernel (whose Numba typing
    # error a float reached); the position is torch.<name>'s
    if k.__class__ is bool or not isinstance(k, (int, np.integer)):
        raise TypeError(f"{name}(): argument 'k' (position 2) must be int, not {type(k).__name__}")
    return int(k)


def _topk_cpu(self, k, dim, largest, sorted):
    k = _int_k("topk", k)
    a, d = _prep(self, dim, "topk")
    if self._dtype is D.bool:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    n = a.shape[d]
    if not 0 <= k <= n:
        raise RuntimeError("selected index k out of range")
    if self._data.ndim == 0:  # PyTorch copies a 0-d input whatever k (0 or 1)
        return _pair(self, a.reshape(()).copy(), np.zeros((), np.int64), TopK, keep_shape=False)
    fast = F.topk(a, d, k, largest)
    if fast is not None:
        return TopK(E.wrap(fast[0], self._dtype), _make(fast[1], D.int64))
    if k < n and n >= _TOPK_PARTITION:
        part = np.argpartition(a, n - k if largest else k - 1, axis=d)
        sel = np.take(part, range(n - k, n) if largest else range(k), axis=d)
        order = argsort_np(np.take_along_axis(a, sel, d), d, largest)
        idx = np.take_along_axis(sel, order, d)
    else:
        idx = np.take(argsort_np(a, d, largest), range(k), axis=d)
    vals = np.take_along_axis(a, idx, d)
    if self._data.ndim == 0:
        vals, idx = vals.reshape(()), idx.reshape(())
    return _pair(self, vals, idx, TopK, keep_shape=False)


topk, topk_out = _decl(
    "topk(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True) -> (Tensor values, Tensor indices)",
    _topk_cpu, _SORT_BW, mode="exact", nout=2,
    out="topk.values(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True, *, Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)",
)  # fmt: skip


def _topk(input, k, dim, largest, sorted, out):
    """The ``k`` largest (or smallest) elements along ``dim`` and their indices.

    >>> numtorch.tensor([1, 5, 3]).topk(2).values
    tensor([5, 3])
    """
    return _call(topk, topk_out, [input, k, dim, largest, sorted], out)


_fn("topk", "input, k, dim=-1, largest=True, sorted=True, *, out=None", _topk)


def _stable_kth(a: np.ndarray, d: int, k: int) -> np.ndarray:
    """The index a stable sort puts at position ``k`` along ``d`` (keepdims), in O(n): select
    the value with argpartition, then take the right occurrence among its equals."""
    v = np.take_along_axis(a, np.take(np.argpartition(a, k, axis=d), [k], axis=d), d)
    rank = k - (a < v).sum(axis=d, keepdims=True)
    return np.argmax(np.cumsum(a == v, axis=d) > rank, axis=d, keepdims=True)


def _select(self, dim, keepdim, cls, pick, name, kernel="", how=None, k=0):
    """The element at sorted position ``pick(n, nan_count)`` of each row along ``dim``: one
    argpartition (O(n)) when that position is the same for every row and there is no NaN (a
    NaN result must be the first NaN), else a stable sort."""
    a, d = _prep(self, dim, name, kernel)
    if a.size == 0 and a.shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    fast = F.kth(self._data, d, how, k, keepdim) if how is not None else None
    if fast is not None:  # Note [Selection by quickselect]
        return cls(E.wrap(fast[0], self._dtype), _make(fast[1], D.int64))
    shape = list(a.shape)
    shape[d] = 1
    nans = (
        np.isnan(a).sum(axis=d, keepdims=True) if a.dtype.kind == "f" else np.zeros(shape, np.int64)
    )
    pos = np.broadcast_to(pick(a.shape[d], nans), shape).astype(np.int64)
    if a.size == 0:
        idx = np.zeros(shape, np.int64)
    elif not nans.any() and np.all(pos == pos.flat[0]):
        idx = _stable_kth(a, d, int(pos.flat[0]))
    else:
        idx = np.take_along_axis(argsort_np(a, d, False), pos, d)
    vals = np.take_along_axis(a, idx, d)
    if not keepdim or self._data.ndim == 0:
        vals, idx = vals.squeeze(d), idx.squeeze(d)
        if self._data.ndim == 0:
            vals, idx = vals.reshape(()), idx.reshape(())
    return _pair(self, vals, idx, cls, keep_shape=False)


def _kthvalue_cpu(self, k, dim, keepdim):
    # PyTorch's order: the dim (a 0-d input's too), an empty slice, k; then a 0-d input returns
    # before any dtype check
    k = _int_k("kthvalue", k)
    d = E.wrap_dim(dim, self._data.ndim)
    n = self._data.shape[d] if self._data.ndim else 1
    if n == 0:
        raise IndexError(f"kthvalue(): Expected reduction dim {d} to have non-zero size.")
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    if self._data.ndim == 0:
        return KthValue(
            E.wrap(self._data.copy(), self._dtype), _make(np.zeros((), np.int64), D.int64)
        )
    return _select(
        self,
        dim,
        keepdim,
        KthValue,
        lambda n, nans: np.full(nans.shape, k - 1),
        "kthvalue",
        "kthvalue_cpu",
        how=0,
        k=k - 1,
    )


kthvalue, kthvalue_out = _decl(
    "kthvalue(Tensor self, SymInt k, int dim=-1, bool keepdim=False) -> (Tensor values, Tensor indices)",
    _kthvalue_cpu, {"self": lambda grad, self, dim, keepdim, result1: _select_bw(grad, self, dim, keepdim, result1)},
    mode="indices", nout=2,
    out="kthvalue.values(Tensor self, SymInt k, int dim=-1, bool keepdim=False, *, Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)",
)  # fmt: skip


def _kthvalue(input, k, dim, keepdim, out):
    """The ``k``-th smallest element along ``dim`` (1-based) and its index.

    >>> numtorch.tensor([4, 1, 3]).kthvalue(2).values
    tensor(3)
    """
    return _call(kthvalue, kthvalue_out, [input, k, dim, keepdim], out)


_fn("kthvalue", "input, k, dim=-1, keepdim=False, *, out=None", _kthvalue)


# ---- median, nanmedian --------------------------------------------------------------------
def _median_pos(n, nans):
    # the lower median; a row with NaN gives its first NaN (the first NaN of a stable sort)
    return np.where(nans > 0, n - nans, (n - 1) // 2)


def _nanmedian_pos(n, nans):
    valid = n - nans
    return np.where(valid > 0, (valid - 1) // 2, 0)


_KERNEL_DTYPES = (D.float32, D.float64, D.int32, D.int64)  # the kernels' closed set (STYLE.md rule 5)


def _median_dim_checks(self, dim, keepdim):
    # median_with_indices_impl's order: the dim, an empty slice, out='s dtypes, then the kernel's
    d = E.wrap_dim(dim, self._data.ndim)
    if self._data.size == 0 and self._data.shape[d] == 0:
        raise IndexError(f"median(): Expected reduction dim {d} to have non-zero size.")


def _declare_median(name, pick, cls):
    def dim_cpu(self, dim, keepdim):
        _median_dim_checks(self, dim, keepdim)
        how = 2 if pick is _nanmedian_pos else 1
        return _select(self, dim, keepdim, cls, pick, "median", "median_out", how=how)

    def all_cpu(self):
        if self._data.size == 0:  # before the dtype check: torch's NaN cast to any dtype (bool: True)
            with np.errstate(invalid="ignore"):
                return _make(np.array(np.nan).astype(self._dtype.np), self._dtype)
        _prep(self, 0, "median", "median_cpu")
        if self._dtype in _KERNEL_DTYPES:  # one quickselect kernel: ~20x less than _select's NumPy calls
            flat = self._data.reshape(-1)
            if flat.size >= _M.NP_MIN:  # Note [Whole-tensor median by NumPy's partition]
                v = _M.lower_median(flat, pick is _nanmedian_pos)
            else:
                v = K.lower_median(flat, pick is _nanmedian_pos)
            return _make(np.array(v, self._dtype.np), self._dtype)
        flat = E.wrap(self._data.reshape(-1), self._dtype)
        return _select(flat, 0, False, cls, pick, "median").values

    op_all, op_all_out = _decl(f"{name}(Tensor self) -> Tensor", all_cpu,
                               {"self": lambda grad, self, result: _evenly(grad, self, result)},
                               out=f"{name}.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", mode="same")  # fmt: skip
    op, op_out = _decl(
        f"{name}.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
        dim_cpu, {"self": lambda grad, self, dim, keepdim, result1: _select_bw(grad, self, dim, keepdim, result1)},
        mode="legacy", nout=2, pre=_median_dim_checks,
        out=f"{name}.dim_values(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)",
    )  # fmt: skip

    def body(input, dim, keepdim, out):
        if dim is None:
            return _call(op_all, op_all_out, [input], out)
        return _call(op, op_out, [input, dim, keepdim], out)

    ignoring = " ignoring NaN" if name == "nanmedian" else "; NaN propagates"
    body.__doc__ = f"""The lower median (of all elements, or ``(values, indices)`` along ``dim``){ignoring}.

    >>> numtorch.tensor([4.0, 1.0, 3.0, 2.0]).{name}()
    tensor(2.)
    """
    _fn(name, "input, dim=None, keepdim=False, *, out=None", body)


_declare_median("median", _median_pos, Median)
_declare_median("nanmedian", _nanmedian_pos, NanMedian)


# ---- mode ---------------------------------------------------------------------------------
def _mode_cpu(self, dim, keepdim):
    if self._data.ndim == 0:  # PyTorch returns a 0-d input before any dtype check
        E.wrap_dim(dim, 0)
        return Mode(E.wrap(self._data.copy(), self._dtype), _make(np.zeros((), np.int64), D.int64))
    if self._data.size == 0:  # the dim, an empty slice, then an empty result before the dtype check
        d = E.wrap_dim(dim, self._data.ndim)
        if self._data.shape[d] == 0:
            raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
        shape = list(self._data.shape)
        shape[d : d + 1] = [1] if keepdim else []
        return Mode(_make(np.empty(shape, self._dtype.np), self._dtype), _make(np.empty(shape, np.int64), D.int64))
    E.wrap_dim(dim, self._data.ndim)  # the dim before the dtype (seed 302)
    a, d = _prep(self, dim, "mode", "mode_cpu" if self._dtype.category == D._COMPLEX else "")
    fast = F.mode(self._data, d, keepdim)
    if fast is not None:  # Note [Selection by quickselect]
        return Mode(E.wrap(fast[0], self._dtype), _make(fast[1], D.int64))
    moved = np.moveaxis(a, d, -1)
    R = moved.shape[-1]
    outer = moved.size // R if R else 0
    order = np.ascontiguousarray(argsort_np(moved, moved.ndim - 1, False))
    sv = E.kernel_input(np.ascontiguousarray(np.take_along_axis(moved, order, -1)))
    vals = np.empty(outer, sv.dtype)
    idx = np.empty(outer, np.int64)
    if outer:
        E.K.mode_rows(sv.reshape(-1), order.reshape(-1), vals, idx, outer, R)
    shape = moved.shape[:-1]
    vals, idx = vals.reshape(shape), idx.reshape(shape)
    if keepdim and self._data.ndim:
        vals, idx = np.expand_dims(vals, d), np.expand_dims(idx, d)
    return _pair(self, vals, idx, Mode, keep_shape=False)


mode, mode_out = _decl(
    "mode(Tensor self, int dim=-1, bool keepdim=False) -> (Tensor values, Tensor indices)",
    _mode_cpu, {"self": lambda grad, self, dim, keepdim, result1: _select_bw(grad, self, dim, keepdim, result1)},
    mode="exact_first", nout=2, out_text="expected scalar type '{want}' but got '{got}' for {which} output",
    out="mode.values(Tensor self, int dim=-1, bool keepdim=False, *, Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)",
)  # fmt: skip


def _mode(input, dim, keepdim, out):
    """The most frequent value along ``dim`` (the smallest on ties) and its last index.

    >>> numtorch.tensor([1, 2, 2, 3]).mode()
    torch.return_types.mode(
    values=tensor(2),
    indices=tensor(2))
    """
    return _call(mode, mode_out, [input, dim, keepdim], out)


_fn("mode", "input, dim=-1, keepdim=False, *, out=None", _mode)


# ---- unique -------------------------------------------------------------------------------
def _unique_np(self, dim, return_inverse, return_counts):
    a = self._data
    if self._dtype.category == D._COMPLEX:
        raise RuntimeError("unique: complex input is not supported")
    if dim is None:
        u, inv, cnt = np.unique(
            a.reshape(-1), return_inverse=True, return_counts=True, equal_nan=False
        )
        inv = inv.reshape(a.shape)
    else:
        if a.ndim == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        d = E.wrap_dim(dim, a.ndim)
        if a.size == 0:
            # at::unique_dim: exactly one empty dim, and it must be the one selected
            if a.shape.count(0) != 1:
                raise RuntimeError("Number of zero sized dimensions is more than one, so unique cannot be applied ")
            if a.shape[d] != 0:
                raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique cannot be applied")
        u, inv, cnt = np.unique(a, return_inverse=True, return_counts=True, axis=d)
        inv = inv.reshape(-1)
    return (E.wrap(np.ascontiguousarray(u), self._dtype),
            _make(inv.astype(np.int64) if return_inverse else np.zeros(0, np.int64), D.int64),
            _make(cnt.astype(np.int64) if return_counts else np.zeros(0, np.int64), D.int64))  # fmt: skip


unique2 = defop(
    "_unique2(Tensor self, bool sorted=True, bool return_inverse=False, bool return_counts=False) -> (Tensor, Tensor, Tensor)",
    cpu=lambda self, sorted, return_inverse, return_counts: _unique_np(self, None, return_inverse, return_counts),
)  # fmt: skip
unique_dim = defop(
    "unique_dim(Tensor self, int dim, bool sorted=True, bool return_inverse=False, bool return_counts=False) -> (Tensor, Tensor, Tensor)",
    cpu=lambda self, dim, sorted, return_inverse, return_counts: _unique_np(self, dim, return_inverse, return_counts),
)  # fmt: skip


def _unique(input, sorted, return_inverse, return_counts, dim):
    """The sorted unique elements (or slices along ``dim``), optionally with the inverse
    indices and the counts.

    >>> numtorch.tensor([3, 1, 3]).unique(return_counts=True)
    (tensor([1, 3]), tensor([1, 2]))
    """
    if dim is None:
        u, inv, cnt = dispatch(unique2, [input, sorted, return_inverse, return_counts])
    else:
        u, inv, cnt = dispatch(unique_dim, [input, dim, sorted, return_inverse, return_counts])
    if not return_inverse and not return_counts:
        return u
    return (u,) + ((inv,) if return_inverse else ()) + ((cnt,) if return_counts else ())


_fn("unique", "input, sorted=True, return_inverse=False, return_counts=False, dim=None", _unique)
