"""OpInfos for numtorch/ops/linalg/.

NumPy references: np.matmul/einsum/tensordot/kron/cross/trace and np.linalg. Matrices for
inv/det/solve are diagonally dominant so the references are well conditioned.
"""

from __future__ import annotations

import numpy as np

from .core import FLOATS, OpInfo, SampleInput, make_arg

_S = SampleInput
MATMUL_DTYPES = ("float32", "float64", "int64")
_TOL = {"float32": (1e-4, 1e-4)}


def _pairs(*specs, low=-3, high=3, kwargs=None):
    """Samples from (shape_a, shape_b[, noncontiguous]) specs: ``op(a, b, **kwargs)``."""

    def gen(dtype, rng):
        out = []
        for spec in specs:
            sa, sb = spec[:2]
            nc = len(spec) > 2 and spec[2]
            a = make_arg(sa, dtype, rng, low, high, noncontiguous=nc)
            b = make_arg(sb, dtype, rng, low, high)
            out.append(_S(a, (b,), dict(kwargs or {}), name=f"{sa}@{sb}{'nc' if nc else ''}"))
        return out

    return gen


def _triples(*specs, kwargs=({},)):
    """``op(c, a, b, **kw)`` samples from (shape_c, shape_a, shape_b) specs, for each kw."""

    def gen(dtype, rng):
        out = []
        for sc, sa, sb in specs:
            for kw in kwargs:
                args = (make_arg(sa, dtype, rng, -3, 3), make_arg(sb, dtype, rng, -3, 3))
                out.append(
                    _S(make_arg(sc, dtype, rng, -3, 3), args, dict(kw), name=f"{sc},{sa},{sb}{kw}")
                )
        return out

    return gen


def _addref(prod):
    def ref(c, a, b, beta=1, alpha=1):
        r = alpha * prod(a, b)
        return (r if beta == 0 else beta * c + r).astype(c.dtype)

    return ref


def _well(shape, dtype, rng):
    a = make_arg(shape, dtype, rng, -1, 1)
    n = shape[-1]
    return (a + n * np.eye(n, dtype=dtype)).astype(dtype)


def _slogdet_samples(dtype, rng):
    out = [_S(_well(s, dtype, rng), name=f"{s}") for s in ((3, 3), (2, 2, 2), (1, 1))]
    neg = _well((3, 3), dtype, rng)
    neg[0] *= -1  # a negative determinant: sign -1
    return out + [_S(neg, name="negative det")]


def _square_samples(*shapes, extra=()):
    def gen(dtype, rng):
        out = [_S(_well(s, dtype, rng), name=f"{s}") for s in shapes]
        return out + [_S(_well(sa, dtype, rng), (make_arg(sb, dtype, rng, -3, 3),) + args, dict(kw), name=f"{sa},{sb}{kw}")
                      for sa, sb, args, kw in extra]  # fmt: skip

    return gen


def _solve_ref(A, B, left=True):
    vec = B.ndim == 1 or (B.ndim == A.ndim - 1 and B.shape == A.shape[:-1])
    b = B[..., None] if vec else B
    if not left:
        A, b = np.swapaxes(A, -1, -2), np.swapaxes(b if not vec else B[..., None, :], -1, -2)
    batch = np.broadcast_shapes(A.shape[:-2], b.shape[:-2])
    x = np.linalg.solve(
        np.broadcast_to(A, batch + A.shape[-2:]), np.broadcast_to(b, batch + b.shape[-2:])
    )
    if not left:
        x = np.swapaxes(x, -1, -2)
    return (x[..., 0] if left else x[..., 0, :]) if vec else x


def _einsum_samples(dtype, rng):
    def m(*s):
        return make_arg(s, dtype, rng, -3, 3)

    return [
        _S("ij,jk->ik", (m(2, 3), m(3, 4)), name="mm"),
        _S("bij,bjk->bik", (m(2, 2, 3), m(2, 3, 2)), name="bmm"),
        _S("i,i->", (m(4), m(4)), name="dot"),
        _S("i,j->ij", (m(2), m(3)), name="outer"),
        _S("ii->i", (m(3, 3),), name="diag"),
        _S("ii", (m(3, 3),), name="trace"),
        _S("ij->ji", (m(2, 3),), name="transpose"),
        _S("...ij,...jk", (m(2, 1, 2, 3), m(3, 3, 2)), name="ellipsis_broadcast"),
        _S("ij,jk,kl->il", (m(2, 3), m(3, 4), m(4, 2)), name="chain3"),
        _S("bn,anm,bm->ba", (m(2, 3), m(4, 3, 5), m(2, 5)), name="bilinear"),
        _S("ij,ij->i", (m(1, 3), m(2, 3)), name="size1_broadcast"),
        _S("iJk,Jk->i", (m(2, 3, 4), m(3, 4)), name="uppercase"),
    ]


