"""Linear algebra: ``core`` (products, einsum, tensordot, norms, inv/det), ``solve``, ``decomp``
(cholesky, eigh, svd, pinv, lstsq), ``products`` (multi_dot, ...), ``qr``, ``derived`` (composites:
vecdot, cond, matrix_rank, matrix_exp, solve_triangular, the ``*_ex`` variants ...), ``legacy``
(addr, chain_matmul, cholesky_solve, pdist ...), ``ldl`` (Bunch-Kaufman); ``meta`` their meta-device
rules; ``cross`` cross products and trace; ``_contract`` holds the shape checks and einsum parsing that ``core`` uses."""

from . import core, cross, solve, decomp, products, qr, derived, legacy, lu, eig, householder, ldl  # noqa: F401
from . import meta  # noqa: F401,E402  (the meta rules of the above: Note [Linalg meta rules])
