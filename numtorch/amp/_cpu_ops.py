"""CPU autocast's op lists and casts (Note [CPU autocast] in autocast_mode.py).

PyTorch's AutocastCPU key sits above Autograd: for an op on its lower-precision list it casts
the floating operands (float64 excluded) to the autocast dtype, for an op on its float32 list to
float32, and for an op on its promote list to the widest floating dtype among them; the casts
are recorded by autograd, so gradients reach float32 leaves in float32. numtorch gets the same
place by replacing ``op.fast`` of those ops (what every binding and ``numtorch.ops.aten`` call
enters) while CPU autocast is on; the wrapper casts and then takes slow_dispatch (which never
regenerates op.fast), and leaving autocast resets op.fast: ops pay nothing outside a region.
"""

from __future__ import annotations

from .. import _dtype as D
from .._dispatch import slow_dispatch
from .._tensor import Tensor

# aten/src/ATen/autocast_mode.cpp, the CPU lists (names numtorch registers)
LOWER = ("conv1d", "conv2d", "conv3d", "bmm", "mm", "linalg_vecdot", "baddbmm", "addmm", "addbmm", "linear",
         "matmul", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "prelu",
         "scaled_dot_product_attention", "_native_multi_head_attention")  # fmt: skip
FP32 = ("avg_pool3d", "binary_cross_entropy", "grid_sampler", "polar", "prod", "quantile", "nanquantile", "stft",
        "cdist", "trace", "view_as_complex", "cholesky", "cholesky_inverse", "cholesky_solve", "inverse",
        "lu_solve", "orgqr", "ormqr", "pinverse", "max_pool3d", "max_unpool2d", "max_unpool3d",
        "adaptive_avg_pool3d", "reflection_pad1d", "reflection_pad2d", "replication_pad1d", "replication_pad2d",
        "replication_pad3d", "mse_loss", "cosine_embedding_loss", "nll_loss", "nll_loss2d",
        "hinge_embedding_loss", "poisson_nll_loss", "smooth_l1_loss", "cross_entropy_loss", "l1_loss",
        "huber_loss", "margin_ranking_loss", "soft_margin_loss", "triplet_margin_loss", "multi_margin_loss",
        "ctc_loss", "kl_div", "multilabel_margin_loss", "binary_cross_entropy_with_logits", "fft_fft",
        "fft_ifft", "fft_fft2", "fft_ifft2", "fft_fftn", "fft_ifftn", "fft_rfft", "fft_irfft", "fft_rfft2",
        "fft_irfft2", "fft_rfftn", "fft_irfftn", "fft_hfft", "fft_ihfft", "linalg_cond", "linalg_matrix_rank",
        "linalg_solve", "linalg_cholesky", "linalg_svdvals", "linalg_eigvals", "linalg_eigvalsh", "linalg_inv",
        "linalg_householder_product", "linalg_tensorinv", "linalg_tensorsolve", "fake_quantize_per_tensor_affine",
        "geqrf", "_lu_with_info", "qr", "svd", "triangular_solve", "fractional_max_pool2d",
        "fractional_max_pool3d", "adaptive_max_pool3d", "multilabel_margin_loss_forward", "linalg_qr",
        "linalg_cholesky_ex", "linalg_svd", "linalg_eig", "linalg_eigh", "linalg_lstsq", "linalg_inv_ex")  # fmt: skip
PROMOTE = ("stack", "cat", "index_copy")

_INSTALLED: dict = {}  # the wrapped OpOverloads
_CACHE: dict = {}  # id(leaf) -> (leaf, cast): the weight-cast cache, emptied on leaving the outermost region


def install(state) -> None:
    """Wrap the listed ops' ``fast`` entries (idempotent)."""
    if _INSTALLED:
        return
    from ..ops import aten

    for names, kind in ((LOWER, 0), (FP32, 1), (PROMOTE, 2)):
        for name in names:
            packet = getattr(aten, name, None)
            if packet is None:
                continue
            for ov in packet.overloads():
                op = getattr(packet, ov)
                _INSTALLED[op] = True
                op.fast = _wrapper(op, kind, state)


def uninstall() -> None:
    for op in _INSTALLED:
        op._reset_fast()  # the next call regenerates the plain fast path
    _INSTALLED.clear()


def clear_cache() -> None:
    _CACHE.clear()


def _wrapper(op, kind: int, state):
    tix, lix = op.tensor_idx, op.list_idx

    def fast(*vals):
        if not state["enabled"]:
            return slow_dispatch(op, list(vals))
        if kind == 2:
            dt = _widest(vals, tix, lix)
        else:
            dt = state["dtype"] if kind == 0 else D.float32
        if dt is not None:
            vals = list(vals)
            for i in tix:
                vals[i] = _cast(vals[i], dt, state["cache"])
            for i in lix:
                vals[i] = type(vals[i])(_cast(v, dt, state["cache"]) for v in vals[i])
        with _off(state):  # the op's own body (a composite's mm) does not cast again
            return slow_dispatch(op, vals if type(vals) is list else list(vals))

    return fast


class _off:
    __slots__ = ("state", "prev")

    def __init__(self, state):
        self.state = state

    def __enter__(self):
        self.prev = self.state["enabled"]
        self.state["enabled"] = False

    def __exit__(self, *exc):
        self.state["enabled"] = self.prev


def _eligible(t) -> bool:
    # PyTorch's is_eligible: a floating CPU tensor, float64 excepted
    return (isinstance(t, Tensor) and t._dtype.category == D._FLOAT and t._dtype is not D.float64
            and t._device.type == "cpu")  # fmt: skip


def _cast(t, dt, cache: bool):
    if not _eligible(t) or t._dtype is dt:
        return t
    if cache and t._rg and t._grad_fn is None:  # a parameter: cast once per region, as PyTorch
        hit = _CACHE.get(id(t))
        if hit is not None and hit[0] is t:
            return hit[1]
        r = t.to(dt)
        _CACHE[id(t)] = (t, r)
        return r
    return t.to(dt)


def _widest(vals, tix, lix):
    dts = [vals[i]._dtype for i in tix if _eligible(vals[i])]
    dts += [v._dtype for i in lix for v in vals[i] if _eligible(v)]
    if len(set(dts)) < 2:
        return None
    r = dts[0]
    for d in dts[1:]:
        r = D.promote_types(r, d)
    return r
