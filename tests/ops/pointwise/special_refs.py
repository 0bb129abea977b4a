"""Reference values for the torch.special grids of test_special_fns.py, computed with mpmath at 40
digits. mpmath's Bessel K alone took over a minute of a cold CI run, so the values are stored in
data/special_refs.npz; the slow test `test_stored_references_are_mpmath_values` recomputes them, and
`python -m tests.ops.pointwise.special_refs` rewrites the file after a grid changes."""

from __future__ import annotations

import pathlib

import numpy as np

PATH = pathlib.Path(__file__).with_name("data") / "special_refs.npz"

# name -> (lo, hi); the grid is 200 evenly spaced points plus both ends
GRIDS = {
    "modified_bessel_k0": (1e-6, 60.0),
    "modified_bessel_k1": (1e-6, 60.0),
    "scaled_modified_bessel_k0": (1e-6, 800.0),
    "scaled_modified_bessel_k1": (1e-6, 800.0),
    "i1": (-80.0, 80.0),
    "i0e": (-800.0, 800.0),
    "i1e": (-800.0, 800.0),
    "erfcx": (-26.0, 1e4),
    "log_ndtr": (-1e3, 30.0),
}


def grid(name, n=200):
    lo, hi = GRIDS[name]
    return np.concatenate([np.linspace(lo, hi, n), [lo, hi]])


def mpmath_refs(name):
    import mpmath as mp

    mp.mp.dps = 40
    ref = {
        "modified_bessel_k0": lambda x: mp.besselk(0, x),
        "modified_bessel_k1": lambda x: mp.besselk(1, x),
        "scaled_modified_bessel_k0": lambda x: mp.besselk(0, x) * mp.exp(x),
        "scaled_modified_bessel_k1": lambda x: mp.besselk(1, x) * mp.exp(x),
        "i1": lambda x: mp.besseli(1, x),
        "i0e": lambda x: mp.besseli(0, x) * mp.exp(-abs(x)),
        "i1e": lambda x: mp.besseli(1, x) * mp.exp(-abs(x)),
        "erfcx": lambda x: mp.exp(x * x) * mp.erfc(x),
        "log_ndtr": lambda x: mp.log(mp.ncdf(x)) if x < 0 else mp.log1p(-mp.ncdf(-x)),
    }[name]
    return np.array([float(ref(mp.mpf(float(x)))) for x in grid(name)])


def stored():
    with np.load(PATH) as f:
        return {k: f[k] for k in f.files}


if __name__ == "__main__":
    PATH.parent.mkdir(exist_ok=True)
    np.savez_compressed(PATH, **{name: mpmath_refs(name) for name in GRIDS})
    print(f"wrote {PATH}")