def _tensordot_ref(a, b, dims=2):
    if isinstance(dims, int):
        return np.tensordot(a, b, dims)
    return np.tensordot(a, b, (list(dims[0]), list(dims[1])))


def _tensordot_samples(dtype, rng):
    def m(*s):
        return make_arg(s, dtype, rng, -3, 3)

    return [_S(m(2, 3, 4), (m(3, 4, 5),), name="dims2"), _S(m(2, 3), (m(3, 4),), {"dims": 1}, name="dims1"),
            _S(m(2, 3, 4), (m(4, 3, 5),), {"dims": ([1, 2], [1, 0])}, name="lists"),
            _S(m(2), (m(3),), {"dims": 0}, name="outer")]  # fmt: skip


def _kron_ref(a, b):
    n = max(a.ndim, b.ndim)
    return np.kron(
        a.reshape((1,) * (n - a.ndim) + a.shape), b.reshape((1,) * (n - b.ndim) + b.shape)
    )


def _vnorm_ref(a, ord=2, dim=None, keepdim=False, dtype=None):
    x = np.abs(a.astype(np.float64))
    axis = None if dim is None else (tuple(dim) if isinstance(dim, (tuple, list)) else dim)
    if ord == np.inf:
        r = x.max(axis=axis, keepdims=keepdim)
    elif ord == -np.inf:
        r = x.min(axis=axis, keepdims=keepdim)
    elif ord == 0:
        r = (x != 0).sum(axis=axis, keepdims=keepdim)
    else:
        r = (x**ord).sum(axis=axis, keepdims=keepdim) ** (1.0 / ord)
    return np.asarray(r).astype(a.dtype)


def _mnorm_ref(a, ord="fro", dim=(-2, -1), keepdim=False, dtype=None):
    r = np.linalg.norm(a.astype(np.float64), ord=ord, axis=tuple(dim), keepdims=keepdim)
    return np.asarray(r).astype(a.dtype)


def _norm_ref(a, ord=None, dim=None, keepdim=False):
    if ord is None and dim is None:
        return np.asarray(np.linalg.norm(a.astype(np.float64).reshape(-1))).astype(a.dtype)
    if isinstance(dim, (tuple, list)) and len(dim) == 2 or (dim is None and a.ndim == 2):
        return _mnorm_ref(a, "fro" if ord is None else ord, dim or (-2, -1), keepdim)
    return _vnorm_ref(a, 2 if ord is None else ord, dim, keepdim)


def _samples(*specs, low=-3, high=3, well=False):
    def gen(dtype, rng):
        out = []
        for shape, args, kw in specs:
            a = _well(shape, dtype, rng) if well else make_arg(shape, dtype, rng, low, high)
            out.append(_S(a, args, dict(kw), name=f"{shape}{args}{kw}"))
        return out

    return gen


_NORM_SHAPES = [((5,), (), {}), ((2, 3), (), {}), ((2, 3, 4), (), {"dim": (1,)}), ((2, 3), (), {"ord": 1, "dim": 0}),
                ((4,), (), {"ord": np.inf}), ((4,), (), {"ord": -np.inf}), ((4,), (), {"ord": 3}),
                ((2, 3), (), {"ord": 0.5, "dim": 1, "keepdim": True})]  # fmt: skip
_MNORM_SHAPES = [((3, 4), (), {}), ((3, 4), (), {"ord": 1}), ((3, 4), (), {"ord": -1}), ((3, 4), (), {"ord": np.inf}),
                 ((3, 4), (), {"ord": -np.inf}), ((2, 3, 4), (), {"ord": "fro", "keepdim": True}),
                 ((2, 3, 4), (), {"ord": 1, "dim": (0, 2)}), ((3, 3), (), {"ord": "nuc"}), ((3, 3), (), {"ord": 2}),
                 ((3, 3), (), {"ord": -2})]  # fmt: skip

