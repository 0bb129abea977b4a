"""Named tuples returned by ops with several outputs, as ``torch.return_types``.

>>> numtorch.max(numtorch.tensor([[1.0, 3.0]]), 1)
torch.return_types.max(
values=tensor([3.]),
indices=tensor([1]))
"""

from __future__ import annotations

import collections

__all__: list = []


def _repr(self) -> str:
    body = ",\n".join(f"{f}={v!r}" for f, v in zip(self._fields, self, strict=True))
    return f"torch.return_types.{type(self).__name__}(\n{body})"


def register(name: str, fields: tuple) -> type:
    """Create (once) the tuple type ``numtorch.return_types.<name>`` with these fields."""
    cls = globals().get(name)
    if cls is None:
        base = collections.namedtuple(name, fields)
        cls = type(name, (base,), {"__slots__": (), "__repr__": _repr, "__str__": _repr,
                                   "__module__": __name__, "n_fields": len(fields)})  # fmt: skip
        globals()[name] = cls
        __all__.append(name)
    return cls
