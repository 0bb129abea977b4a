"""OpInfos for numtorch/ops/fft.py: the ``torch.fft`` transforms and shifts, against ``numpy.fft``.

Gradients are complex-valued here; tests/ops/test_fft.py gradchecks them through a real
parametrisation (``view_as_real``/``view_as_complex``), so the entries set ``grad=False``."""

from __future__ import annotations

import numpy as np

from .core import FLOATS, OpInfo, SampleInput, make_arg

_TOL = {"float32": (1e-4, 1e-4), "float64": (1e-10, 1e-10), "complex64": (1e-4, 1e-4), "complex128": (1e-10, 1e-10)}
_CPLX = {"float32": np.complex64, "float64": np.complex128}
_REAL = {"float32": np.float32, "float64": np.float64}


def _samples(nd: bool, real_only: bool = False):
    def gen(dtype, rng):
        out = []
        for complex_in in (False,) if real_only else (False, True):
            base = make_arg((4, 6), dtype, rng)
            if complex_in:
                base = (base + 1j * make_arg((4, 6), dtype, rng)).astype(_CPLX[dtype])
            tag = "c" if complex_in else "r"
            out.append(SampleInput(base, name=f"{tag}[4,6]"))
            out.append(SampleInput(base, kwargs={"norm": "ortho"}, name=f"{tag}ortho"))
            out.append(SampleInput(base, kwargs={"norm": "forward"}, name=f"{tag}forward"))
            if nd:
                out.append(SampleInput(base, kwargs={"s": (3, 8)}, name=f"{tag}s"))
            else:
                out.append(SampleInput(base, kwargs={"n": 8, "dim": 0}, name=f"{tag}n"))
        return out

    return gen


def _ref(np_name: str, real_out: bool, nd2: bool):
    def ref(a, **kw):
        if "n" in kw or "s" in kw or "dim" in kw:
            kw = dict(kw)
            if "dim" in kw:
                kw["axis" if not np_name.endswith(("2", "n")) else "axes"] = kw.pop("dim")
        if nd2 and "axes" not in kw:
            kw["axes"] = (-2, -1)
        if "s" in kw and "axes" not in kw:
            kw["axes"] = tuple(range(-len(kw["s"]), 0))
        fn = getattr(np.fft, np_name.replace("2", "n"))
        r = fn(a, **kw)
        single = np.float32 if a.dtype in (np.float32, np.complex64) else np.float64
        return r.astype(single if real_out else (np.complex64 if single is np.float32 else np.complex128))

    return ref


OPINFOS: list = []
for _name in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft"):
    _real_in = _name in ("rfft", "ihfft")
    _real_out = _name in ("irfft", "hfft")
    for _suffix in ("", "2", "n"):
        _full = _name + _suffix
        if _suffix and _name in ("hfft", "ihfft"):
            continue  # numpy.fft has no hfft2/hfftn: tests/ops/test_fft.py checks them by identity
        OPINFOS.append(
            OpInfo(f"fft.{_full}", _ref(_full, _real_out, _suffix == "2"), _samples(bool(_suffix), _real_in),
                   dtypes=FLOATS, supports_out=True, grad=False, tol=_TOL)
        )  # fmt: skip


def _shift_samples(dtype, rng):
    a = make_arg((4, 5), dtype, rng)
    return [SampleInput(a, name="all"), SampleInput(a, kwargs={"dim": 1}, name="dim1"),
            SampleInput(a, kwargs={"dim": (0, 1)}, name="dims")]  # fmt: skip


def _np_shift(fn):
    return lambda a, dim=None: fn(a, axes=dim)


OPINFOS.append(OpInfo("fft.fftshift", _np_shift(np.fft.fftshift), _shift_samples, dtypes=FLOATS + ("int64",)))
OPINFOS.append(OpInfo("fft.ifftshift", _np_shift(np.fft.ifftshift), _shift_samples, dtypes=FLOATS + ("int64",)))
