"""Kernels of the ops/reduction/ area (imported lazily by module path; this package imports nothing)."""
