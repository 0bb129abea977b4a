"""``numtorch.layout`` objects: ``strided`` (dense) and ``sparse_coo`` tensors exist; the other sparse
layouts are named (PyTorch code compares against them) but no tensor has them."""

from __future__ import annotations


class layout:
    """How a tensor's elements are laid out in memory, mirroring ``torch.layout``.

    >>> numtorch.ones(2).layout
    torch.strided
    """

    __slots__ = ("_name",)

    def __init__(self, name: str):
        self._name = name

    def __repr__(self) -> str:
        return f"torch.{self._name}"

    def __reduce__(self):
        return (_get_layout, (f"torch.{self._name}",))  # as PyTorch pickles a layout


def _get_layout(name: str) -> layout:
    """``torch.serialization._get_layout``: the layout a pickle names (``"torch.sparse_coo"``)."""
    return _LAYOUTS[name]


strided = layout("strided")
sparse_coo = layout("sparse_coo")
sparse_csr = layout("sparse_csr")
sparse_csc = layout("sparse_csc")
sparse_bsr = layout("sparse_bsr")
sparse_bsc = layout("sparse_bsc")
_mkldnn = layout("_mkldnn")

_LAYOUTS = {f"torch.{x._name}": x for x in (strided, sparse_coo, sparse_csr, sparse_csc, sparse_bsr, sparse_bsc, _mkldnn)}
