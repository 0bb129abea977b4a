"""Structural transforms, as PyTorch builds them: ReshapeTransform, CatTransform, StackTransform,
LowerCholeskyTransform, PositiveDefiniteTransform, CorrCholeskyTransform (Lewandowski, Kurowicka
and Joe's onion construction) and CumulativeDistributionTransform; re-exported by transforms.py."""

from __future__ import annotations

import math

from . import constraints
from .transforms import Transform, _sum_rightmost
from .utils import lazy_property


def _nt():
    import numtorch

    return numtorch


def _tril_index(n, diag):
    nt = _nt()
    r = nt.arange(n)
    return (r < r.view(-1, 1) + (diag + 1)).reshape(-1).nonzero().reshape(-1)


def vec_to_tril_matrix(vec, diag=0):
    """The lower triangle (below ``diag``) of a square matrix filled row by row from ``vec``."""
    nt = _nt()
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * vec.shape[-1] + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    if abs(round(n) - n) > nt.finfo(vec.dtype).eps:
        raise ValueError("The size of last dimension is not a triangular number.")
    n = round(n)
    sel = nt.zeros(vec.shape[-1], n * n, dtype=vec.dtype)
    idx = _tril_index(n, diag)
    sel[nt.arange(idx.shape[0]), idx] = 1.0
    return vec.matmul(sel).reshape(*vec.shape[:-1], n, n)  # a 0/1 product: differentiable in vec


def tril_matrix_to_vec(mat, diag=0):
    """The entries of ``mat``'s lower triangle (below ``diag``), row by row."""
    n = mat.shape[-1]
    return mat.reshape(*mat.shape[:-2], n * n).index_select(-1, _tril_index(n, diag))


class ReshapeTransform(Transform):
    """Reshape the rightmost ``in_shape`` dims to ``out_shape`` (unit Jacobian)."""

    bijective = True

    def __init__(self, in_shape, out_shape, cache_size: int = 0):
        nt = _nt()
        self.in_shape, self.out_shape = nt.Size(in_shape), nt.Size(out_shape)
        if self.in_shape.numel() != self.out_shape.numel():
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size=cache_size)

    @constraints.dependent_property
    def domain(self):
        return constraints.independent(constraints.real, len(self.in_shape))

    @constraints.dependent_property
    def codomain(self):
        return constraints.independent(constraints.real, len(self.out_shape))

    def with_cache(self, cache_size=1):
        return self if self._cache_size == cache_size else ReshapeTransform(self.in_shape, self.out_shape, cache_size)

    def _call(self, x):
        return x.reshape(x.shape[: x.dim() - len(self.in_shape)] + self.out_shape)

    def _inverse(self, y):
        return y.reshape(y.shape[: y.dim() - len(self.out_shape)] + self.in_shape)

    def log_abs_det_jacobian(self, x, y):
        return x.new_zeros(x.shape[: x.dim() - len(self.in_shape)])

    def _reshape(self, shape, src, dst):
        if len(shape) < len(src):
            raise ValueError("Too few dimensions on input")
        cut = len(shape) - len(src)
        if shape[cut:] != src:
            raise ValueError(f"Shape mismatch: expected {shape[cut:]} but got {src}")
        return shape[:cut] + dst

    def forward_shape(self, shape):
        return self._reshape(shape, self.in_shape, self.out_shape)

    def inverse_shape(self, shape):
        return self._reshape(shape, self.out_shape, self.in_shape)


class LowerCholeskyTransform(Transform):
    """Unconstrained matrices to lower-triangular ones with positive diagonal (exp on it)."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def __eq__(self, other):
        return isinstance(other, LowerCholeskyTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).exp().diag_embed()

    def _inverse(self, y):
        return y.tril(-1) + y.diagonal(dim1=-2, dim2=-1).log().diag_embed()


class PositiveDefiniteTransform(Transform):
    """Unconstrained matrices to positive-definite ones: ``L L^T`` of LowerCholeskyTransform's L."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def __eq__(self, other):
        return isinstance(other, PositiveDefiniteTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        x = LowerCholeskyTransform()(x)
        return x @ x.mT

    def _inverse(self, y):
        return LowerCholeskyTransform().inv(_nt().linalg.cholesky(y))


class CumulativeDistributionTransform(Transform):
    """The cdf of ``distribution`` (its icdf inverts it; log|J| is its log_prob)."""

    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution, cache_size: int = 0):
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self):
        return self.distribution.support

    def _call(self, x):
        return self.distribution.cdf(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x, y):
        return self.distribution.log_prob(x)

    def with_cache(self, cache_size=1):
        return self if self._cache_size == cache_size else CumulativeDistributionTransform(self.distribution, cache_size)


