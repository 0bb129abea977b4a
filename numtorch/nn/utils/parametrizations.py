"""Built-in parametrizations, mirroring ``torch.nn.utils.parametrizations``: ``orthogonal``,
``weight_norm`` and ``spectral_norm`` (each registered through parametrize.py).

# Note [Orthogonal maps are composites]
# numtorch has no matrix_exp, householder_product or geqrf op yet, so the maps below are written
# with numtorch ops (autograd reaches the original through them): the matrix exponential by
# scaling and squaring of an 18-term Taylor sum (error below float64 epsilon once ||A||_1 <= 1),
# the Householder product as k reflections, and QR-based re-orthogonalisation through
# linalg.qr with R's diagonal made positive, which is the matrix PyTorch's geqrf path returns.
"""

from __future__ import annotations

import math
from enum import Enum, auto

import numpy as np

import numtorch

from ..._tensor import Tensor
from .. import functional as F
from ..modules.module import Module
from . import parametrize

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


def _is_orthogonal(Q) -> bool:
    n, k = Q.size(-2), Q.size(-1)
    Id = numtorch.eye(k, dtype=Q.dtype, device=Q.device)
    eps = 10.0 * n * numtorch.finfo(Q.dtype).eps
    return numtorch.allclose(Q.mH @ Q, Id, atol=eps)


def _make_orthogonal(A):
    Q, R = numtorch.linalg.qr(A)
    return Q * R.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)


def _matrix_exp(A):
    norm = float(A.detach().abs().sum(-2).max()) if A.numel() else 0.0
    s = max(0, math.ceil(math.log2(norm))) if norm > 1 else 0
    B = A / (2.0**s)
    Id = numtorch.eye(A.size(-1), dtype=A.dtype, device=A.device).expand_as(A)
    term, out = Id, Id
    for i in range(1, 19):
        term = (term @ B) / i
        out = out + term
    for _ in range(s):
        out = out @ out
    return out


def _householder_product(A, tau):
    n, k = A.size(-2), A.size(-1)
    Id = numtorch.eye(n, dtype=A.dtype, device=A.device)
    Q = Id.expand(*A.shape[:-2], n, n)
    rows = numtorch.arange(n, device=A.device)
    for i in range(k):
        v = numtorch.where(rows == i, 1.0, numtorch.where(rows > i, A[..., :, i], 0.0)).to(A.dtype)
        H = Id - tau[..., i, None, None] * (v.unsqueeze(-1) @ v.conj().unsqueeze(-2))
        Q = Q @ H
    return Q[..., :, :k]


def _geqrf(Q):
    h, tau = np.linalg.qr(Q.detach().numpy(), mode="raw")
    return numtorch.from_numpy(np.ascontiguousarray(np.swapaxes(h, -1, -2))), numtorch.from_numpy(tau)


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


class _Orthogonal(Module):
    def __init__(self, weight, orthogonal_map: _OrthMaps, *, use_trivialization=True) -> None:
        super().__init__()
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X: Tensor) -> Tensor:
        n, k = X.size(-2), X.size(-1)
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            X = X.tril()
            if n != k:
                X = numtorch.cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mH
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                Q = _matrix_exp(A)
            else:
                Id = numtorch.eye(n, dtype=A.dtype, device=A.device)
                Q = numtorch.linalg.solve(numtorch.add(Id, A, alpha=-0.5), numtorch.add(Id, A, alpha=0.5))
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = _householder_product(A, tau)
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            Q = self.base @ Q
        return Q.mT if transposed else Q

    def right_inverse(self, Q: Tensor) -> Tensor:
        with numtorch.no_grad():
            return self._right_inverse(Q)

    def _right_inverse(self, Q):
        if Q.shape != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. Got a tensor of shape "
                             f"{Q.shape}.")  # fmt: skip
        Q_init = Q
        n, k = Q.size(-2), Q.size(-1)
        transpose = n < k
        if transpose:
            Q = Q.mT
            n, k = k, n
        if not hasattr(self, "base"):
            if self.orthogonal_map in (_OrthMaps.cayley, _OrthMaps.matrix_exp):
                raise NotImplementedError("It is not possible to assign to the matrix exponential or the Cayley "
                                          "parametrizations when use_trivialization=False.")  # fmt: skip
            A, tau = _geqrf(Q)
            d = A.diagonal(dim1=-2, dim2=-1)
            d.copy_(numtorch.where(tau == 0.0, -d.sign(), d.sign()))
            return (A.mT if transpose else A).to(Q_init.dtype)
        if n == k:
            Q = _make_orthogonal(Q) if not _is_orthogonal(Q) else Q.clone()
        else:
            N = numtorch.randn(*(Q.size()[:-2] + (n, n - k)), dtype=Q.dtype, device=Q.device)
            Q = _make_orthogonal(numtorch.cat([Q, N], dim=-1))
        self.base = Q
        neg_Id = numtorch.zeros_like(Q_init)
        neg_Id.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return neg_Id


