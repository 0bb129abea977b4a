"""OpInfos for numtorch/ops/factory/core.py.

Factories take sizes and scalars rather than tensors, so ``input`` is the first size or value
and ``dtype=`` samples carry a numtorch dtype that the references map to NumPy. ``empty*`` and
the predicates returning Python values have no reference: tests/ops/factory/test_factory.py covers them.
Factories are not differentiable (grad=False).
"""

from __future__ import annotations

import numpy as np

from ..core import ALL_REAL, FLOATS, OpInfo, SampleInput, make_arg

_S = SampleInput
_NUMERIC = ("int32", "int64", "float32", "float64")


def _nt(name: str):
    import numtorch

    return getattr(numtorch, name)


def _np(dtype, default="float32"):
    return np.dtype(default if dtype is None else dtype.name)


def _size(size):
    return tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else tuple(size)


def _sized(fill):
    def ref(*size, dtype=None):
        return np.full(_size(size), fill, _np(dtype))

    return ref


def _size_samples(dtype, rng):
    d = _nt(dtype)
    return [_S(2, (3,), {"dtype": d}, name="varargs"), _S((2, 3), (), {"dtype": d}, name="tuple"),
            _S([4], (), {"dtype": d}, name="list"), _S((), (), {"dtype": d}, name="0d"),
            _S(0, (), {"dtype": d}, name="empty")]  # fmt: skip


def _full_samples(dtype, rng):
    d = _nt(dtype)
    v = True if dtype == "bool" else (3 if dtype.startswith(("int", "uint")) else 2.5)
    return [_S((2, 3), (v,), {"dtype": d}, name="2d"), _S((), (v,), {"dtype": d}, name="0d"),
            _S((4,), (v,), name="inferred")]  # fmt: skip


def _full_ref(size, fill, dtype=None):
    default = {bool: "bool", int: "int64", float: "float32"}[type(fill)]
    return np.full(tuple(size), fill, _np(dtype, default))


def _like_samples(fill=None):
    def gen(dtype, rng):
        extra = () if fill is None else (fill,)
        return [_S(make_arg((2, 3), dtype, rng), extra, name="2d"), _S(make_arg((), dtype, rng), extra, name="0d"),
                _S(make_arg((3, 4), dtype, rng, noncontiguous=True), extra, name="nc"),
                _S(make_arg((2,), dtype, rng), extra, {"dtype": _nt("float64")}, name="dtype")]  # fmt: skip

    return gen


def _like_ref(fill):
    def ref(a, *v, dtype=None):
        return np.full(a.shape, v[0] if v else fill, a.dtype if dtype is None else _np(dtype))

    return ref


def _new_samples(dtype, rng):
    return [_S(make_arg((2,), dtype, rng), (3, 2), name="varargs"), _S(make_arg((2,), dtype, rng), ((4,),), name="tuple"),
            _S(make_arg((2,), dtype, rng), ((2,),), {"dtype": _nt("int64")}, name="dtype")]  # fmt: skip


def _new_ref(fill):
    def ref(a, *size, dtype=None):
        return np.full(_size(size), fill, a.dtype if dtype is None else _np(dtype))

    return ref


def _arange_samples(dtype, rng):
    d = _nt(dtype)
    out = [_S(5, (), {"dtype": d}, name="end"), _S(1, (7,), {"dtype": d}, name="start_end"),
           _S(10, (0, -3), {"dtype": d}, name="negative_step"), _S(2, (2,), {"dtype": d}, name="empty")]  # fmt: skip
    if dtype.startswith("float"):
        out += [
            _S(0, (1, 0.25), {"dtype": d}, name="float_step"),
            _S(-1.5, (2.5, 0.5), {"dtype": d}, name="float_start"),
        ]
    return out


def _arange_ref(start, end=None, step=1, dtype=None):
    if end is None:
        start, end = 0, start
    n = max(0, int(np.ceil((end - start) / step)))
    return (start + step * np.arange(n, dtype=np.float64)).astype(_np(dtype))


def _space_samples(dtype, rng):
    d = _nt(dtype)
    return [_S(0, (1, 5), {"dtype": d}, name="unit"), _S(-2, (3, 11), {"dtype": d}, name="eleven"),
            _S(3, (3, 1), {"dtype": d}, name="one"), _S(0, (1, 0), {"dtype": d}, name="zero"),
            _S(4, (-4, 6), {"dtype": d}, name="decreasing")]  # fmt: skip


def _linspace_ref(start, end, steps, dtype=None):
    return np.linspace(start, end, steps).astype(_np(dtype))


def _logspace_ref(start, end, steps, base=10.0, dtype=None):
    return np.logspace(start, end, steps, base=base).astype(_np(dtype))


def _logspace_samples(dtype, rng):
    d = _nt(dtype)
    return [_S(0, (2, 3), {"dtype": d}, name="base10"), _S(-1, (3, 5), {"base": 2, "dtype": d}, name="base2"),
            _S(1, (1, 1), {"dtype": d}, name="one")]  # fmt: skip


def _eye_samples(dtype, rng):
    d = _nt(dtype)
    return [_S(3, (), {"dtype": d}, name="square"), _S(2, (4,), {"dtype": d}, name="wide"),
            _S(4, (2,), {"dtype": d}, name="tall"), _S(0, (), {"dtype": d}, name="empty")]  # fmt: skip


def _tensor_samples(dtype, rng):
    d = _nt(dtype)
    a = make_arg((2, 3), dtype, rng)
    return [_S(a.tolist(), (), {"dtype": d}, name="nested"), _S(a[0, 0].item(), (), {"dtype": d}, name="scalar"),
            _S([], (), {"dtype": d}, name="empty"), _S(a.tolist(), (), name="inferred")]  # fmt: skip


