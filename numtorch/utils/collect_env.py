"""``python -m numtorch.utils.collect_env``: what a bug report needs, as PyTorch's ``collect_env``.

>>> "numtorch version" in numtorch.utils.collect_env.get_pretty_env_info()
True
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import platform
import sys
from pathlib import Path


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def _size(path: Path) -> str:
    if not path.exists():
        return f"{path} (absent)"
    files = [p for p in path.rglob("*") if p.is_file()]
    return f"{path} ({len(files)} files, {sum(p.stat().st_size for p in files) / 2**20:.1f} MiB)"


def _numba_cache_dir() -> Path:
    from numba.core import config

    return Path(config.CACHE_DIR) if config.CACHE_DIR else Path("<next to each kernel module>/__pycache__")


def _gpu() -> str:
    if importlib.util.find_spec("numba_cuda") is None and importlib.util.find_spec("numba.cuda") is None:
        return "numba-cuda not installed"
    try:
        from numba import cuda

        if not cuda.is_available():
            return "no CUDA GPU found"
        return ", ".join(d.name.decode() if isinstance(d.name, bytes) else str(d.name) for d in cuda.gpus)
    except Exception as exc:  # noqa: BLE001 - a report must print even when the driver is broken
        return f"CUDA probe failed: {exc}"


def get_env_info() -> dict:
    """The report's fields as a dict."""
    import numba
    import numpy as np

    import numtorch
    from numtorch.kernels._codegen import cache_dir

    return {
        "numtorch version": numtorch.__version__,
        "numpy version": np.__version__,
        "numba version": numba.__version__,
        "llvmlite version": _version("llvmlite"),
        "numba-cuda version": _version("numba-cuda"),
        "torch version (test oracle)": _version("torch"),
        "Python version": f"{sys.version.split()[0]} ({platform.python_implementation()}, {platform.architecture()[0]})",
        "Python platform": platform.platform(),
        "CPU count": str(os.cpu_count()),
        "numtorch threads (Numba)": str(numtorch.get_num_threads()),
        "Numba threading layer": os.environ.get("NUMBA_THREADING_LAYER", "default"),
        "NUMBA_NUM_THREADS": str(numba.config.NUMBA_NUM_THREADS),
        "Numba cache": str(_numba_cache_dir()),
        "numtorch kernel cache": _size(cache_dir()),
        "CUDA available": str(numtorch.cuda.is_available()),
        "GPU": _gpu(),
    }


def get_pretty_env_info() -> str:
    """The report as text, one ``field: value`` line each."""
    return "\n".join(f"{k}: {v}" for k, v in get_env_info().items())


def main() -> None:
    print("Collecting environment information...")
    print(get_pretty_env_info())


if __name__ == "__main__":
    main()
