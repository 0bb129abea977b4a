"""numtorch: PyTorch's tensor, autograd and nn stack on NumPy storage with Numba kernels.

>>> import numtorch as torch
>>> torch.ones(2) + 1
tensor([2., 2.])
"""

from __future__ import annotations

from . import _dtype as _D
from ._device import device
from ._dtype import (
    bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64, complex64, complex128,
    uint16, uint32, uint64,
    dtype, finfo, iinfo, get_default_dtype, set_default_dtype, promote_types, can_cast,
)  # fmt: skip
from ._size import Size
from ._tensor import Tensor
from ._tensor_str import set_printoptions, get_printoptions
from . import overrides
from . import ops  # registers every op; also the ``numtorch.ops.aten`` namespace
from .ops.factory.core import from_numpy, is_tensor, typename
from .ops.factory.tensor_extra import from_dlpack
from ._random import (
    Generator, default_generator, get_rng_state, initial_seed, manual_seed, seed, set_rng_state,
)  # fmt: skip
from . import _random as random
from .ops._pointwise import broadcast_shapes
from .ops.shape._format import memory_format, contiguous_format, preserve_format, channels_last, channels_last_3d
from . import _api
from . import autograd
from .autograd.grad_mode import (
    enable_grad, inference_mode, is_grad_enabled, is_inference, is_inference_mode_enabled, no_grad,
    set_grad_enabled,
)  # fmt: skip

float = float32  # noqa: A001
double = float64
half = float16
long = int64
int = int32  # noqa: A001
short = int16
cfloat = complex64
cdouble = complex128

from . import fft, linalg, nn, sparse, special  # noqa: E402
from . import optim, serialization, utils  # noqa: E402
from . import accelerator, amp, backends, cuda, distributions, jit, testing  # noqa: E402
from ._layout import layout, sparse_bsc, sparse_bsr, sparse_coo, sparse_csc, sparse_csr, strided  # noqa: E402
from ._tensortype import (  # noqa: E402
    BFloat16Tensor, BoolTensor, ByteTensor, CharTensor, DoubleTensor, FloatTensor, HalfTensor, IntTensor, LongTensor,
    ShortTensor,
)  # fmt: skip
from ._config import (  # noqa: E402
    are_deterministic_algorithms_enabled, get_default_device, get_deterministic_debug_mode,
    get_float32_matmul_precision, get_num_interop_threads, get_num_threads,
    is_deterministic_algorithms_warn_only_enabled, is_warn_always_enabled, set_default_device,
    set_deterministic_debug_mode, set_float32_matmul_precision, set_num_interop_threads, set_num_threads,
    set_warn_always, use_deterministic_algorithms,
)  # fmt: skip
from .autograd.anomaly_mode import is_anomaly_check_nan_enabled, is_anomaly_enabled, set_anomaly_enabled  # noqa: E402
from .amp import autocast  # noqa: E402
from .amp.autocast_mode import (  # noqa: E402
    autocast_decrement_nesting, autocast_increment_nesting, clear_autocast_cache, get_autocast_dtype,
    is_autocast_cache_enabled, is_autocast_enabled, set_autocast_cache_enabled, set_autocast_dtype,
    set_autocast_enabled,
)  # fmt: skip
from math import e, inf, nan, pi  # noqa: E402

newaxis = None  # x[:, numtorch.newaxis], as NumPy's
from ._serialization import load, save  # noqa: E402
from . import library  # noqa: E402
from ._tags import Tag  # noqa: E402

from . import _spectral, _torch_extra  # noqa: E402,F401 - public bodies over the public API

