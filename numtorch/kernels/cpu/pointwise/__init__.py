"""Kernels of the ops/pointwise/ area (imported lazily by module path; this package imports nothing)."""