def _tensor_ref(data, dtype=None):
    if dtype is None:  # Python floats give PyTorch's default dtype, NumPy's is float64
        a = np.array(data)
        return a.astype(np.float32) if a.dtype == np.float64 and not isinstance(data, np.ndarray) else a
    return np.array(data, dtype=_np(dtype))


def _complex_samples(dtype, rng):
    return [_S(make_arg((2, 3), dtype, rng), (make_arg((2, 3), dtype, rng),), name="same"),
            _S(make_arg((3, 1), dtype, rng), (make_arg((4,), dtype, rng),), name="broadcast")]  # fmt: skip


def _scalar_tensor_samples(dtype, rng):
    d = _nt(dtype)
    return [
        _S(3, (), {"dtype": d}, name="int"),
        _S(True, (), {"dtype": d}, name="bool"),
        _S(2.0, (), name="default"),
    ]


_NOGRAD = {"grad": False}

OPINFOS = [
    OpInfo("zeros", _sized(0), _size_samples, dtypes=ALL_REAL, supports_out=True, **_NOGRAD),
    OpInfo("ones", _sized(1), _size_samples, dtypes=ALL_REAL, supports_out=True, **_NOGRAD),
    OpInfo("empty", None, _size_samples, dtypes=ALL_REAL, **_NOGRAD),
    OpInfo("full", _full_ref, _full_samples, dtypes=ALL_REAL, supports_out=True, **_NOGRAD),
    OpInfo("zeros_like", _like_ref(0), _like_samples(), dtypes=ALL_REAL, **_NOGRAD),
    OpInfo("ones_like", _like_ref(1), _like_samples(), dtypes=ALL_REAL, **_NOGRAD),
    OpInfo("full_like", _like_ref(None), _like_samples(1), dtypes=ALL_REAL, **_NOGRAD),
    OpInfo("empty_like", None, _like_samples(), dtypes=ALL_REAL, **_NOGRAD),
    OpInfo("Tensor.new_zeros", _new_ref(0), _new_samples, dtypes=ALL_REAL, **_NOGRAD),
    OpInfo("Tensor.new_ones", _new_ref(1), _new_samples, dtypes=ALL_REAL, **_NOGRAD),
    OpInfo("Tensor.new_empty", None, _new_samples, dtypes=ALL_REAL, **_NOGRAD),
    OpInfo("Tensor.new_full", lambda a, size, v, dtype=None: np.full(tuple(size), v, a.dtype if dtype is None else _np(dtype)),
           lambda dt, rng: [_S(make_arg((2,), dt, rng), ((2, 2), 1)), _S(make_arg((2,), dt, rng), ((3,), 1), {"dtype": _nt("float64")})],
           dtypes=ALL_REAL, **_NOGRAD),
    OpInfo("Tensor.new_tensor", lambda a, data, dtype=None: np.array(data, a.dtype if dtype is None else _np(dtype)),
           lambda dt, rng: [_S(make_arg((2,), dt, rng), ([[1, 0], [1, 1]],)), _S(make_arg((2,), dt, rng), (1,))],
           dtypes=ALL_REAL, **_NOGRAD),
    OpInfo("Tensor.new_empty_strided", None, lambda dt, rng: [_S(make_arg((2,), dt, rng), ((2, 3), (1, 2)))],
           dtypes=ALL_REAL, **_NOGRAD),
    OpInfo("tensor", _tensor_ref, _tensor_samples, dtypes=ALL_REAL, **_NOGRAD),
    OpInfo("as_tensor", _tensor_ref, _tensor_samples, dtypes=ALL_REAL, **_NOGRAD),
    OpInfo("arange", _arange_ref, _arange_samples, dtypes=_NUMERIC, supports_out=True, **_NOGRAD),
    OpInfo("linspace", _linspace_ref, _space_samples, dtypes=("float32", "float64"), supports_out=True,
           tol={"float32": (1e-6, 1e-6)}, **_NOGRAD),
    OpInfo("logspace", _logspace_ref, _logspace_samples, dtypes=("float32", "float64"), supports_out=True,
           tol={"float32": (1e-5, 1e-5)}, **_NOGRAD),
    OpInfo("eye", lambda n, m=None, dtype=None: np.eye(n, m, dtype=_np(dtype)), _eye_samples, dtypes=ALL_REAL,
           supports_out=True, **_NOGRAD),
    OpInfo("empty_strided", None, lambda dt, rng: [_S((2, 3), ((1, 2),))], **_NOGRAD),
    OpInfo("scalar_tensor", lambda s, dtype=None: np.array(s, _np(dtype)), _scalar_tensor_samples, dtypes=_NUMERIC,
           supports_out=True, **_NOGRAD),
    OpInfo("complex", lambda r, i: (r + 1j * i).astype(np.complex64 if r.dtype == np.float32 else np.complex128),
           _complex_samples, dtypes=FLOATS, supports_out=True, **_NOGRAD),
    OpInfo("numel", None, lambda dt, rng: [_S(make_arg((2, 3), dt, rng))], dtypes=ALL_REAL, **_NOGRAD),
    OpInfo("is_floating_point", None, lambda dt, rng: [_S(make_arg((2,), dt, rng))], dtypes=ALL_REAL, **_NOGRAD),
    OpInfo("is_complex", None, lambda dt, rng: [_S(make_arg((2,), dt, rng))], dtypes=ALL_REAL, **_NOGRAD),
    OpInfo("is_nonzero", None, lambda dt, rng: [_S(make_arg((1,), dt, rng))], dtypes=ALL_REAL, method="is_nonzero",
           **_NOGRAD),
]  # fmt: skip
