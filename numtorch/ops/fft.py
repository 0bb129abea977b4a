"""numtorch.fft: the 22 ``torch.fft`` functions on NumPy's pocketfft.

# Note [Three FFT primitives]
# As in PyTorch, every transform is a composite over three ops with derivatives:
#   _fft_c2c(self, dim, normalization, forward)   complex -> complex
#   _fft_r2c(self, dim, normalization, onesided)  real -> complex (half spectrum on dim[-1])
#   _fft_c2r(self, dim, normalization, last_dim_size)  half spectrum -> real
# ``normalization`` is PyTorch's fft_norm_mode: 0 none, 1 by 1/sqrt(n), 2 by 1/n, where n is the
# product of the signal sizes. Their backward formulas are PyTorch's (fft_r2c_backward,
# fft_c2r_backward), written with these same ops so higher derivatives work. The n/s arguments
# resize the input first (narrow, or zero padding at the end), as PyTorch's resize_fft_input.

# Note [Which FFT runs]
# One-dimensional transforms of a power-of-two length from _POW2_MIN[kind, dtype] up run
# numtorch's own kernels (numtorch/kernels/cpu/fft.py, Note [Four-step FFT over column blocks]);
# everything else (other lengths, several dims at once, small sizes where the call overhead
# rules) goes to NumPy's pocketfft. The thresholds are where the kernel measured faster than
# pocketfft, side by side, one thread (benchmarks/bench_fft.py): NumPy's complex pocketfft slows
# down sharply past cache size (2**20 complex64: 5-8x PyTorch's MKL time, the kernel 2-3x); real
# input of 2**20 points: pocketfft 1.6x, the kernel 0.7x PyTorch's time.
"""

from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._dispatch import dispatch
from .._tensor import Tensor, _make, _wrap_dim
from . import _pocketfft as P
from . import fft_dft as _dft
from . import fft_fast as _ff
from . import fft_rows as _short
from ._pointwise import _cname
from ._registry import body_of, defop, public
from .._ops import ops as _ops
from ..kernels import lazy

K = lazy("numtorch.kernels.cpu.fft")

_COMPLEX_OF = {"float32": D.complex64, "float64": D.complex128}
_REAL_OF = {"complex64": D.float32, "complex128": D.float64}
_REAL_ONLY = {"rfft2": "rfftn expects a real-valued input tensor, but got {t}",
              "rfftn": "rfftn expects a real-valued input tensor, but got {t}",
              "ihfft2": "Only supports floating-point dtypes, but found: {t}",
              "ihfftn": "Only supports floating-point dtypes, but found: {t}"}  # fmt: skip


def c2c_array(a: np.ndarray, dim, normalization: int, forward: bool) -> np.ndarray:
    """The CPU _fft_c2c of ``a`` (Note [Which FFT runs])."""
    if not dim:
        return a.copy()
    if _dft.usable(a, dim):  # Note [Direct DFT of small single-precision transforms]
        r = _dft.c2c(a, dim, normalization, forward)
        if r is not None:
            return r
    if _use_kernel(a, dim, a.shape[dim[-1]], "c2c"):
        return _rows(a, dim[0], _k_c2c, not forward, normalization)
    return P.c2c(a, dim, normalization, forward)


def r2c_array(a: np.ndarray, dim, normalization: int, onesided: bool, conj: bool = False) -> np.ndarray:
    """The CPU _fft_r2c of real ``a``: the half spectrum, or with ``onesided`` False the full;
    with ``conj`` its conjugate (an inverse transform's: the full spectrum's fill writes it)."""
    if _dft.usable(a, dim):
        r = _dft.r2c(a, dim, normalization, onesided, conj)
        if r is not None:
            return r
    elif _short.usable(a, dim):  # Note [Short real rows by a DFT matrix]
        r = _short.r2c(a, normalization, onesided, conj)
        if r is not None:
            return r
    if _use_kernel(a, dim, a.shape[dim[-1]], "r2c"):
        r = _rows(a, dim[0], _k_r2c, not onesided, normalization)
        return np.conjugate(r, out=r) if conj else r
    half = P.r2c(a, dim, normalization)
    if onesided:
        return np.conjugate(half, out=half) if conj else half
    return P.hermitian_fill(half, list(dim), a.shape[dim[-1]], conj)


