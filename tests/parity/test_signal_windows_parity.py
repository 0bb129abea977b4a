"""numtorch.signal.windows against torch.signal.windows and scipy.signal.windows."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch

torch = pytest.importorskip("torch")
scipy_windows = pytest.importorskip("scipy.signal.windows")

KW = {"general_cosine": {"a": [0.46, 0.54, 0.1]}, "general_hamming": {"alpha": 0.6}, "kaiser": {"beta": 4.0},
      "gaussian": {"std": 1.5}, "exponential": {"tau": 2.0}}  # fmt: skip
SCIPY_ARGS = {"general_cosine": ([0.46, 0.54, 0.1],), "general_hamming": (0.6,), "kaiser": (4.0,), "gaussian": (1.5,)}


@pytest.mark.parametrize("name", numtorch.signal.windows.__all__)
def test_windows_match_torch_and_scipy(name):
    for M in (0, 1, 2, 7, 10):
        for sym in (True, False):
            for nt_dt, t_dt in ((numtorch.float32, torch.float32), (numtorch.float64, torch.float64)):
                got = getattr(numtorch.signal.windows, name)(M, sym=sym, dtype=nt_dt, **KW.get(name, {}))
                want = getattr(torch.signal.windows, name)(M, sym=sym, dtype=t_dt, **KW.get(name, {}))
                tol = 1e-6 if nt_dt is numtorch.float32 else 1e-12
                np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=tol, atol=tol, err_msg=f"{name} {M} {sym}")
            kw = {"tau": 2.0} if name == "exponential" else {}
            ref = getattr(scipy_windows, name)(M, *SCIPY_ARGS.get(name, ()), sym=sym, **kw)
            np.testing.assert_allclose(got.numpy(), ref, atol=1e-12, err_msg=f"scipy {name} {M} {sym}")
