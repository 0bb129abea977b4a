"""Logging switches for ``numtorch.compile`` (PyTorch's ``torch._logging.set_logs`` / TORCH_LOGS).

``NUMTORCH_LOGS="graph_code,output_code,recompiles,graph_breaks"`` (or ``"+all"``) at import, or
``set_logs(...)`` at run time, prints captured graphs, generated fused kernels, recapture reasons
and eager fallbacks to stderr through the ``numtorch._compile`` logger.
"""

from __future__ import annotations

import logging
import os

ARTIFACTS = ("graph_code", "output_code", "recompiles", "graph_breaks")
_ON: set = set()
log = logging.getLogger("numtorch._compile")


def set_logs(*, all: bool | None = None, graph_code: bool | None = None, output_code: bool | None = None,  # noqa: A002
             recompiles: bool | None = None, graph_breaks: bool | None = None) -> None:  # fmt: skip
    """Turn compile logs on or off; arguments left as None keep their setting.

    >>> numtorch._logging.set_logs(graph_code=True)
    >>> numtorch._logging.set_logs(graph_code=False)
    """
    given = {"graph_code": graph_code, "output_code": output_code, "recompiles": recompiles,
             "graph_breaks": graph_breaks}  # fmt: skip
    for name, on in given.items():
        on = all if on is None else on
        if on is True:
            _ON.add(name)
        elif on is False:
            _ON.discard(name)
    _handler()


def _handler() -> None:
    if _ON and not log.handlers:
        h = logging.StreamHandler()
        h.setFormatter(logging.Formatter("[numtorch.compile %(artifact)s] %(message)s"))
        log.addHandler(h)
    log.setLevel(logging.INFO if _ON else logging.WARNING)


def enabled(name: str) -> bool:
    return name in _ON


def emit(name: str, msg: str) -> None:
    if name in _ON:
        log.info(msg, extra={"artifact": name})


def _from_env() -> None:
    spec = os.environ.get("NUMTORCH_LOGS", "")
    for part in spec.replace(" ", "").split(","):
        part = part.lstrip("+")
        if part == "all":
            _ON.update(ARTIFACTS)
        elif part in ARTIFACTS:
            _ON.add(part)
    if _ON:
        _handler()


_from_env()
