"""Internals of ``numtorch.library``: schema inference, custom-op objects, opcheck, the
scalar-function (elementwise) route. The public surface is ``numtorch/library.py``."""
