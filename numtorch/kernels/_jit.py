"""The only place numtorch applies Numba decorators (house options, caching, lazy compile).

Kernels compile lazily on first call per signature and are cached on disk, so
``import numtorch`` compiles nothing. Kernel modules are themselves imported lazily (see
``numtorch.kernels.load``), so ``import numtorch`` does not import Numba either.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
import types

import numba
from numba.core import caching as _caching

from . import _cache

# Note [Numba's BLAS probe]
# The first compile in a process (or a cache load that refreshes Numba's registries) makes
# Numba import its lowering registries, and numba.np.arraymath runs ``_HAVE_BLAS =
# _check_blas()`` at import, which imports scipy.linalg (~0.12 s CPU, a third of a warm first
# op). The answer only picks how Numba compiles np.correlate/np.convolve; numtorch kernels use
# neither. Answer that one probe from the module finder instead of an import; later BLAS uses
# (np.dot typing) call the real ensure_blas, which imports scipy and checks the LAPACK integer
# width as before. The probe goes in just before the CPU registries load (or a CUDA kernel is
# declared), not at import: numba.np.linalg costs ~25 ms of imports that a process loading
# only cached kernels never needs (Note [Cache loads skip Numba's registry refresh]).
_REAL_ENSURE_BLAS: list = []


def _probe_blas_without_import():
    import numba.np.linalg as nb_linalg

    nb_linalg.ensure_blas = _REAL_ENSURE_BLAS[0]
    if importlib.util.find_spec("scipy") is None:
        raise ImportError("scipy 0.16+ is required for linear algebra")


def _install_blas_probe():
    if _REAL_ENSURE_BLAS or "numba.np.arraymath" in sys.modules:
        return
    import numba.np.linalg as nb_linalg

    _REAL_ENSURE_BLAS.append(nb_linalg.ensure_blas)
    nb_linalg.ensure_blas = _probe_blas_without_import


def _probe_before_registries():
    from numba.core.cpu import CPUContext

    load = CPUContext.load_additional_registries
    if getattr(load, "_numtorch", False):
        return

    def load_additional_registries(self):
        _install_blas_probe()
        return load(self)

    load_additional_registries._numtorch = True
    CPUContext.load_additional_registries = load_additional_registries


_probe_before_registries()


# Note [Kernel cache layout]
# Numba keys a cached kernel on its own bytecode, signature and source file only: an edit of a
# helper another module's kernel calls (softmax's kernels inline vmath.exp32), of a _jit.py
# flag, or an upgrade of numtorch would leave old machine code in the cache. So every numtorch
# kernel is cached under a folder named by a digest of all of numtorch/kernels/**/*.py plus
# numtorch.__version__ (any such edit names a new, empty folder; _cache.py names them):
#
#   $NUMTORCH_KERNEL_CACHE or ~/.cache/numtorch/kernels/
#       api_<hash>.marshal          wrapper code objects (Note [Wrapper code cache])
#       v<version>-<digest>/        one per kernel-source digest
#           .used                   touched by each process that uses this digest
#           pw_add_<hash>.py ...    generated modules (Note [Generated kernels are real files])
#           numba/cpu/, numba/gen/  Numba's index (.nbi) and machine code (.nbc) per kernel
#                                   folder (gen: the generated modules)
#
# With $NUMBA_CACHE_DIR set, Numba's files go to $NUMBA_CACHE_DIR/numtorch/v<version>-<digest>/
# instead (the generated sources stay above). _KernelCacheLocator below, first in Numba's
# locator list, sends numtorch's kernels there; other code is left to Numba's own locators
# (NUMBA_CACHE_LOCATOR_CLASSES, when set, replaces that list; an unwritable cache root falls
# back to them too). The digest is computed once per process, at the first kernel load
# (~0.3 ms for ~110 kB of sources; stamp and sweep ~0.03 ms), never at ``import numtorch``.
# Stale folders: several installs may share one cache (virtualenvs, checkouts), so a folder is
# removed only once no process has used it for _GRACE_S; removal renames it away first, and a
# process that still writes there recreates it (Numba re-creates its folder before each save).
# The sweep runs once per process; files of the old flat layout (generated modules at the top,
# Numba files in __pycache__) go the same way, and in-tree Numba files under numtorch/kernels/
# when a new digest folder is made.
class _KernelCacheLocator(_caching._SourceFileBackedLocatorMixin, _caching._CacheLocator):
    _ready: set = set()  # folders known to exist and be writable in this process

    def __init__(self, py_func, py_file, path):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path = path

    def get_cache_path(self):
        return self._cache_path

    def ensure_cache_path(self):
        super().ensure_cache_path()  # Numba calls this before each save: a swept folder returns
        _cache.touch()

    @classmethod
    def from_function(cls, py_func, py_file):
        area = _cache.area_of(py_file)
        if area is None:
            return None
        path = os.path.join(_cache.numba_dir(numba.config.CACHE_DIR), area)
        self = cls(py_func, py_file, path)
        if path not in cls._ready:  # Numba's locators probe the folder once per kernel
            try:
                _caching._CacheLocator.ensure_cache_path(self)
            except OSError:
                return None  # unwritable: Numba's own locators (Note [Kernel cache layout])
            cls._ready.add(path)
        return self


# Note [512-bit vectors]
# On AVX-512 CPUs LLVM's cost model prefers 256-bit vectors (the "prefer-256-bit" tuning of
# skylake-avx512 .. emeraldrapids), so vectorised float32 loops ran 8 lanes where PyTorch's
# SLEEF kernels run 16: measured 1.7x slower (vmath's exp, sin) for that alone. Numba takes the
# target's features from config.CPU_FEATURES when set (it is part of the cache key), so the
# host's features minus that tuning flag are put there before the first compile. A user's own
# NUMBA_CPU_FEATURES wins; results are unchanged (lanes do not change IEEE arithmetic).
def _prefer_512_bit_vectors():
    if numba.config.CPU_FEATURES is not None:
        return
    from numba.core.codegen import get_host_cpu_features

    features = get_host_cpu_features()
    if "+avx512f" in features.split(","):
        numba.config.CPU_FEATURES = features + ",-prefer-256-bit"


_prefer_512_bit_vectors()


# Note [Data files named by their key]
# Numba numbers a kernel's machine-code files (``<name>.1.nbc``, ``.2.nbc``) by reading the index,
# taking the first free number and writing the index, then the data. Two processes compiling
# different signatures of one kernel at once (pytest-xdist workers, DataLoader workers, two
# scripts on an empty cache) both take number 1: the index may then map one signature to the
# other's machine code, and the next process loads it (a crash, or "can't unbox array"). In
# numtorch's folders a data file is named by a digest of its index key instead (signature,
# target, bytecode), so different signatures never share a file and the same signature always
# writes the same bytes; the data is written before the index names it. A lost index update
# (the other process's write wins) only costs a recompile later.
def _key_named_data_files():
    index_file = _caching.IndexDataCacheFile
    save = index_file.save
    if getattr(save, "_numtorch", False):
        return

    def save_by_key(self, key, data):
        if self._cache_path not in _KernelCacheLocator._ready:
            return save(self, key, data)
        digest = hashlib.blake2b(repr(key).encode(), digest_size=8).hexdigest()
        name = f"{self._index_name[:-4]}.{digest}.nbc"
        self._save_data(name, data)
        overloads = self._load_index()
        if overloads.get(key) != name:
            overloads[key] = name
            self._save_index(overloads)

    save_by_key._numtorch = True
    index_file.save = save_by_key


_key_named_data_files()

_IMPL = getattr(_caching, "CacheImpl", None) or _caching._CacheImpl  # renamed in Numba 0.61
_IMPL._locator_classes[:] = [
    c for c in _IMPL._locator_classes if c.__name__ != _KernelCacheLocator.__name__
]
_IMPL._locator_classes.insert(0, _KernelCacheLocator)


# Note [Cache loads skip Numba's registry refresh]
# Numba's Cache.load_overload first calls target_context.refresh(): it imports ~30 of Numba's
# lowering modules and installs every typing/lowering registry (with numtorch's overloads:
# ~250 templates), ~0.2 s of CPU on the first kernel a process loads, a fifth of a warm
# compiled GPT-2 start. Loading machine code needs none of it: only the LLVM symbols the code
# links to must exist. Those come from the CPU context's own set-up (C helpers, math), the NRT
# (rtsys.initialize, which refresh would run first), parfors' reload_init (run by the rebuild)
# and numba.cpython.hashing's import (the hash secret); so a load of a numtorch kernel
# (Note [Kernel cache layout]) into the CPU context does those two and nothing else. Every
# compile still refreshes first (CompilerBase does), so a cache miss, or a kernel compiled
# later in the process, sees every registry as before. Other targets and kernels keep Numba's path.
def _fast_cache_load():
    from numba.core.cpu import CPUContext
    from numba.core.runtime import nrt

    load = _caching.Cache.load_overload
    if not hasattr(_caching.Cache, "_load_overload") or getattr(load, "_numtorch", False):
        return

    def load_overload(self, sig, target_context):
        if type(target_context) is not CPUContext or not isinstance(
            getattr(self._impl, "locator", None), _KernelCacheLocator
        ):
            return load(self, sig, target_context)
        nrt.rtsys.initialize(target_context)
        import numba.cpython.hashing  # noqa: F401  (its import defines the hash-secret symbols)

        with self._guard_against_spurious_io_errors():
            return self._load_overload(sig, target_context)

    load_overload._numtorch = True
    _caching.Cache.load_overload = load_overload


_fast_cache_load()

_OPTS = dict(cache=True, nogil=True, error_model="numpy")


def kernel(fn):
    """A serial CPU kernel: ``@kernel def add_contig(a, b, out): ...``."""
    return numba.njit(**_OPTS)(fn)


def parallel_kernel(fn):
    """A CPU kernel whose ``numba.prange`` loops run on all cores."""
    return numba.njit(parallel=True, **_OPTS)(fn)


def serial_and_parallel(fn):
    """``(serial kernel, parallel kernel)`` from one module-level body whose ``numba.prange``
    loops run as plain loops in the first and on all cores in the second, instead of two copies
    of the body. The parallel one compiles a twin of ``fn`` (its code, globals and defaults)
    named ``<name>_parallel``: Numba names a kernel's disk-cache files by qualname and does not
    key them on the parallel flag, so the two must not share a name. Both compile lazily, as
    ``kernel`` and ``parallel_kernel``."""
    name = fn.__name__ + "_parallel"
    twin = types.FunctionType(fn.__code__, fn.__globals__, name, fn.__defaults__)
    twin.__qualname__ = fn.__qualname__ + "_parallel"
    twin.__module__, twin.__doc__ = fn.__module__, fn.__doc__
    return kernel(fn), parallel_kernel(twin)


def inline(fn):
    """A scalar helper called from kernels; inlined into the caller's loop by Numba."""
    return numba.njit(inline="always", **_OPTS)(fn)


