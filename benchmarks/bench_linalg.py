"""Matrix products (BLAS through NumPy). Target: >= 0.9x PyTorch's GFLOP/s."""

from __future__ import annotations

import functools

from .common import FLOATS, LIBS, Benchmark, lib, pending, resolve, tensor, warm

COVERS = {"matmul", "mm", "bmm", "mv", "dot", "addmm", "linear"}


class Matmul(Benchmark):
    """``a @ b`` on square matrices."""

    params = [[128, 512, 1024], FLOATS, LIBS]
    param_names = ["n", "dtype", "lib"]

    def setup(self, n, dtype, libname):
        L = lib(libname)
        a = tensor((n, n), dtype, L=L)
        b = tensor((n, n), dtype, L=L, seed=5)
        with pending():
            self.fn = functools.partial(L.matmul, a, b)
        warm(self.fn)

    def time_matmul(self, n, dtype, libname):
        self.fn()


class Bmm(Benchmark):
    """``torch.bmm`` on (32, 128, 128) batches."""

    params = [[(32, 128, 128), (256, 32, 32)], LIBS]
    param_names = ["shape", "lib"]

    def setup(self, shape, libname):
        L = lib(libname)
        a, b = tensor(shape, L=L), tensor(shape, L=L, seed=5)
        with pending():
            self.fn = functools.partial(L.bmm, a, b)
        warm(self.fn)

    def time_bmm(self, shape, libname):
        self.fn()


PRODUCTS = ["mm", "mv", "dot", "vdot", "addmm", "addmv", "addbmm", "baddbmm", "linear", "outer",
            "ger", "kron", "cross", "einsum", "tensordot", "trace"]  # fmt: skip
COVERS |= set(PRODUCTS)


def _product_args(op):
    """Arguments for ``op`` on a 512 problem (batched ones: 8 x 128, kron: 32 x 32)."""
    m, m2 = tensor((512, 512)), tensor((512, 512), seed=6)
    v, v2 = tensor((512,), seed=5), tensor((512,), seed=8)
    b1, b2 = tensor((8, 128, 128), seed=9), tensor((8, 128, 128), seed=10)
    return {
        "mm": (m, m2),
        "mv": (m, v),
        "dot": (v, v2),
        "vdot": (v, v2),
        "addmm": (v, m, m2),
        "addmv": (v, m, v2),
        "addbmm": (tensor((128, 128), seed=11), b1, b2),
        "baddbmm": (tensor((8, 128, 128), seed=11), b1, b2),
        "linear": (tensor((128, 512), seed=7), m, v),
        "outer": (v, v2),
        "ger": (v, v2),
        "kron": (tensor((32, 32)), tensor((32, 32), seed=5)),
        "cross": (tensor((4096, 3)), tensor((4096, 3), seed=5), 1),
        "einsum": ("ij,jk->ik", m, m2),
        "tensordot": (m, m2, 1),
        "trace": (m,),
    }[op]


class Products(Benchmark):
    """The other products and contractions."""

    params = [PRODUCTS]
    param_names = ["op"]

    def setup(self, op):
        fn = resolve("nn.functional.linear" if op == "linear" else op)
        self.fn = functools.partial(fn, *_product_args(op))
        warm(self.fn)

    def time_product(self, op):
        self.fn()


DECOMPS = ["linalg.cholesky", "linalg.eigh", "linalg.svd", "linalg.pinv", "linalg.lstsq", "cdist", "block_diag"]
COVERS |= {"linalg_cholesky", "linalg_eigh", "linalg_svd", "linalg_pinv", "linalg_lstsq", "cdist", "block_diag"}


def _decomp_args(op, L):
    """A 128 x 128 problem (cdist: 256 x 32 points against 128 x 32)."""
    a = tensor((128, 128), "float64", L=L)
    if op == "linalg.cholesky":
        return (a @ a.mT + 128 * L.eye(128, dtype=L.float64),)
    if op == "linalg.eigh":
        return (a + a.mT,)
    if op == "linalg.lstsq":
        return (a, tensor((128, 4), "float64", L=L, seed=5))
    if op == "cdist":
        return (tensor((256, 32), L=L), tensor((128, 32), L=L, seed=5))
    if op == "block_diag":
        return tuple(tensor((32, 32), L=L, seed=s) for s in range(4))
    return (a,)


class Decompositions(Benchmark):
    """Factorizations (LAPACK through NumPy), pairwise distances and block_diag."""

    params = [DECOMPS, LIBS]
    param_names = ["op", "lib"]

    def setup(self, op, libname):
        L = lib(libname)
        self.fn = functools.partial(resolve(op, L), *_decomp_args(op, L))
        warm(self.fn)

    def time_decomposition(self, op, libname):
        self.fn()
