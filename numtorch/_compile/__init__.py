"""numtorch.compile's implementation: capture (capture.py, graph.py), guards (guards.py),
fusion into generated Numba kernels (fusion.py, codegen.py), the public entry (api.py,
module.py). See Note [Compiled calls]."""

from .api import CompiledFunction, compile, disable, reset_all
from .capture import Unsupported, is_capturing
from .module import OptimizedModule

__all__ = ["CompiledFunction", "OptimizedModule", "Unsupported", "compile", "disable", "is_capturing", "reset_all"]
