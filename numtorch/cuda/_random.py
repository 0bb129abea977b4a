"""CUDA random numbers drawn on the device (numtorch/kernels/cuda/random.py: Philox4x32-10).

# Note [CUDA random numbers]
# As PyTorch's CUDA generator, numtorch's is counter-based: a 64-bit seed (the Philox key) and
# a 64-bit offset that every call advances, so no two calls (and no two threads of one call)
# share a counter and nothing but (seed, offset) is state. ``numtorch.cuda.manual_seed`` (and
# ``numtorch.manual_seed``, as in PyTorch) set the seed and restart the offset; get/set_rng_state
# carry the two as 16 bytes, PyTorch's layout. The streams are Philox's but not bit-identical
# with PyTorch's, whose thread-to-counter mapping follows its launch configuration.
"""

from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._device import device as _device
from .._tensor import Tensor, _make
from ..kernels import lazy
from . import _pointwise as P
from . import _storage as S
from ._launch import launch

K_RND = lazy("numtorch.kernels.cuda.random")
STATE = [None, 0]  # [seed (None: the CPU default generator's initial seed), offset]
_LO = (1 << 32) - 1


def seed() -> int:
    if STATE[0] is None:
        from .. import initial_seed

        return initial_seed()
    return STATE[0]


def manual_seed(value: int) -> None:
    STATE[0], STATE[1] = int(value) & ((1 << 64) - 1), 0


def get_state() -> Tensor:
    raw = np.array([seed(), STATE[1]], np.uint64).view(np.uint8)
    return _make(raw.copy(), D.uint8)


def set_state(state) -> None:
    a = np.ascontiguousarray(state.cpu().numpy() if isinstance(state, Tensor) else state)
    if a.dtype != np.uint8 or a.size != 16:
        raise RuntimeError("RNG state is wrong size")
    STATE[0], STATE[1] = (int(v) for v in a.view(np.uint64))


def _counter() -> tuple:
    """(k0, k1, c2, c3) for one call; advances the offset (Note [CUDA random numbers])."""
    s, off = seed(), STATE[1]
    STATE[1] = off + 1
    return tuple(np.uint64(v) for v in (s & _LO, s >> 32, off & _LO, (off >> 32) & _LO))


def _no_generator(generator) -> None:
    if generator is not None and getattr(generator, "device", _device("cpu")).type != "cuda":
        raise RuntimeError(f"Expected a 'cuda' device type for generator but found '{generator.device.type}'")


def fill_random(t: Tensor, normal: bool, a: float, b: float, name: str) -> Tensor:
    """Fill ``t`` (float32/float64, any strides) with uniforms on [a, b) or normals (a, b)."""
    dt = t._dtype
    if dt not in (D.float32, D.float64):
        raise P.not_implemented(name, dt)
    dst = t._data
    n = dst.size
    if n:
        buf = dst if dst.contiguous else S.empty(dst.shape, dt.np)
        wide = dt is D.float64
        per = 2 if wide else 4
        launch(K_RND.philox_fill, (n + per - 1) // per, S.window(buf), n, *_counter(),
               normal, wide, float(a), float(b))  # fmt: skip
        if buf is not dst:
            from ._install import copy_into

            copy_into(dst, buf)
    t._vc[0] += 1
    return t


def _uniform_(self, from_=0.0, to=1.0, generator=None):
    _no_generator(generator)
    if from_ > to:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={from_} > to={to}")
    return fill_random(self, False, from_, to, "uniform")


def _normal_(self, mean=0.0, std=1.0, generator=None):
    _no_generator(generator)
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    return fill_random(self, True, mean, std, "normal")


def _empty(shape, dtype, dev) -> Tensor:
    dt = D.get_default_dtype() if dtype is None else D.to_dtype(dtype)
    from ._install import cuda_device

    return _make(S.empty(tuple(shape), dt.np), dt, Tensor, cuda_device(dev))


