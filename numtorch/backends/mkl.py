"""``numtorch.backends.mkl``: whether NumPy's BLAS is Intel MKL."""

from __future__ import annotations


def is_available() -> bool:
    """True when NumPy was built against MKL."""
    import numpy as np

    try:
        info = np.show_config(mode="dicts")
    except TypeError:  # NumPy < 1.26 prints only
        return False
    blas = str(info.get("Build Dependencies", {}).get("blas", {}).get("name", ""))
    return "mkl" in blas.lower()
