"""Shared fixtures. Kernel files and Numba's cache go to a per-run temp folder unless the
environment already names one, so tests never depend on a developer's warm cache."""

from __future__ import annotations

import os
import tempfile

import numpy as np
import pytest

if "NUMTORCH_KERNEL_CACHE" not in os.environ:
    os.environ["NUMTORCH_KERNEL_CACHE"] = os.path.join(tempfile.gettempdir(), "numtorch-test-kernels")


@pytest.fixture
def rng():
    return np.random.default_rng(0)
