"""``numtorch.backends.cpu``: what the CPU offers the kernels."""

from __future__ import annotations


def get_cpu_capability() -> str:
    """The widest SIMD extension LLVM targets on this CPU: "AVX512", "AVX2", "DEFAULT" (x86), or "DEFAULT"."""
    import llvmlite.binding as llvm

    feats = llvm.get_host_cpu_features()
    if feats.get("avx512f"):
        return "AVX512"
    if feats.get("avx2"):
        return "AVX2"
    return "DEFAULT"
