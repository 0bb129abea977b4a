"""Random number generators: ``numtorch.Generator``, the default generator and the seeding API.

# Note [numtorch's random streams]
# A Generator wraps NumPy's PCG64 bit generator (``np.random.Generator(np.random.PCG64(seed))``).
# Seeding is reproducible: the same seed gives the same values in every process and on every
# platform NumPy supports, but the values are NOT PyTorch's (PyTorch uses mt19937 / Philox and
# its own transforms), so ``numtorch.manual_seed(0); numtorch.rand(3)`` differs from torch's.
# The state is a uint8 tensor of _STATE_BYTES bytes, not PyTorch's 5056-byte layout.
"""

from __future__ import annotations

import contextlib
import os

import numpy as np

from ._device import device as _device_cls
from ._device import to_device
from ._tensor import Tensor, _make

_DEFAULT_SEED = 67280421310721  # PyTorch's default_rng_seed_val: fresh generators start here
_MASK64 = (1 << 64) - 1
_STATE_BYTES = 56  # seed (8) + PCG64 state (16) + increment (16) + has_uint32 (8) + uinteger (8)


def _to_u64(seed) -> int:
    if not -(2**63) <= seed < 2**64:
        raise ValueError("Overflow when unpacking long long")
    return seed & _MASK64


class Generator:
    """A random number generator (NumPy's PCG64); pass it as ``generator=`` to random ops.

    Streams are reproducible under ``manual_seed`` but differ from PyTorch's (Note [numtorch's
    random streams]).

    >>> g = numtorch.Generator().manual_seed(42)
    >>> a = numtorch.rand(2, generator=g)
    >>> _ = g.manual_seed(42)
    >>> bool((numtorch.rand(2, generator=g) == a).all())
    True
    """

    __slots__ = ("_device", "_seed", "_np", "__weakref__")

    def __init__(self, device="cpu"):
        dev = to_device(device)
        if dev.type != "cpu":
            raise RuntimeError(
                f"numtorch.Generator: only CPU generators are available, got device '{dev}'"
            )
        self._device = dev
        self._set_seed(_DEFAULT_SEED)

    def _set_seed(self, seed: int) -> None:
        self._seed = seed
        self._np = np.random.Generator(np.random.PCG64(seed))

    @property
    def device(self) -> _device_cls:
        return self._device

    def manual_seed(self, seed) -> Generator:
        """Reseed (ints in [-2**63, 2**64); negatives wrap) and return self.

        >>> numtorch.Generator().manual_seed(3).initial_seed()
        3
        """
        if type(seed) is not int and not isinstance(seed, np.integer):
            raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
        self._set_seed(_to_u64(int(seed)))
        return self

    def seed(self) -> int:
        """Reseed from a non-deterministic source and return the new seed.

        >>> isinstance(numtorch.Generator().seed(), int)
        True
        """
        s = int.from_bytes(os.urandom(8), "little")
        self._set_seed(s)
        return s

    def initial_seed(self) -> int:
        """The seed this generator was last seeded with.

        >>> numtorch.Generator().manual_seed(7).initial_seed()
        7
        """
        return self._seed

    def get_state(self) -> Tensor:
        """The generator's state as a uint8 tensor (restores with ``set_state``).

        >>> numtorch.Generator().get_state().dtype
        torch.uint8
        """
        st = self._np.bit_generator.state
        words = (
            self._seed,
            st["state"]["state"],
            st["state"]["inc"],
            st["has_uint32"],
            st["uinteger"],
        )
        sizes = (8, 16, 16, 8, 8)
        raw = b"".join(int(w).to_bytes(n, "little") for w, n in zip(words, sizes, strict=True))
        from . import _dtype as D

        return _make(np.frombuffer(raw, np.uint8).copy(), D.uint8)

    def set_state(self, new_state: Tensor) -> Generator:
        """Restore a state from ``get_state`` and return self.

        >>> g = numtorch.Generator(); s = g.get_state(); a = numtorch.rand(1, generator=g)
        >>> bool((numtorch.rand(1, generator=g.set_state(s)) == a).all())
        True
        """
        if not isinstance(new_state, Tensor):
            raise TypeError(f"expected a torch.ByteTensor, but got {type(new_state).__name__}")
        if new_state.dtype.name != "uint8":
            raise TypeError("RNG state must be a torch.ByteTensor")
        raw = bytes(np.ascontiguousarray(new_state._host()).reshape(-1))
        if len(raw) != _STATE_BYTES:
            raise RuntimeError(
                f"Expected a CPUGeneratorImplState of size {_STATE_BYTES} but found the input RNG state "
                f"size to be {len(raw)}"
            )
        vals, off = [], 0
        for n in (8, 16, 16, 8, 8):
            vals.append(int.from_bytes(raw[off : off + n], "little"))
            off += n
        seed, state, inc, has_uint32, uinteger = vals
        bg = np.random.PCG64()
        bg.state = {"bit_generator": "PCG64", "state": {"state": state, "inc": inc},
                    "has_uint32": has_uint32, "uinteger": uinteger}  # fmt: skip
        self._seed = seed
        self._np = np.random.Generator(bg)
        return self

    def clone_state(self) -> Generator:
        """A new generator in the same state.

        >>> numtorch.Generator().manual_seed(5).clone_state().initial_seed()
        5
        """
        g = Generator(self._device)
        return g.set_state(self.get_state())

    def __getstate__(self):
        return (str(self._device), self.get_state()._data.tobytes())

    def __setstate__(self, state) -> None:
        from . import _dtype as D

        self._device = to_device(state[0])
        self.set_state(_make(np.frombuffer(state[1], np.uint8).copy(), D.uint8))

    def __repr__(self) -> str:
        return f"<numtorch.Generator object at {hex(id(self))}>"


default_generator = Generator()


def manual_seed(seed) -> Generator:
    """Seed the default generator (``int(seed)``) and return it.

    >>> numtorch.manual_seed(0).initial_seed()
    0
    """
    g = default_generator.manual_seed(_to_u64(int(seed)))
    from .cuda import _random as cuda_random  # PyTorch's manual_seed seeds every CUDA device too

    cuda_random.manual_seed(_to_u64(int(seed)))
    return g


def seed() -> int:
    """Seed the default generator non-deterministically; return the seed.

    >>> isinstance(numtorch.seed(), int)
    True
    """
    return default_generator.seed()


def initial_seed() -> int:
    """The default generator's seed.

    >>> _ = numtorch.manual_seed(4); numtorch.initial_seed()
    4
    """
    return default_generator.initial_seed()


def get_rng_state() -> Tensor:
    """The default generator's state (a uint8 tensor).

    >>> numtorch.get_rng_state().dtype
    torch.uint8
    """
    return default_generator.get_state()


def set_rng_state(new_state: Tensor) -> None:
    """Restore the default generator's state from ``get_rng_state``.

    >>> s = numtorch.get_rng_state(); numtorch.set_rng_state(s)
    """
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(devices=None, enabled: bool = True, _caller: str = "fork_rng", _devices_kw: str = "devices",
             device_type: str = "cuda"):  # fmt: skip
    """Restore the default generator's state on exit.

    >>> with numtorch.random.fork_rng():
    ...     _ = numtorch.rand(1)
    """
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)


def generator_of(generator, fname: str = "") -> np.random.Generator:
    """The NumPy generator behind a ``generator=`` argument (the default one for None)."""
    if generator is None:
        return default_generator._np
    if isinstance(generator, Generator):
        return generator._np
    raise TypeError(
        f"{fname}(): argument 'generator' must be torch.Generator, not {type(generator).__name__}"
    )
