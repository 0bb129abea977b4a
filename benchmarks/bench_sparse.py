"""Sparse COO @ dense (``torch.sparse.mm``), coalesce and to_dense, beside PyTorch's CPU kernels."""

from __future__ import annotations

import functools

import numpy as np

from .common import LIBS, Benchmark, lib, pending, tensor, warm

COVERS = {"_sparse_mm", "_coalesce", "to_dense", "_sparse_sum"}


def sparse(L, n: int, nnz: int, seed: int = 0):
    """A fixed-seed uncoalesced (n, n) float32 COO matrix with ``nnz`` entries in library ``L``."""
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, (2, nnz))
    vals = rng.standard_normal(nnz).astype(np.float32)
    return L.sparse_coo_tensor(L.from_numpy(idx), L.from_numpy(vals), (n, n), check_invariants=True)


class SparseMM(Benchmark):
    """``torch.sparse.mm`` of a coalesced (n, n) matrix with a dense (n, 64) one."""

    params = [[(1000, 10_000), (20_000, 200_000)], LIBS]
    param_names = ["n_nnz", "lib"]

    def setup(self, n_nnz, libname):
        L = lib(libname)
        n, nnz = n_nnz
        with pending():
            s = sparse(L, n, nnz).coalesce()
            self.fn = functools.partial(L.sparse.mm, s, tensor((n, 64), L=L))
        warm(self.fn)

    def time_sparse_mm(self, n_nnz, libname):
        self.fn()


class Coalesce(Benchmark):
    """``coalesce()`` and ``to_dense()`` of an uncoalesced (n, n) matrix."""

    params = [[(1000, 10_000), (20_000, 200_000)], LIBS]
    param_names = ["n_nnz", "lib"]

    def setup(self, n_nnz, libname):
        L = lib(libname)
        with pending():
            self.s = sparse(L, *n_nnz)
        warm(self.s.coalesce)

    def time_coalesce(self, n_nnz, libname):
        self.s.coalesce()

    def time_sparse_sum(self, n_nnz, libname):
        lib(libname).sparse.sum(self.s, 0)