def c2r_array(a: np.ndarray, dim, normalization: int, last_dim_size: int) -> np.ndarray:
    """The CPU _fft_c2r of complex ``a``: ``last_dim_size`` real points along dim[-1]."""
    if _dft.usable(a, dim, last_dim_size):
        r = _dft.c2r(a, dim, normalization, last_dim_size)
        if r is not None:
            return r
    if _use_kernel(a, dim, last_dim_size, "c2r") and a.shape[dim[0]] == last_dim_size // 2 + 1:
        return _rows(a, dim[0], _k_c2r, last_dim_size, normalization)
    return P.c2r(a, dim, normalization, last_dim_size)


def _c2c_cpu(self, dim, normalization, forward):
    r = c2c_array(self._data, dim, normalization, forward)
    return _make(r.astype(self._dtype.np, copy=False), self._dtype)


def _r2c_cpu(self, dim, normalization, onesided):
    return _make(r2c_array(self._data, dim, normalization, onesided), _COMPLEX_OF[self._dtype.name])


def _c2r_cpu(self, dim, normalization, last_dim_size):
    return _make(c2r_array(self._data, dim, normalization, last_dim_size), _REAL_OF[self._dtype.name])


def _r2c_backward(grad, self, dim, normalization, onesided):
    if not onesided:
        return _ops.aten.real.default(dispatch(fft_c2c, [grad, dim, normalization, False]))
    last = dim[-1]
    full = self.shape[last]
    missing = full - grad.shape[last]
    if missing > 0:
        pad = [0, 0] * (grad.ndim - 1 - last) + [0, missing]
        grad = _ops.aten.constant_pad_nd.default(grad, pad, 0.0)
    return _ops.aten.real.default(dispatch(fft_c2c, [grad, dim, normalization, False]))


def _c2r_backward(grad, dim, normalization):
    gi = dispatch(fft_r2c, [grad, dim, normalization, True])
    last = dim[-1]
    double = grad.shape[last] - gi.shape[last]
    if double > 0:
        # the bins 1..double stand for themselves and their mirror images: count them twice
        w = np.ones(gi.shape[last])
        w[1 : 1 + double] = 2.0
        rd = _REAL_OF[gi.dtype.name]
        w = _make(w.reshape([-1] + [1] * (gi.ndim - 1 - last)).astype(rd.np), rd)
        gi = gi * w
    return gi


# ---- numtorch's power-of-two kernels (Note [Which FFT runs]) ------------------------------

_NEVER = 1 << 62
# (kind, dtype char) -> the smallest n given to the kernels (Note [Which FFT runs]); complex128
# c2c measured level with pocketfft, which is then kept for its accuracy
_POW2_MIN = {("c2c", "F"): 1 << 12, ("c2c", "D"): _NEVER, ("r2c", "f"): 1 << 16,
             ("r2c", "d"): 1 << 18, ("c2r", "F"): 1 << 18, ("c2r", "D"): 1 << 18}  # fmt: skip
_BLOCK = {np.float32: 32, np.float64: 16}  # lanes per column block (measured best at 2**20)
_PAD = 16  # floats between D's rows (Note [Four-step FFT over column blocks])
_PLANS: dict = {}


def _use_kernel(a: np.ndarray, dim, n: int, kind: str) -> bool:
    if len(dim) != 1 or n & (n - 1) or a.size == 0:
        return False
    return n >= _POW2_MIN.get((kind, a.dtype.char), _NEVER)


def _rows(a: np.ndarray, d: int, fn, *args) -> np.ndarray:
    """``fn`` over the 1-D signals along ``d``, given and returned as C-contiguous (rows, n)."""
    x = np.moveaxis(a, d, -1)
    res = fn(np.ascontiguousarray(x).reshape(-1, x.shape[-1]), *args)
    return np.ascontiguousarray(np.moveaxis(res.reshape(x.shape[:-1] + res.shape[-1:]), -1, d))


