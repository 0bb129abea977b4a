"""Linear algebra: ``core`` (products, einsum, tensordot, norms, inv/det), ``solve``, ``decomp``
(cholesky, eigh, svd, pinv, lstsq), ``products`` (multi_dot, ...), ``qr``, ``derived`` (composites:
vecdot, cond, matrix_rank, matrix_exp, solve_triangular, the ``*_ex`` variants ...); ``_contract``
holds the shape checks and einsum parsing that ``core`` uses."""

from . import core, solve, decomp, products, qr, derived  # noqa: F401