prange = numba.prange


def scalar_overload(py_fn):
    """Per-type Numba implementations of a plain Python function called from kernels (a typer
    returning one implementation per argument type, inlined at each call site)."""
    from numba.extending import overload

    return overload(py_fn, inline="always")


def device_overload(py_fn):
    """Per-type implementations of a plain Python function called from CUDA device code
    (Note [Complex device math]). Not ``inline="always"`` as ``scalar_overload``: numba-cuda
    0.30 types an inlined overload's arguments as ``omitted`` and fails; NVVM inlines the
    small device function it compiles instead."""
    from numba.extending import overload

    return overload(py_fn)


def reassoc_kernel(fn):
    """A serial kernel whose float additions/products LLVM may reassociate (fastmath "reassoc"
    only: NaN, inf and signed zeros keep IEEE semantics), so that a fold ``s += x[i]`` becomes
    vector lanes. Only for leaf folds whose summation order is free (Note [Reduction order])."""
    return numba.njit(fastmath={"reassoc"}, **_OPTS)(fn)


def reassoc_parallel_kernel(fn):
    """``reassoc_kernel`` whose ``numba.prange`` loops run on all cores (each task's folds are
    its own, so the flag changes only the order inside one task's fold)."""
    return numba.njit(parallel=True, fastmath={"reassoc"}, **_OPTS)(fn)