def _roots(n: int, k1, k2, dt) -> tuple:
    """w_n^(k1 * k2) (outer product, flattened) as cos/sin arrays of ``dt``, computed in float64."""
    ang = (-2 * np.pi / n) * np.multiply.outer(k1, k2).astype(np.float64).ravel()
    return np.cos(ang).astype(dt), np.sin(ang).astype(dt)


def _split_roots(n: int, dt) -> tuple:
    """w_n^e = hi[e >> lb] * lo[e & (2**lb - 1)] for e < n: two tables of about sqrt(n)."""
    plan = _PLANS.get(("split", n, dt))
    if plan is None:
        lb = n.bit_length() // 2
        hi = _roots(n, np.arange(max(1, n >> lb)), np.array([1 << lb]), dt)
        plan = _PLANS[("split", n, dt)] = hi + _roots(n, np.arange(1 << lb), np.ones(1), dt) + (lb,)
    return plan


def _c2c_plan(n: int, dt) -> tuple:
    """n1, n2, lanes, D's row stride and the twiddle tables of an n-point c2c_pow2, made once."""
    plan = _PLANS.get(("c2c", n, dt))
    if plan is None:
        n1 = 1 << (n.bit_length() // 2)
        n2 = n // n1
        bw = _BLOCK[dt]
        w1 = min(bw, n2)
        one = np.ones(1)
        tables = (*_roots(n1, np.arange(n1), one, dt), *_roots(n2, np.arange(n2), one, dt),
                  *_roots(n, np.arange(n1), np.arange(0, n2, w1), dt),
                  *_roots(n, np.arange(n1), np.arange(w1), dt))  # fmt: skip
        plan = _PLANS[("c2c", n, dt)] = (n1, n2, bw, n1 + _PAD, tables)
    return plan


def _run_c2c(src, s_row, dst, d_row, inv, nb, n, scale, fdt):
    n1, n2, bw, ld, tables = _c2c_plan(n, fdt)
    dbuf = np.empty(2 * n2 * ld, fdt)
    x = np.empty((4, max(n1, n2) * bw), fdt)
    K.c2c_pow2(src, s_row, dst, d_row, inv, nb, n1, n2, bw, ld, *tables, fdt(scale), dbuf, *x)


def _scale(normalization: int, n: int) -> float:
    return (1.0, n**-0.5, 1.0 / n)[normalization]


def _k_c2c(a: np.ndarray, inv: bool, normalization: int) -> np.ndarray:
    nb, n = a.shape
    fdt = a.real.dtype.type
    out = np.empty_like(a)
    src, dst = a.view(fdt).reshape(-1), out.view(fdt).reshape(-1)
    _run_c2c(src, 2 * n, dst, 2 * n, inv, nb, n, _scale(normalization, n), fdt)
    return out


def _k_r2c(a: np.ndarray, full: bool, normalization: int) -> np.ndarray:
    """The half (or, with ``full``, whole) spectrum of real rows: an n/2-point complex FFT of the
    (even + i odd) samples, then one pass that splits it (kernels' r2c_post)."""
    nb, n = a.shape
    fdt, h = a.dtype.type, n // 2
    z = np.empty((nb, 2 * h), fdt)
    _run_c2c(a.reshape(-1), n, z.reshape(-1), 2 * h, False, nb, h, 1.0, fdt)
    out = np.empty((nb, n if full else h + 1), _COMPLEX_OF[a.dtype.name].np)
    dst, scale = out.view(fdt).reshape(-1), fdt(_scale(normalization, n))
    K.r2c_post(z, h, dst, 2 * out.shape[1], full, nb, *_split_roots(n, fdt), scale)
    return out


def _k_c2r(a: np.ndarray, n: int, normalization: int) -> np.ndarray:
    """Real rows of n points from their half spectra: the inverse of _k_r2c's two steps."""
    nb = a.shape[0]
    fdt, h = a.real.dtype.type, n // 2
    z = np.empty((nb, 2 * h), fdt)
    K.c2r_pre(a.view(fdt).reshape(-1), 2 * a.shape[1], h, z, nb, *_split_roots(n, fdt))
    out = np.empty((nb, n), fdt)
    _run_c2c(z.reshape(-1), 2 * h, out.reshape(-1), n, True, nb, h, _scale(normalization, n), fdt)
    return out


fft_c2c = defop(
    "_fft_c2c(Tensor self, SymInt[] dim, int normalization, bool forward) -> Tensor",
    cpu=_c2c_cpu,
    backward={"self": lambda grad, dim, normalization, forward: dispatch(fft_c2c, [grad, dim, normalization, not forward])},
)
fft_r2c = defop(
    "_fft_r2c(Tensor self, int[] dim, int normalization, bool onesided) -> Tensor",
    cpu=_r2c_cpu,
    backward={"self": _r2c_backward},
)
fft_c2r = defop(
    "_fft_c2r(Tensor self, int[] dim, int normalization, SymInt last_dim_size) -> Tensor",
    cpu=_c2r_cpu,
    backward={"self": _c2r_backward},
)


# ---- argument handling shared by the public functions --------------------------------------


def _norm_mode(norm, forward: bool) -> int:
    if norm is None or norm == "backward":
        return 0 if forward else 2
    if norm == "forward":
        return 2 if forward else 0
    if norm == "ortho":
        return 1
    raise RuntimeError(f'Invalid normalization mode: "{norm}"')


def _float_input(x: Tensor, fname: str, require_real: bool = False) -> Tensor:
    dt = x.dtype
    if dt is D.float16 or dt.name == "bfloat16":
        raise RuntimeError(f"Unsupported dtype {_cname(dt)}")
    if dt.is_complex:
        if require_real:
            raise RuntimeError(_REAL_ONLY.get(fname, "{f} expects a real input tensor, but got {t}").format(f=fname, t=_cname(dt)))
        return x
    if not dt.is_floating_point:
        return x.to(D.get_default_dtype())
    return x


def _to_complex(x: Tensor) -> Tensor:
    return x if x.dtype.is_complex else x.to(_COMPLEX_OF[x.dtype.name])


def _resize(x: Tensor, dims: list, sizes: list) -> Tensor:
    """Narrow or zero-pad ``x`` at the end of each of ``dims`` to ``sizes`` (PyTorch's resize_fft_input)."""
    pad, need_pad = [0] * (2 * x.ndim), False
    for d, n in zip(dims, sizes):
        cur = x.shape[d]
        if n < cur:
            x = x.narrow(d, 0, n)
        elif n > cur:
            pad[2 * (x.ndim - 1 - d) + 1] = n - cur
            need_pad = True
    return _ops.aten.constant_pad_nd.default(x, pad, 0.0) if need_pad else x


def _check_n(n) -> None:
    if n is not None and n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")


def _one_dim(x: Tensor, dim: int) -> int:
    if x.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return _wrap_dim(dim, x.ndim)


def _canonical(x: Tensor, s, dim) -> tuple[list, list]:
    """PyTorch's canonicalize_fft_shape_and_dim_args: the dims and signal sizes of an n-d transform."""
    if s is not None and dim is not None and len(s) != len(dim):
        raise RuntimeError("When given, dim and shape arguments must have the same length")
    if dim is not None:
        dims = [_wrap_dim(d, x.ndim) for d in ([dim] if isinstance(dim, int) else dim)]
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    elif s is not None:
        if len(s) > x.ndim:
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has {x.ndim} dimensions.")
        dims = list(range(x.ndim - len(s), x.ndim))
    else:
        dims = list(range(x.ndim))
    if s is None:
        sizes = [x.shape[d] for d in dims]
    else:
        sizes = [x.shape[d] if n == -1 else n for d, n in zip(dims, s)]
    for n in sizes:  # an empty dimension too, as PyTorch (not NumPy's ValueError)
        _check_n(n)
    return dims, sizes


# ---- the transforms --------------------------------------------------------------------------


def _c2c_nd(fname, x, dims, sizes, norm, forward):
    x = _float_input(x, fname)
    x = _resize(x, dims, sizes)
    if x.dtype.is_complex:
        return dispatch(fft_c2c, [x, dims, _norm_mode(norm, forward), forward])
    out = dispatch(fft_r2c, [x, dims, _norm_mode(norm, forward), False])
    if forward:
        return out
    # ifft of a real signal is the conjugate of its forward transform under the inverse's scaling
    return _ops.aten.conj_physical.default(out)


def _r2c_nd(fname, x, dims, sizes, norm, forward):
    x = _float_input(x, fname, require_real=True)
    x = _resize(x, dims, sizes)
    out = dispatch(fft_r2c, [x, dims, _norm_mode(norm, forward), True])
    if forward:
        return out
    return _ops.aten.conj_physical.default(out)


def _c2r_nd(fname, x, dims, sizes, norm, forward):
    """irfft (forward=False) and hfft (forward=True, conjugated input); sizes are the output's."""
    x = _to_complex(_float_input(x, fname))
    last = sizes[-1]
    x = _resize(x, dims, sizes[:-1] + [last // 2 + 1])
    if forward:
            x = _ops.aten.conj_physical.default(x)
    return dispatch(fft_c2r, [x, dims, _norm_mode(norm, forward), last])


def _out(res: Tensor, out):
    if out is None:
        return res
    if out.dtype != res.dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {res.dtype}, but got {out.dtype} instead")
    return out.resize_(res.shape).copy_(res)


def _make_1d(fname, kind, forward):
    def body(input, n, dim, norm, out):
        _check_n(n)
        d = _one_dim(input, dim)
        if kind == "c2r":
            size = n if n is not None else 2 * (input.shape[d] - 1)
            _check_n(size)
            return _out(_c2r_nd(fname, input, [d], [size], norm, forward), out)
        size = n if n is not None else input.shape[d]
        _check_n(size)
        fn = _c2c_nd if kind == "c2c" else _r2c_nd
        return _out(fn(fname, input, [d], [size], norm, forward), out)

    return body


def _make_nd(fname, kind, forward):
    two_d = fname.endswith("2")

    def body(input, s, dim, norm, out):
        if two_d and dim is None:
            dim = (-2, -1)  # PyTorch's default; the generated wrapper's signature cannot spell a tuple
        dims, sizes = _canonical(input, s, dim)
        if kind == "c2r":
            if not dims:
                raise RuntimeError(f"{fname} must transform at least one axis")
            if s is None or s[-1] == -1:
                sizes[-1] = 2 * (input.shape[dims[-1]] - 1)
            _check_n(sizes[-1])
            return _out(_c2r_nd(fname, input, dims, sizes, norm, forward), out)
        if kind == "r2c" and not dims:
            raise RuntimeError(f"{fname} must transform at least one axis")
        fn = _c2c_nd if kind == "c2c" else _r2c_nd
        return _out(fn(fname, input, dims, sizes, norm, forward), out)

    return body


_ARRAYS = (c2c_array, r2c_array, c2r_array)  # Note [FFT fast calls]
# name -> (kind, forward): the 18 transforms
_TRANSFORMS = {
    "fft": ("c2c", True), "ifft": ("c2c", False), "rfft": ("r2c", True), "irfft": ("c2r", False),
    "hfft": ("c2r", True), "ihfft": ("r2c", False),
}  # fmt: skip

for _name, (_kind, _fwd) in _TRANSFORMS.items():
    _doc = (f"``torch.fft.{_name}``: one-dimensional {_kind} transform over ``dim`` (Note [Three FFT primitives]).\n\n"
            f"    >>> numtorch.fft.{_name}(numtorch.tensor([1.0, 2.0, 3.0, 4.0])).shape[0] > 0\n    True\n    ")  # fmt: skip
    _body = _make_1d(_name, _kind, _fwd)
    _fast = (_ff.make_1d(_kind, _fwd, _body, _ARRAYS), ("input", "n", "dim", "norm"), "out is None")
    public(_name, "input, n=None, dim=-1, norm=None, *, out=None", _body, module="torch.fft", doc=_doc,
           ops=(fft_c2c, fft_r2c, fft_c2r), fast=_fast)  # fmt: skip
    for _suffix in ("2", "n"):
        _doc = (f"``torch.fft.{_name}{_suffix}``: the {_kind} transform over several dimensions.\n\n"
                f"    >>> numtorch.fft.{_name}{_suffix}(numtorch.ones(2, 4)).ndim\n    2\n    ")  # fmt: skip
        _body = _make_nd(f"{_name}{_suffix}", _kind, _fwd)
        _fast = (_ff.make_nd(_kind, _fwd, _suffix == "2", _body, _ARRAYS), ("input", "s", "dim", "norm"), "out is None")
        public(f"{_name}{_suffix}", "input, s=None, dim=None, norm=None, *, out=None", _body,
               module="torch.fft", doc=_doc, ops=(fft_c2c, fft_r2c, fft_c2r), fast=_fast)  # fmt: skip


# ---- frequencies and shifts ------------------------------------------------------------------


def _freq(fname, n, d, out, dtype, layout, device, requires_grad, onesided):
    dt = dtype or D.get_default_dtype()
    if not (dt.is_floating_point or dt.is_complex):
        raise RuntimeError(f"{fname} requires a floating point or complex dtype")
    vals = np.fft.rfftfreq(n, d) if onesided else np.fft.fftfreq(n, d)
    res = body_of("tensor")(vals, dt, device, False, False)
    if out is not None:
        return out.resize_(res.shape).copy_(res)
    return res.requires_grad_(requires_grad) if requires_grad else res


def _fftfreq(n, d, out, dtype, layout, device, requires_grad):
    """Sample frequencies of an ``n``-point FFT with spacing ``d``.

    >>> numtorch.fft.fftfreq(4)
    tensor([ 0.0000,  0.2500, -0.5000, -0.2500])
    """
    return _freq("fftfreq", n, d, out, dtype, layout, device, requires_grad, False)


def _rfftfreq(n, d, out, dtype, layout, device, requires_grad):
    """Sample frequencies of ``rfft`` for an ``n``-point signal with spacing ``d``.

    >>> numtorch.fft.rfftfreq(4)
    tensor([0.0000, 0.2500, 0.5000])
    """
    return _freq("rfftfreq", n, d, out, dtype, layout, device, requires_grad, True)


_FREQ_SIG = "n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False"
public("fftfreq", _FREQ_SIG, _fftfreq, relevant=(), module="torch.fft")
public("rfftfreq", _FREQ_SIG, _rfftfreq, relevant=(), module="torch.fft")


def _shift(input, dim, sign):
    if dim is None:
        dims = list(range(input.ndim))
    else:
        dims = [_wrap_dim(d, input.ndim) for d in ([dim] if isinstance(dim, int) else dim)]
    if not dims:
        return input.clone()
    shifts = [(input.shape[d] // 2) if sign > 0 else -(input.shape[d] // 2) for d in dims]
    return _ops.aten.roll.default(input, shifts, dims)


def _fftshift(input, dim):
    """Move the zero-frequency term to the centre (``roll`` by half of each dimension).

    >>> numtorch.fft.fftshift(numtorch.arange(5))
    tensor([3, 4, 0, 1, 2])
    """
    return _shift(input, dim, 1)


def _ifftshift(input, dim):
    """The inverse of ``fftshift``.

    >>> numtorch.fft.ifftshift(numtorch.arange(5))
    tensor([2, 3, 4, 0, 1])
    """
    return _shift(input, dim, -1)


public("fftshift", "input, dim=None", _fftshift, module="torch.fft",
       fast=(_ff.make_shift(1, _fftshift), ("input", "dim")))  # fmt: skip
public("ifftshift", "input, dim=None", _ifftshift, module="torch.fft",
       fast=(_ff.make_shift(-1, _ifftshift), ("input", "dim")))  # fmt: skip
