"""The pre-1.9 linear-algebra functions PyTorch removed but still names: ``torch.eig``,
``symeig``, ``lstsq``, ``solve``, ``matrix_rank`` and their Tensor methods raise PyTorch's
RuntimeError, whose text says what replaces each (as torch/_linalg_utils.py does)."""

from __future__ import annotations

_REMOVED = "This function was deprecated since version 1.9 and is now removed."


def matrix_rank(input, tol=None, symmetric=False, *, out=None):  # noqa: A002 - torch's names
    """Removed: use ``numtorch.linalg.matrix_rank`` (``symmetric`` is now ``hermitian``)."""
    raise RuntimeError(
        f"{_REMOVED}\nPlease use the `torch.linalg.matrix_rank` function instead. "
        "The parameter 'symmetric' was renamed in `torch.linalg.matrix_rank()` to 'hermitian'."
    )


def solve(input, A, *, out=None):  # noqa: A002
    """Removed: use ``numtorch.linalg.solve(A, B)`` (arguments reversed)."""
    raise RuntimeError(
        f"{_REMOVED} `torch.solve` is deprecated in favor of `torch.linalg.solve`. "
        "`torch.linalg.solve` has its arguments reversed and does not return the LU factorization.\n\n"
        "To get the LU factorization see `torch.lu`, which can be used with `torch.lu_solve` or `torch.lu_unpack`.\n"
        "X = torch.solve(B, A).solution should be replaced with:\nX = torch.linalg.solve(A, B)"
    )


def lstsq(input, A, *, out=None):  # noqa: A002
    """Removed: use ``numtorch.linalg.lstsq(A, B).solution`` (arguments reversed)."""
    raise RuntimeError(
        f"{_REMOVED} `torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`.\n"
        "`torch.linalg.lstsq` has reversed arguments and does not return the QR decomposition in "
        "the returned tuple (although it returns other information about the problem).\n\n"
        "To get the QR decomposition consider using `torch.linalg.qr`.\n\n"
        "The returned solution in `torch.lstsq` stored the residuals of the solution in the "
        "last m - n columns of the returned value whenever m > n. In torch.linalg.lstsq, "
        "the residuals are in the field 'residuals' of the returned named tuple.\n\n"
        "The unpacking of the solution, as in\nX, _ = torch.lstsq(B, A).solution[:A.size(1)]\n"
        "should be replaced with:\nX = torch.linalg.lstsq(A, B).solution"
    )


def symeig(input, eigenvectors=False, upper=True, *, out=None):  # noqa: A002
    """Removed: use ``numtorch.linalg.eigvalsh`` / ``eigh`` (which read the lower triangle by default)."""
    raise RuntimeError(
        f"{_REMOVED} The default behavior has changed from using the upper triangular portion of the matrix by "
        "default to using the lower triangular portion.\n\nL, _ = torch.symeig(A, upper=upper) "
        "should be replaced with:\nL = torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L')\n\nand\n\n"
        "L, V = torch.symeig(A, eigenvectors=True) should be replaced with:\n"
        "L, V = torch.linalg.eigh(A, UPLO='U' if upper else 'L')"
    )


def eig(self, eigenvectors=False, *, e=None, v=None):
    """Removed: use ``numtorch.linalg.eig`` / ``eigvals`` (complex results)."""
    raise RuntimeError(
        f"{_REMOVED} `torch.linalg.eig` returns complex tensors of dtype `cfloat` or `cdouble` rather than "
        "real tensors mimicking complex tensors.\n\nL, _ = torch.eig(A) should be replaced with:\n"
        "L_complex = torch.linalg.eigvals(A)\n\nand\n\nL, V = torch.eig(A, eigenvectors=True) "
        "should be replaced with:\nL_complex, V_complex = torch.linalg.eig(A)"
    )


def _eig_method(self, eigenvectors=False):
    return eig(self, eigenvectors)


def _symeig_method(self, eigenvectors=False):
    return symeig(self, eigenvectors)


def _lstsq_method(self, other):
    return lstsq(self, other)


def _solve_method(self, other):
    return solve(self, other)


def install(tensor_cls) -> None:
    """The removed Tensor methods (before ``_tensor_tf.install`` routes them)."""
    tensor_cls.eig = _eig_method
    tensor_cls.symeig = _symeig_method
    tensor_cls.lstsq = _lstsq_method
    tensor_cls.solve = _solve_method
    for m, n in ((_eig_method, "eig"), (_symeig_method, "symeig"), (_lstsq_method, "lstsq"), (_solve_method, "solve")):
        m.__name__ = m.__qualname__ = n
