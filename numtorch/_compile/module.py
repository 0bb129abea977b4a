"""OptimizedModule: what ``numtorch.compile(module)`` returns (PyTorch's name and layout)."""

from __future__ import annotations

from ..nn.modules.module import Module


class OptimizedModule(Module):
    """A module whose calls go through ``numtorch.compile``; the original is ``_orig_mod``
    (its parameters appear under ``_orig_mod.`` in ``state_dict``, as in PyTorch).

    >>> m = numtorch.compile(numtorch.nn.Linear(2, 2))
    >>> type(m._orig_mod).__name__
    'Linear'
    """

    def __init__(self, mod: Module, compiled) -> None:
        super().__init__()
        self._orig_mod = mod
        self.__dict__["_compiled"] = compiled

    def forward(self, *args, **kwargs):
        return self.__dict__["_compiled"](*args, **kwargs)

    def __getattr__(self, name: str):
        try:
            return super().__getattr__(name)
        except AttributeError:
            if name.startswith("__") or "_modules" not in self.__dict__ or "_orig_mod" not in self._modules:
                raise
            return getattr(self._modules["_orig_mod"], name)

    def __getstate__(self):
        state = super().__getstate__()
        state.pop("_compiled", None)
        return state

    def __setstate__(self, state):
        super().__setstate__(state)
        from .api import CompiledFunction

        mod = self._modules["_orig_mod"]
        self.__dict__["_compiled"] = CompiledFunction(mod.__call__, module=mod)
