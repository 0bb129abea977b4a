"""numtorch.serialization: ``save``/``load`` and the ``weights_only`` allowlist, as in
``torch.serialization``. Note [Checkpoints are PyTorch's format] (numtorch/_serialization.py).

>>> numtorch.serialization.get_safe_globals()
[]
"""

from __future__ import annotations

from ._serialization import (  # noqa: F401
    add_safe_globals,
    clear_safe_globals,
    get_safe_globals,
    load,
    safe_globals,
    save,
)  # fmt: skip