class CorrCholeskyTransform(Transform):
    """A vector of D(D-1)/2 reals to the Cholesky factor of a D x D correlation matrix."""

    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def _call(self, x):
        nt = _nt()
        eps = nt.finfo(x.dtype).eps
        r = vec_to_tril_matrix(nt.tanh(x).clamp(min=-1 + eps, max=1 - eps), diag=-1)
        z1m_cumprod_sqrt = (1 - r**2).sqrt().cumprod(-1)
        r = r + nt.eye(r.shape[-1], dtype=r.dtype)
        ones = nt.ones(*z1m_cumprod_sqrt.shape[:-1], 1, dtype=r.dtype)
        return r * nt.cat([ones, z1m_cumprod_sqrt[..., :-1]], -1)

    def _inverse(self, y):
        nt = _nt()
        y_cumsum = 1 - nt.cumsum(y * y, dim=-1)
        ones = nt.ones(*y_cumsum.shape[:-1], 1, dtype=y.dtype)
        shifted = nt.cat([ones, y_cumsum[..., :-1]], -1)
        t = tril_matrix_to_vec(y, diag=-1) / tril_matrix_to_vec(shifted, diag=-1).sqrt()
        return (t.log1p() - t.neg().log1p()) / 2

    def log_abs_det_jacobian(self, x, y, intermediates=None):
        nt = _nt()
        y1m_cumsum = 1 - (y * y).cumsum(dim=-1)
        stick = 0.5 * tril_matrix_to_vec(y1m_cumsum, diag=-2).log().sum(-1)
        tanh = -2 * (x + nt.nn.functional.softplus(-2 * x) - math.log(2.0)).sum(dim=-1)
        return stick + tanh

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        N = shape[-1]
        D = round((0.25 + 2 * N) ** 0.5 + 0.5)
        if D * (D - 1) // 2 != N:
            raise ValueError("Input is not a flattened lower-diagonal number")
        return shape[:-1] + (D, D)

    def inverse_shape(self, shape):
        if len(shape) < 2:
            raise ValueError("Too few dimensions on input")
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        D = shape[-1]
        return shape[:-2] + (D * (D - 1) // 2,)



class CatTransform(Transform):
    """Apply ``tseq[i]`` to the i-th block (of ``lengths[i]``) along ``dim`` and concatenate."""

    def __init__(self, tseq, dim: int = 0, lengths=None, cache_size: int = 0):
        if not all(isinstance(t, Transform) for t in tseq):
            raise AssertionError("All elements of tseq must be Transform instances")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.lengths = list([1] * len(self.transforms) if lengths is None else lengths)
        if len(self.lengths) != len(self.transforms):
            raise AssertionError(f"lengths ({len(self.lengths)}) must match transforms ({len(self.transforms)})")
        self.dim = dim

    @lazy_property
    def event_dim(self):
        return max(t.event_dim for t in self.transforms)

    @lazy_property
    def length(self):
        return sum(self.lengths)

    def with_cache(self, cache_size=1):
        return self if self._cache_size == cache_size else CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _map(self, x, name, fn):
        if not -x.dim() <= self.dim < x.dim():
            raise AssertionError(f"dim {self.dim} out of range for tensor with {x.dim()} dimensions")
        if x.size(self.dim) != self.length:
            raise AssertionError(f"{name}.size({self.dim}) = {x.size(self.dim)} must equal length {self.length}")
        out, start = [], 0
        for trans, length in zip(self.transforms, self.lengths):
            out.append(fn(trans, x.narrow(self.dim, start, length), start, length))
            start = start + length
        return out

    def _call(self, x):
        return _nt().cat(self._map(x, "x", lambda t, s, *_: t(s)), dim=self.dim)

    def _inverse(self, y):
        return _nt().cat(self._map(y, "y", lambda t, s, *_: t.inv(s)), dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        self._map(y, "y", lambda *a: None)

        def one(t, xs, start, length):
            j = t.log_abs_det_jacobian(xs, y.narrow(self.dim, start, length))
            return _sum_rightmost(j, self.event_dim - t.event_dim) if t.event_dim < self.event_dim else j

        parts = self._map(x, "x", one)
        dim = (self.dim - x.dim() if self.dim >= 0 else self.dim) + self.event_dim
        return _nt().cat(parts, dim=dim) if dim < 0 else sum(parts)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @constraints.dependent_property
    def codomain(self):
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)


class StackTransform(Transform):
    """Apply ``tseq[i]`` to the i-th slice along ``dim`` and stack the results."""

    def __init__(self, tseq, dim: int = 0, cache_size: int = 0):
        if not all(isinstance(t, Transform) for t in tseq):
            raise AssertionError("All elements of tseq must be Transform instances")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.dim = dim

    def with_cache(self, cache_size=1):
        return self if self._cache_size == cache_size else StackTransform(self.transforms, self.dim, cache_size)

    def _slices(self, z, name):
        if not -z.dim() <= self.dim < z.dim():
            raise AssertionError(f"dim {self.dim} out of range for tensor with {z.dim()} dimensions")
        if z.size(self.dim) != len(self.transforms):
            raise AssertionError(f"{name}.size({self.dim}) = {z.size(self.dim)} must equal len(transforms) "
                                 f"{len(self.transforms)}")  # fmt: skip
        return [z.select(self.dim, i) for i in range(z.size(self.dim))]

    def _call(self, x):
        return _nt().stack([t(s) for s, t in zip(self._slices(x, "x"), self.transforms)], dim=self.dim)

    def _inverse(self, y):
        return _nt().stack([t.inv(s) for s, t in zip(self._slices(y, "y"), self.transforms)], dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        xs, ys = self._slices(x, "x"), self._slices(y, "y")
        return _nt().stack([t.log_abs_det_jacobian(a, b) for a, b, t in zip(xs, ys, self.transforms)], dim=self.dim)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @constraints.dependent_property
    def codomain(self):
        return constraints.stack([t.codomain for t in self.transforms], self.dim)