def _uniforms_like(t: Tensor) -> Tensor:
    wide = D.float64 if t._dtype is D.float64 else D.float32
    return fill_random(_make(S.empty(t._data.shape, wide.np), wide, Tensor, t._device), False, 0, 1, "uniform")


def _bernoulli_(self, p=0.5, generator=None):
    _no_generator(generator)
    if not isinstance(p, Tensor) and not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
    from ._install import copy_into

    hits = _uniforms_like(self) < p
    copy_into(self._data, hits._data)
    self._vc[0] += 1
    return self


def _bernoulli(self, generator=None):
    _no_generator(generator)
    return (_uniforms_like(self) < self).to(self.dtype)


def _bernoulli_p(self, p, generator=None):
    return _bernoulli_(_make(S.empty(self._data.shape, self._dtype.np), self._dtype, Tensor, self._device), p,
                       generator)  # fmt: skip


def _factory(normal: bool, gen: bool):
    def impl(size, *rest):
        generator, rest = (rest[0], rest[1:]) if gen else (None, rest)
        _no_generator(generator)
        dtype, _layout, dev = rest[0], rest[1], rest[2]
        t = _empty(size, dtype, dev)
        return fill_random(t, normal, 0.0, 1.0, "normal" if normal else "uniform")

    return impl


def _like(normal: bool, gen: bool):
    def impl(self, *rest):
        generator, rest = (rest[0], rest[1:]) if gen else (None, rest)
        _no_generator(generator)
        dtype, _layout, dev = rest[0], rest[1], rest[2]
        if dev is not None and dev.type != "cuda":
            import numtorch

            return (numtorch.randn if normal else numtorch.rand)(self.shape, dtype=dtype or self.dtype, device=dev)
        t = _empty(self._data.shape, dtype or self._dtype, dev or self._device)
        return fill_random(t, normal, 0.0, 1.0, "normal" if normal else "uniform")

    return impl


def _normal_float_float(mean, std, size, generator=None, dtype=None, layout=None, device=None, pin_memory=None):
    _no_generator(generator)
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    return fill_random(_empty(size, dtype, device), True, mean, std, "normal")


def _normal_tensors(mean, std, generator=None):
    # mean + std * N(0, 1), on the operands' broadcast shape; PyTorch's std check first
    _no_generator(generator)
    if isinstance(std, Tensor):
        if std.numel() and bool((std < 0).any().item()):
            raise RuntimeError("normal expects all elements of std >= 0.0")
    elif std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    like = mean if isinstance(mean, Tensor) else std
    shape = like.shape
    if isinstance(mean, Tensor) and isinstance(std, Tensor):
        from ..ops._pointwise import _broadcast

        shape = _broadcast([mean._data.shape, std._data.shape])
    z = fill_random(_make(S.empty(tuple(shape), like._dtype.np), like._dtype, Tensor, like._device), True, 0.0,
                    1.0, "normal")  # fmt: skip
    return z * std + mean


IMPLS = {
    "aten::uniform_": _uniform_,
    "aten::normal_": _normal_,
    "aten::bernoulli_.float": _bernoulli_,
    "aten::bernoulli_.Tensor": _bernoulli_,
    "aten::bernoulli": _bernoulli,
    "aten::bernoulli.p": _bernoulli_p,
    "aten::rand": _factory(False, False),
    "aten::rand.generator": _factory(False, True),
    "aten::randn": _factory(True, False),
    "aten::randn.generator": _factory(True, True),
    "aten::rand_like": _like(False, False),
    "aten::rand_like.generator": _like(False, True),
    "aten::randn_like": _like(True, False),
    "aten::randn_like.generator": _like(True, True),
    "aten::normal.float_float": _normal_float_float,
    "aten::normal.Tensor_float": _normal_tensors,
    "aten::normal.float_Tensor": _normal_tensors,
    "aten::normal.Tensor_Tensor": _normal_tensors,
}


def install(ops: dict) -> dict:
    return {k: v for k, v in IMPLS.items() if k in ops}

