"""numtorch/storage.py and the storage methods of numtorch/_tensor_legacy.py: storages share the
tensor's NumPy memory (Note [Storage is the root NumPy buffer])."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch


def test_untyped_storage_is_the_root_buffer_of_a_view():
    base = numtorch.arange(6.0).reshape(2, 3)
    t = base[1]
    u = t.untyped_storage()
    assert u.nbytes() == len(u) == u.size() == 24 and u.element_size() == 1
    assert u.data_ptr() == base.data_ptr() == t.data_ptr() - 12
    u[0:4] = np.frombuffer(np.float32(7.0).tobytes(), np.uint8)
    assert base[0, 0].item() == 7.0  # written through the storage
    assert numtorch.is_storage(u) and not numtorch.is_storage(t)
    with pytest.raises(IndexError, match="index 24 out of range for storage of size 24"):
        u[24]


def test_typed_storage_views_elements_and_warns():
    t = numtorch.arange(4, dtype=numtorch.int64)
    with pytest.warns(UserWarning, match="TypedStorage is deprecated"):
        s = t.storage()
    assert s.dtype is numtorch.int64 and s.size() == 4 and s.tolist() == [0, 1, 2, 3]
    assert s.element_size() == 8 and s.nbytes() == 32 and s.data_ptr() == t.data_ptr()
    s[1] = 10
    assert t.tolist() == [0, 10, 2, 3]
    assert isinstance(s, numtorch.LongStorage) and not isinstance(s, numtorch.FloatStorage)
    assert t.storage_type() is numtorch.LongStorage and s.type() == "torch.LongStorage"
    with pytest.raises(RuntimeError, match="slices are only supported in UntypedStorage.__getitem__"):
        s[0:1]


def test_legacy_storage_classes_construct_typed_storages():
    with pytest.warns(UserWarning):
        f = numtorch.FloatStorage([1, 2, 3])
    assert type(f) is numtorch.TypedStorage and f.dtype is numtorch.float32 and f.tolist() == [1.0, 2.0, 3.0]
    assert repr(f).endswith("[torch.storage.TypedStorage(dtype=torch.float32, device=cpu) of size 3]")
    with pytest.warns(UserWarning):
        assert numtorch.DoubleStorage(2).size() == 2
    assert numtorch.Storage is numtorch.FloatStorage
    assert numtorch.UntypedStorage(5).fill_(3).tolist() == [3] * 5


def test_set_views_a_storage_with_offset_size_and_stride():
    src = numtorch.arange(6.0)
    t = numtorch.empty(0)
    v0 = t._version
    t.set_(src.untyped_storage(), 1, (2,), (2,))
    assert t.tolist() == [1.0, 3.0] and t._version == v0 + 1
    src[1] = 9.0
    assert t[0].item() == 9.0
    assert numtorch.empty(0).set_(src).is_set_to(src)
    with pytest.raises(RuntimeError, match="out of bounds for storage of size 24"):
        numtorch.empty(0).set_(src.untyped_storage(), 4, (3,), (1,))