def contract_helper(fn):
    """A scalar math helper (Note [Vectorizable exp]) compiled with fastmath "contract" only: a
    ``a * b + c`` may become one fused multiply-add (one rounding instead of two, never less
    accurate). Numba does not inline it, LLVM does, keeping those flags inside the caller's loop."""
    return numba.njit(fastmath={"contract"}, **_OPTS)(fn)


def intrinsic(fn):
    """A Numba intrinsic (``fn(typingctx, *argtypes) -> (signature, codegen)``) that emits LLVM
    IR itself: for what Numba's typed code cannot say (Note [Bit generator in kernels])."""
    from numba.extending import intrinsic as _intrinsic

    return _intrinsic(fn)


def cuda_kernel(fn):
    """A CUDA kernel (``numba.cuda.jit``): imported only by numtorch's CUDA backend, so Numba's
    CUDA target (or its simulator) loads only when a CUDA tensor is made."""
    from numba import cuda

    _install_blas_probe()
    return cuda.jit(cache=True)(fn)


def cuda_device(fn):
    """A CUDA device function (``numba.cuda.jit(device=True)``): shared by CUDA kernels, as
    ``inline`` helpers are by CPU kernels."""
    from numba import cuda

    _install_blas_probe()
    return cuda.jit(device=True)(fn)