ops.shape.views.install_fast_paths()
# fast_fill first: its body routes are what the fast calls of fast_index fall back to
for _fast in (ops.nn.fast_nn, ops.nn.fast_conv, ops.indexing.fast_fill, ops.indexing.fast_index,
              ops.shape.fast_copies, ops.shape.fast_inplace, ops.reduction.norm_fast, ops.reduction.arg_fast,
              ops.reduction.stats_fast, ops.nn.loss_fast, ops.nn.norm_layers_fast,  # sessions 14-15
              ops.nn.adaptive_fast, ops.nn.unpool_fast, ops.nn.lp_pool_fast, ops.nn.shuffle_fast,
              ops.nn.embedding_bag_fast,  # session 16 (perf16e)
              ops.shape.setitem_fast):  # session 19: Note [Setitem fast call]
    _fast.install(ops._registry.BINDINGS)
ops.nn.attention_mha_fast.install(ops._registry.BINDINGS)  # session 18: Note [Multi-head attention fast call]
_BY_MODULE = _api.install(Tensor)
from . import _linalg_utils, _misc_api, _tensor_legacy, _tensor_tf  # noqa: E402

_tensor_legacy.install(Tensor)
_linalg_utils.install(Tensor)

_tensor_tf.install(Tensor)
_misc_api.install(Tensor)
for _mod, _fns in _BY_MODULE.items():
    if _mod != "Tensor":
        _api.export(_mod.replace("torch", __name__, 1), _fns)

__version__ = "0.1.0"

from . import func  # noqa: E402
from .func import vmap  # noqa: E402

from . import _logging, compiler  # noqa: E402
from ._compile import compile  # noqa: E402,A001

# torch's top-level odds and ends: build flags, deprecated setters, symbolic-shape helpers,
# storages, the removed pre-1.9 linalg functions
from . import cpu, functional, storage, torch_version, types, version  # noqa: E402
from ._globals import (  # noqa: E402
    TYPE_CHECKING, USE_GLOBAL_DEPS, USE_RTLD_GLOBAL_WITH_LIBTORCH, cond, get_autocast_cpu_dtype,
    get_autocast_gpu_dtype, get_device_module, get_file_path, has_lapack, has_mkl, has_openmp, has_spectral,
    init_num_threads, is_autocast_cpu_enabled, set_autocast_cpu_dtype, set_autocast_cpu_enabled,
    set_autocast_gpu_dtype, set_default_tensor_type, set_flush_denormal, while_loop,
)  # fmt: skip
from ._linalg_utils import eig, lstsq, matrix_rank, solve, symeig  # noqa: E402
from ._sym import (  # noqa: E402
    SymBool, SymFloat, SymInt, sym_constrain_range, sym_constrain_range_for_size, sym_float, sym_fresh_size,
    sym_int, sym_ite, sym_max, sym_min, sym_not, sym_sqrt, sym_sum,
)  # fmt: skip
from .storage import (  # noqa: E402
    BFloat16Storage, BoolStorage, ByteStorage, CharStorage, ComplexDoubleStorage, ComplexFloatStorage,
    DoubleStorage, FloatStorage, HalfStorage, IntStorage, LongStorage, ShortStorage, TypedStorage, UntypedStorage, is_storage,
)  # fmt: skip

Storage = FloatStorage  # torch.Storage is the default dtype's legacy storage class

# torch's top-level re-exports of its submodules' names, and the small namespaces
from ._C import DisableTorchFunction, DisableTorchFunctionSubclass  # noqa: E402
from ._misc_api import AcceleratorError, OutOfMemoryError, from_file  # noqa: E402
from .amp import GradScaler  # noqa: E402
from .amp.grad_scaler import _amp_foreach_non_finite_check_and_unscale_, _amp_update_scale_  # noqa: E402,F401
from .testing import FileCheck  # noqa: E402
from .utils.dlpack import to_dlpack  # noqa: E402
from . import futures, hub, multiprocessing, profiler, signal  # noqa: E402
from .futures import Future  # noqa: E402
from .jit import fork, wait  # noqa: E402
from .signal import windows  # noqa: E402 - torch.windows is torch.signal.windows
from ._lowrank import pca_lowrank, svd_lowrank  # noqa: E402
