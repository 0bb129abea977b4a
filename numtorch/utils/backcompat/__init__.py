"""Back-compatibility warnings PyTorch can switch on (broadcasting and keepdim changes of 0.2):
numtorch was never without them, so the switches only record their state."""

from __future__ import annotations

_ENABLED = {"broadcast": False, "keepdim": False}


class Warning:
    """An on/off switch with an ``enabled`` property.

    >>> numtorch.utils.backcompat.broadcast_warning.enabled
    False
    """

    def __init__(self, setter, getter) -> None:
        self.setter = setter
        self.getter = getter

    def set_enabled(self, value) -> None:
        self.setter(value)

    def get_enabled(self):
        return self.getter()

    enabled = property(get_enabled, set_enabled)


def _switch(name):
    return Warning(lambda v: _ENABLED.__setitem__(name, bool(v)), lambda: _ENABLED[name])


broadcast_warning = _switch("broadcast")
keepdim_warning = _switch("keepdim")