def orthogonal(module: Module, name: str = "weight", orthogonal_map: str | None = None, *,
               use_trivialization: bool = True) -> Module:  # fmt: skip
    """Constrain ``module.<name>`` to (semi-)orthogonal matrices (Note [Orthogonal maps are composites]).

    >>> m = orthogonal(numtorch.nn.Linear(4, 3, dtype=numtorch.float64))
    >>> bool(numtorch.allclose(m.weight @ m.weight.T, numtorch.eye(3, dtype=numtorch.float64)))
    True
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        square = weight.size(-2) == weight.size(-1)
        orthogonal_map = "matrix_exp" if square or weight.is_complex() else "householder"
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")  # fmt: skip
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module


def _norm_except_dim(v, dim):
    if dim == -1:
        return v.norm()
    dims = [d for d in range(v.dim()) if d != dim]
    return v.norm(dim=dims, keepdim=True) if dims else v.abs()


class _WeightNorm(Module):
    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return weight_v * (weight_g / _norm_except_dim(weight_v, self.dim))

    def right_inverse(self, weight):
        return _norm_except_dim(weight, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: int = 0):
    """Reparametrize ``module.<name>`` as magnitude ``original0`` times direction ``original1 / ||original1||``.

    >>> m = weight_norm(numtorch.nn.Linear(3, 2))
    >>> [tuple(p.shape) for p in m.parametrizations.weight.parameters()]
    [(2, 1), (2, 3)]
    """
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def _weight_norm_compat_hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                 error_msgs) -> None:  # fmt: skip
        # state dicts saved with the old nn.utils.weight_norm use name_g / name_v
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            state_dict[f"{prefix}parametrizations.{name}.original0"] = state_dict.pop(g_key)
            state_dict[f"{prefix}parametrizations.{name}.original1"] = state_dict.pop(v_key)

    module._register_load_state_dict_pre_hook(_weight_norm_compat_hook)
    return module


class _SpectralNorm(Module):
    def __init__(self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")  # fmt: skip
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            u = weight_mat.new_empty(h).normal_(0, 1)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat: Tensor, n_power_iterations: int) -> None:
        # in place on the buffers, under no_grad: u and v are estimates, not part of the graph
        with numtorch.no_grad():
            for _ in range(n_power_iterations):
                self._u = F.normalize(numtorch.mv(weight_mat, self._v), dim=0, eps=self.eps, out=self._u)
                self._v = F.normalize(numtorch.mv(weight_mat.H, self._u), dim=0, eps=self.eps, out=self._v)

    def forward(self, weight: Tensor) -> Tensor:
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u = self._u.clone(memory_format=numtorch.contiguous_format)
        v = self._v.clone(memory_format=numtorch.contiguous_format)
        sigma = numtorch.vdot(u, numtorch.mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value: Tensor) -> Tensor:
        return value


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12,
                  dim: int | None = None) -> Module:  # fmt: skip
    """Divide ``module.<name>`` by its spectral norm, estimated by power iteration in training mode.

    >>> m = spectral_norm(numtorch.nn.Linear(20, 40))
    >>> sorted(m.parametrizations.weight.original.shape), m.parametrizations.weight[0]._u.shape
    ([20, 40], torch.Size([40]))
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        transposed = (numtorch.nn.ConvTranspose1d, numtorch.nn.ConvTranspose2d, numtorch.nn.ConvTranspose3d)
        dim = 1 if isinstance(module, transposed) else 0
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
