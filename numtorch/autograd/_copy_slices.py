"""In-place ops on views: re-point the base's history (PyTorch's CopySlices).

# Note [In-place on a view]
# When an in-place op writes through a view V of base B, the new B depends on the op's other
# inputs. CopySlices becomes B's grad_fn: given dL/dB_new it routes the region of V through
# the in-place op's own node (fn) and passes the rest to B's previous history unchanged. V's
# grad_fn becomes an as_strided view of that node, as PyTorch regenerates it.
"""

from __future__ import annotations

from .._tensor import Tensor
from .graph import Node, gradient_edge


def _geometry(view: Tensor, base: Tensor):
    v, b = view._data, base._data
    if hasattr(v, "estrides"):  # CUDA storage (Note [CUDA storage]): element offsets and strides
        return tuple(v.shape), tuple(v.estrides), base.storage_offset() + v.offset - b.offset
    isz = view._dtype.itemsize
    off = (view._data.__array_interface__["data"][0] - base._data.__array_interface__["data"][0]) // isz
    return tuple(view._data.shape), tuple(s // isz for s in view._data.strides), base.storage_offset() + off


class CopySlices(Node):
    __slots__ = ("fn", "geom", "self_slot", "_nout")

    def apply(self, grad):
        from ._backward import _validate

        result = grad.clone()
        region = result.as_strided(*self.geom)
        res = _validate(self.fn, self.fn.apply(region.clone()))
        g_self = res[self.self_slot]
        if g_self is None:
            region.zero_()
        else:
            region.copy_(g_self)
        return (result,) + tuple(g for i, g in enumerate(res) if i != self.self_slot)


class AsStridedBackward0(Node):
    __slots__ = ("geom", "base_shape", "base_dtype")

    def apply(self, grad):
        from .. import zeros

        result = zeros(self.base_shape, dtype=self.base_dtype, device=grad.device)
        result.as_strided(*self.geom).copy_(grad)
        return (result,)


def base_edge(view: Tensor):
    base = view._base
    return gradient_edge(base) if base._grad_fn is not None or base._rg else None


def rebase(node, view: Tensor, old_base_edge, self_slot: int) -> None:
    base = view._base
    geom = _geometry(view, base)
    edges = [old_base_edge or (None, 0)] + [e for i, e in enumerate(node.next_functions) if i != self_slot]
    metas = [(base._data.shape, base._dtype, base._device)] + [
        m for i, m in enumerate(node._input_meta) if i != self_slot
    ]
    cs = CopySlices(edges, metas)
    cs.fn, cs.geom, cs.self_slot, cs._nout = node, geom, self_slot, 1
    base._grad_fn = cs
    base._rg = True
    vf = AsStridedBackward0([(cs, 0)], [(base._data.shape, base._dtype, base._device)])
    vf.geom, vf.base_shape, vf.base_dtype = geom, base._data.shape, base._dtype
    view._grad_fn = vf
    view._rg = True
