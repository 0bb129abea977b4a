"""numtorch.nn: modules, parameters, init and the functional interface."""

from __future__ import annotations

from . import functional  # noqa: F401
