"""``torch.jit.frontend`` turns Python source into TorchScript's AST; numtorch has no TorchScript,
so building a definition raises (see numtorch.jit)."""

from __future__ import annotations

from ._script import refuse


class FrontendError(Exception):
    """A construct TorchScript's frontend cannot compile."""

    def __init__(self, source_range, msg) -> None:
        self.source_range, self.msg = source_range, msg
        super().__init__(msg)


class NotSupportedError(FrontendError):
    pass


class UnsupportedNodeError(NotSupportedError):
    pass


get_jit_def = refuse("frontend.get_jit_def")
get_jit_class_def = refuse("frontend.get_jit_class_def")
