"""Kernels of the ops/nn/ area (imported lazily by module path; this package imports nothing)."""
