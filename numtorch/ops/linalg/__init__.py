"""Linear algebra: ``core`` (products, einsum, tensordot, norms, inv/det), ``solve``, ``decomp``
(cholesky, eigh, svd, pinv, lstsq), ``products`` (multi_dot, ...), ``qr``; ``_contract`` holds the
shape checks and einsum parsing that ``core`` uses."""

from . import core, solve, decomp, products, qr  # noqa: F401
