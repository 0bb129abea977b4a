"""Weak references keyed by object identity, as ``torch.utils.weak``.

Tensors compare elementwise, so a ``weakref.WeakKeyDictionary`` cannot hold them as keys;
these types hash and compare by ``id`` while the referent lives.

>>> t = numtorch.ones(1)
>>> d = WeakIdKeyDictionary()
>>> d[t] = "seen"
>>> d[t], len(d)
('seen', 1)
"""

from __future__ import annotations

import weakref
from collections.abc import MutableMapping

__all__ = ["WeakIdRef", "WeakIdKeyDictionary", "TensorWeakRef"]


class WeakIdRef(weakref.ref):
    """A weak reference hashed and compared by the referent's ``id`` (stable after it dies)."""

    __slots__ = ["_id"]

    def __init__(self, key, callback=None):
        self._id = id(key)
        super().__init__(key, callback)

    def __call__(self):
        return super().__call__()

    def __hash__(self) -> int:
        return self._id

    def __eq__(self, other) -> bool:
        a, b = self(), other()
        if a is not None and b is not None:
            return a is b
        return self is other


class _WeakHashRef(WeakIdRef):
    pass


class WeakIdKeyDictionary(MutableMapping):
    """A mapping whose keys are held weakly and matched by identity."""

    def __init__(self, dict=None, ref_type=WeakIdRef):  # noqa: A002 - PyTorch's parameter name
        self.data: dict = {}
        self.ref_type = ref_type
        selfref = weakref.ref(self)

        def remove(k, selfref=selfref):
            s = selfref()
            if s is not None:
                s.data.pop(k, None)

        self._remove = remove
        if dict is not None:
            self.update(dict)

    def __getitem__(self, key):
        return self.data[self.ref_type(key)]

    def __setitem__(self, key, value) -> None:
        self.data[self.ref_type(key, self._remove)] = value

    def __delitem__(self, key) -> None:
        del self.data[self.ref_type(key)]

    def __contains__(self, key) -> bool:
        try:
            r = self.ref_type(key)
        except TypeError:
            return False
        return r in self.data

    def __iter__(self):
        for r in list(self.data):
            obj = r()
            if obj is not None:
                yield obj

    def __len__(self) -> int:
        return sum(1 for r in list(self.data) if r() is not None)

    def get(self, key, default=None):
        try:
            return self.data.get(self.ref_type(key), default)
        except TypeError:
            return default

    def copy(self) -> WeakIdKeyDictionary:
        return WeakIdKeyDictionary({k: v for k, v in self.items()}, self.ref_type)

    def __repr__(self) -> str:
        return f"<WeakIdKeyDictionary at {id(self):#x}>"


WeakTensorKeyDictionary = WeakIdKeyDictionary


class TensorWeakRef:
    """A weak reference to a tensor (``ref()`` gives it back, or None once freed)."""

    __slots__ = ("ref",)

    def __init__(self, tensor):
        self.ref = weakref.ref(tensor)

    def __call__(self):
        return self.ref()