OPINFOS = [
    OpInfo("matmul", np.matmul, _pairs(((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)),
                                       ((2, 2, 3), (3, 4)), ((3,), (2, 3, 4)), ((2, 1, 2, 3), (3, 3, 2)),
                                       ((2, 2, 3), (3,)), ((4, 3), (3, 2), True), ((2, 0), (0, 3))),
           dtypes=MATMUL_DTYPES, method="matmul", supports_out=True, tol=_TOL, variants=("__matmul__", "__rmatmul__")),
    OpInfo("mm", np.matmul, _pairs(((2, 3), (3, 4)), ((1, 5), (5, 1)), ((4, 3), (3, 2), True), ((2, 0), (0, 3))),
           dtypes=MATMUL_DTYPES, method="mm", supports_out=True, tol=_TOL),
    OpInfo("bmm", np.matmul, _pairs(((2, 2, 3), (2, 3, 4)), ((1, 3, 3), (1, 3, 1)), ((3, 2, 4), (3, 4, 2), True)),
           dtypes=MATMUL_DTYPES, method="bmm", supports_out=True, tol=_TOL),
    OpInfo("mv", np.matmul, _pairs(((2, 3), (3,)), ((4, 5), (5,), True), ((0, 3), (3,))),
           dtypes=MATMUL_DTYPES, method="mv", supports_out=True, tol=_TOL),
    OpInfo("dot", np.dot, _pairs(((4,), (4,)), ((7,), (7,), True), ((0,), (0,))),
           dtypes=MATMUL_DTYPES, method="dot", supports_out=True, tol=_TOL),
    OpInfo("vdot", lambda a, b: np.vdot(a, b), _pairs(((4,), (4,)), ((5,), (5,), True)),
           dtypes=MATMUL_DTYPES, method="vdot", supports_out=True, tol=_TOL),
    OpInfo("addmm", _addref(np.matmul), _triples(((2, 4), (2, 3), (3, 4)), ((4,), (2, 3), (3, 4)),
                                                 kwargs=({}, {"beta": 0.5, "alpha": 2}, {"beta": 0})),
           dtypes=FLOATS, method="addmm", supports_out=True, tol=_TOL),
    OpInfo("addmv", _addref(np.matmul), _triples(((2,), (2, 3), (3,)), ((1,), (4, 3), (3,)),
                                                 kwargs=({}, {"beta": 2, "alpha": 0.5})),
           dtypes=FLOATS, method="addmv", supports_out=True, tol=_TOL),
    OpInfo("baddbmm", _addref(np.matmul), _triples(((2, 2, 4), (2, 2, 3), (2, 3, 4)), ((2, 4), (2, 2, 3), (2, 3, 4)),
                                                   kwargs=({}, {"beta": 0.5, "alpha": -1})),
           dtypes=FLOATS, method="baddbmm", supports_out=True, tol=_TOL),
    OpInfo("addbmm", _addref(lambda a, b: np.matmul(a, b).sum(0)), _triples(((2, 4), (3, 2, 3), (3, 3, 4)),
                                                                          kwargs=({}, {"beta": 0.5, "alpha": 2})),
           dtypes=FLOATS, method="addbmm", supports_out=True, tol=_TOL),
    OpInfo("outer", np.outer, _pairs(((3,), (4,)), ((1,), (2,)), ((0,), (2,))), dtypes=MATMUL_DTYPES, method="outer",
           supports_out=True),
    OpInfo("inner", np.inner, _pairs(((3,), (3,)), ((2, 3), (4, 3)), ((2, 1, 3), (3,), True), ((), (4,)), ((0, 2), (3, 2))),
           dtypes=MATMUL_DTYPES, method="inner", supports_out=True, tol=_TOL),
    OpInfo("ger", np.outer, _pairs(((3,), (4,))), dtypes=FLOATS, method="ger", supports_out=True),
    OpInfo("einsum", lambda eq, *ops: np.einsum(eq, *ops), _einsum_samples, dtypes=("float32", "float64", "int64"),
           tol=_TOL),
    OpInfo("tensordot", _tensordot_ref, _tensordot_samples, dtypes=MATMUL_DTYPES, supports_out=True, tol=_TOL),
    OpInfo("kron", _kron_ref, _pairs(((2, 3), (2, 2)), ((2,), (3, 2)), ((2, 1, 2), (1, 2, 1))), dtypes=MATMUL_DTYPES,
           method="kron", supports_out=True),
    OpInfo("linalg.cross", lambda a, b, dim=-1: np.cross(a, b, axis=dim),
           _pairs(((3,), (3,)), ((2, 3), (2, 3)), ((4, 1, 3), (4, 2, 3))), dtypes=("float32", "float64", "int64"),
           supports_out=True),
    OpInfo("cross", lambda a, b, dim=None: np.cross(a, b, axis=dim), _pairs(((3, 2), (3, 2)), kwargs={"dim": 0}),
           dtypes=FLOATS, method="cross", supports_out=True),
    OpInfo("trace", lambda a: np.asarray(np.trace(a, dtype=np.int64 if a.dtype.kind in "iu" else a.dtype)),
           _samples(((3, 3), (), {}), ((2, 4), (), {}), ((4, 2), (), {}), ((0, 3), (), {})),
           dtypes=("float32", "float64", "int32", "int64"), method="trace"),
    OpInfo("linalg.inv", np.linalg.inv, _samples(((3, 3), (), {}), ((2, 2, 2), (), {}), ((1, 1), (), {}), well=True),
           supports_out=True, tol=_TOL),
    OpInfo("inverse", np.linalg.inv, _samples(((3, 3), (), {}), ((2, 2, 2), (), {}), well=True), method="inverse",
           supports_out=True, tol=_TOL),
    OpInfo("linalg.det", lambda a: np.asarray(np.linalg.det(a)), _samples(((3, 3), (), {}), ((2, 2, 2), (), {}),
                                                                          ((1, 1), (), {}), well=True),
           supports_out=True, tol=_TOL),
    OpInfo("det", lambda a: np.asarray(np.linalg.det(a)), _samples(((3, 3), (), {}), well=True), method="det", tol=_TOL),
    OpInfo("linalg.slogdet", lambda a: tuple(np.asarray(v) for v in np.linalg.slogdet(a)), _slogdet_samples, tol=_TOL),
    OpInfo("slogdet", lambda a: tuple(np.asarray(v) for v in np.linalg.slogdet(a)), _slogdet_samples, method="slogdet", tol=_TOL),
    OpInfo("logdet", lambda a: np.asarray(np.log(np.linalg.det(a))), _samples(((3, 3), (), {}), ((2, 2, 2), (), {}), well=True),
           method="logdet", tol=_TOL),
    OpInfo("linalg.matrix_power", np.linalg.matrix_power,
           _samples(((3, 3), (3,), {}), ((2, 2, 2), (2,), {}), ((3, 3), (0,), {}), ((3, 3), (-2,), {}), ((1, 1), (1,), {}),
                    well=True), supports_out=True, tol=_TOL),
    OpInfo("matrix_power", np.linalg.matrix_power, _samples(((3, 3), (2,), {}), ((2, 3, 3), (-1,), {}), well=True),
           method="matrix_power", supports_out=True, tol=_TOL),
    OpInfo("linalg.solve", _solve_ref, _square_samples(extra=[((3, 3), (3,), (), {}), ((3, 3), (3, 2), (), {}),
                                                              ((2, 3, 3), (3, 2), (), {}), ((2, 3, 3), (2, 3), (), {}),
                                                              ((3, 3), (2, 3), (), {"left": False})]),
           supports_out=True, tol=_TOL),
    OpInfo("linalg.svdvals", lambda a: np.linalg.svd(a, compute_uv=False),
           _samples(((3, 3), (), {}), ((2, 3, 4), (), {}), ((4, 2), (), {})), supports_out=True, tol=_TOL,
           gradgrad=False),
    OpInfo("linalg.qr", lambda a, mode="reduced": tuple(np.linalg.qr(a, mode=mode)),
           _samples(((3, 3), (), {}), ((4, 2), (), {}), ((2, 4), (), {}), ((2, 3, 2), (), {}),
                    ((2, 4), ("complete",), {})), tol=_TOL),
    OpInfo("linalg.vector_norm", _vnorm_ref, _samples(*_NORM_SHAPES), supports_out=True, tol=_TOL),
    OpInfo("linalg.matrix_norm", _mnorm_ref, _samples(*_MNORM_SHAPES), supports_out=True, tol=_TOL,
           gradgrad=False),
    OpInfo("linalg.norm", _norm_ref, _samples(((5,), (), {}), ((2, 3), (), {}), ((2, 3), (), {"ord": 1}),
                                              ((2, 3, 4), (), {"dim": (0, 2)}), ((4,), (), {"ord": np.inf})),
           supports_out=True, tol=_TOL, gradgrad=False),
]  # fmt: skip


# ---- numtorch/ops/linalg/decomp.py: cholesky, eigh, svd, pinv, lstsq, cdist, block_diag ----------------
_HERMITIAN_GRAD = ("reads one triangle of a Hermitian input, so entrywise finite differences differ from "
                   "the symmetric gradient: tests/ops/linalg/test_decomp.py gradchecks it on A + A^H")  # fmt: skip


def _pd(shape, dtype, rng):
    a = make_arg(shape, dtype, rng, -1, 1)
    return (a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def _sym(shape, dtype, rng):
    """Symmetric with well separated eigenvalues (eigh's derivative divides by their gaps)."""
    a = make_arg(shape, dtype, rng, -0.3, 0.3)
    d = np.diag(np.arange(1, shape[-1] + 1, dtype=np.float64) * 2)
    return (a + np.swapaxes(a, -1, -2) + d).astype(dtype)


def _distinct_sv(shape, dtype, rng):
    """Singular values 1, 2, 3, ... times random orthogonal factors."""
    m, n = shape[-2:]
    k = min(m, n)
    out = np.empty(shape, np.float64)
    for idx in np.ndindex(*shape[:-2]):
        u = np.linalg.qr(rng.standard_normal((m, m)))[0][:, :k]
        v = np.linalg.qr(rng.standard_normal((n, n)))[0][:, :k]
        out[idx] = (u * np.arange(1, k + 1)) @ v.T
    return out.astype(dtype)


def _gen(make, *specs):
    def gen(dtype, rng):
        return [_S(make(shape, dtype, rng), args, dict(kw), name=f"{shape}{args}{kw}") for shape, args, kw in specs]

    return gen


def _chol_ref(a, upper=False):
    low = np.linalg.cholesky(a)
    return np.swapaxes(low, -1, -2).copy() if upper else low


def _tsvd_ref(a, some=True, compute_uv=True):
    u, s, vh = np.linalg.svd(a, full_matrices=not some)
    return u, s, np.swapaxes(vh, -1, -2)


def _lstsq_ref(a, b, rcond=None):
    vec = b.ndim == a.ndim - 1
    bb = b[..., None] if vec else b
    batch = np.broadcast_shapes(a.shape[:-2], bb.shape[:-2])
    a2 = np.broadcast_to(a, batch + a.shape[-2:]).reshape(-1, *a.shape[-2:])
    b2 = np.broadcast_to(bb, batch + bb.shape[-2:]).reshape(-1, *bb.shape[-2:])
    sol = [np.linalg.lstsq(x, y, rcond=None) for x, y in zip(a2, b2, strict=True)]
    x = np.stack([r[0] for r in sol]).reshape(batch + (a.shape[-1], bb.shape[-1]))
    rank = np.array([r[2] for r in sol], np.int64).reshape(batch)
    empty = np.zeros((0,), a.dtype)
    return x[..., 0] if vec else x, empty, rank, empty


def _lstsq_samples(dtype, rng):
    def m(*s):
        return make_arg(s, dtype, rng, -2, 2)

    return [_S(m(5, 3), (m(5, 2),), name="tall"), _S(m(4, 3), (m(4),), name="vector"),
            _S(m(2, 4, 2), (m(1, 4, 1),), name="batched,broadcast"), _S(m(3, 3), (m(3, 2),), name="square")]  # fmt: skip


def _cdist_ref(x1, x2, p=2.0, compute_mode=None):
    d = x1[..., :, None, :].astype(np.float64) - x2[..., None, :, :]
    return np.linalg.norm(d, ord=p, axis=-1).astype(x1.dtype)


def _block_diag_ref(*ts):
    ms = [np.asarray(t).reshape(1, -1) if np.ndim(t) < 2 else np.asarray(t) for t in ts]
    out = np.zeros((sum(m.shape[0] for m in ms), sum(m.shape[1] for m in ms)), np.result_type(*ms))
    r = c = 0
    for m in ms:
        out[r : r + m.shape[0], c : c + m.shape[1]] = m
        r, c = r + m.shape[0], c + m.shape[1]
    return out


def _block_diag_samples(dtype, rng):
    def m(*s):
        return make_arg(s, dtype, rng, -3, 3)

    return [_S(m(2, 3), (m(1, 2),), name="2d,2d"), _S(m(2, 2), (m(3), m()), name="2d,1d,0d"),
            _S(m(3), name="one 1d"), _S(m(2, 0), (m(1, 2),), name="empty block")]  # fmt: skip


def _cdist_samples(dtype, rng):
    def m(*s):
        return make_arg(s, dtype, rng, -2, 2)

    kws = ({}, {"p": 1.0}, {"p": 3.0}, {"p": float("inf")}, {"p": 0.5})
    return [_S(m(3, 2), (m(4, 2),), dict(kw), name=f"{kw}") for kw in kws] + [
        _S(m(2, 3, 2), (m(1, 2, 2),), name="batched broadcast")
    ]


_SVD_SAMPLES = _gen(_distinct_sv, ((3, 3), (), {}), ((4, 2), (False,), {}), ((2, 4), (), {"full_matrices": False}),
                    ((2, 3, 2), (False,), {}))  # fmt: skip

OPINFOS += [
    OpInfo("linalg.cholesky", _chol_ref, _gen(_pd, ((3, 3), (), {}), ((2, 3, 3), (), {}), ((1, 1), (), {}),
                                              ((3, 3), (), {"upper": True})),
           supports_out=True, tol=_TOL, skips={"grad": _HERMITIAN_GRAD, "gradgrad": _HERMITIAN_GRAD}),
    OpInfo("cholesky", _chol_ref, _gen(_pd, ((3, 3), (), {}), ((2, 2, 2), (True,), {})), method="cholesky", tol=_TOL,
           skips={"grad": _HERMITIAN_GRAD, "gradgrad": _HERMITIAN_GRAD}),
    OpInfo("linalg.eigh", lambda a, UPLO="L": tuple(np.linalg.eigh(a, UPLO=UPLO)),
           _gen(_sym, ((3, 3), (), {}), ((2, 3, 3), (), {}), ((3, 3), ("U",), {})), tol=_TOL,
           skips={"grad": _HERMITIAN_GRAD, "gradgrad": _HERMITIAN_GRAD}),
    OpInfo("linalg.eigvalsh", lambda a, UPLO="L": np.linalg.eigvalsh(a, UPLO=UPLO),
           _gen(_sym, ((3, 3), (), {}), ((2, 3, 3), (), {}), ((3, 3), ("U",), {})), supports_out=True, tol=_TOL,
           skips={"grad": _HERMITIAN_GRAD, "gradgrad": _HERMITIAN_GRAD}),
    OpInfo("linalg.svd", lambda a, full_matrices=True: tuple(np.linalg.svd(a, full_matrices=full_matrices)),
           _SVD_SAMPLES, tol=_TOL),
    OpInfo("svd", _tsvd_ref, _gen(_distinct_sv, ((3, 3), (), {}), ((4, 2), (), {}), ((2, 2, 3), (True,), {})),
           method="svd", tol=_TOL),
    # pinv(hermitian=True) reads one triangle (as eigh): linalg/test_decomp.py tests it
    OpInfo("linalg.pinv", lambda a, hermitian=False: np.linalg.pinv(a, hermitian=hermitian),
           _gen(_distinct_sv, ((3, 3), (), {}), ((4, 2), (), {}), ((2, 2, 3), (), {})), supports_out=True, tol=_TOL),
    OpInfo("linalg.lstsq", _lstsq_ref, _lstsq_samples, tol=_TOL),
    OpInfo("cdist", _cdist_ref, _cdist_samples, tol=_TOL),
    OpInfo("block_diag", _block_diag_ref, _block_diag_samples, dtypes=("float32", "float64", "int64")),
]  # fmt: skip
