"""The ``*_copy`` ops (a view op's result as a new tensor: ``torch.select_copy``, ``view_copy``,
...) and the ``*_scatter`` ops (``select_scatter``, ``slice_scatter``, ``diagonal_scatter``,
``as_strided_scatter``: a copy of the input with the view's elements replaced by ``src``), which
functionalisation passes and compilers emit in place of views and in-place writes.

Composites over the view ops, so each is exactly as differentiable as the view it copies.
"""

from __future__ import annotations

from ..._dispatch import dispatch
from .._registry import OPS, defop, public
from ._format import contiguous_format

# copy name -> (schema without the name, the view overload, Python signature)
_COPIES = {
    "alias_copy": ("(Tensor self)", "alias", "input"),
    "as_strided_copy": ("(Tensor self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None)", "as_strided",
                        "input, size, stride, storage_offset=None"),
    "detach_copy": ("(Tensor self)", "detach", "input"),
    "diagonal_copy": ("(Tensor self, int offset=0, int dim1=0, int dim2=1)", "diagonal", "input, offset=0, dim1=0, dim2=1"),
    "expand_copy": ("(Tensor self, SymInt[] size, *, bool implicit=False)", "expand", "input, size, *, implicit=False"),
    "narrow_copy": ("(Tensor self, int dim, SymInt start, SymInt length)", "narrow", "input, dim, start, length"),
    "permute_copy": ("(Tensor self, int[] dims)", "permute", "input, dims"),
    "select_copy.int": ("(Tensor self, int dim, SymInt index)", "select.int", "input, dim, index"),
    "slice_copy.Tensor": ("(Tensor self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1)", "slice.Tensor",
                          "input, dim=0, start=None, end=None, step=1"),
    "t_copy": ("(Tensor self)", "t", "input"),
    "transpose_copy.int": ("(Tensor self, int dim0, int dim1)", "transpose.int", "input, dim0, dim1"),
    "unfold_copy": ("(Tensor self, int dimension, int size, int step)", "unfold", "input, dimension, size, step"),
    "unsqueeze_copy": ("(Tensor self, int dim)", "unsqueeze", "input, dim"),
    "view_as_complex_copy": ("(Tensor self)", "view_as_complex", "input"),
    "view_as_real_copy": ("(Tensor self)", "view_as_real", "input"),
    "view_copy": ("(Tensor self, SymInt[] size)", "view", "input, size"),
}  # fmt: skip
_LIST_COPIES = {
    "split_copy.Tensor": ("(Tensor self, SymInt split_size, int dim=0)", "split.Tensor", "input, split_size, dim=0"),
    "split_with_sizes_copy": ("(Tensor self, SymInt[] split_sizes, int dim=0)", "split_with_sizes", "input, split_sizes, dim=0"),
    "unbind_copy.int": ("(Tensor self, int dim=0)", "unbind.int", "input, dim=0"),
}  # fmt: skip
_EXAMPLES = {
    "select_copy": ("numtorch.select_copy(numtorch.tensor([[1, 2], [3, 4]]), 0, 1)", "tensor([3, 4])"),
    "view_copy": ("numtorch.view_copy(numtorch.arange(4), [2, 2])", "tensor([[0, 1],\n            [2, 3]])"),
    "t_copy": ("numtorch.t_copy(numtorch.tensor([[1, 2]]))", "tensor([[1],\n            [2]])"),
}


def _contiguous_clone(t):
    return dispatch(OPS["aten::clone"], [t, contiguous_format])


def _copy_body(view, n_args):
    def body(*v):
        return _contiguous_clone(dispatch(OPS[f"aten::{view}"], list(v[:n_args])))

    return body


def _write_out(r, out):
    if tuple(out.shape) != tuple(r.shape):
        out.resize_(r.shape)
    return out.copy_(r)


def _doc(name, view):
    base = view.split(".")[0]
    ex = _EXAMPLES.get(name)
    head = f"``{base}`` as a new tensor (a copy, never a view), as ``torch.{name}``."
    return head if ex is None else f"{head}\n\n    >>> {ex[0]}\n    {ex[1]}\n    "


def _declare(full, args, view, sig, listed):
    name = full.split(".")[0]
    n = args.count(",") + 1
    ret = "Tensor[]" if listed else "Tensor"
    op = defop(f"{full}{args} -> {ret}", composite=_copy_body(view, n) if not listed else
               (lambda *v, _view=view, _n=n: [_contiguous_clone(t) for t in dispatch(OPS[f"aten::{_view}"], list(v[:_n]))]))  # fmt: skip
    star = "" if "*" in sig else ", *"

    def fbody(*v):
        *vals, out = v
        r = dispatch(op, vals)
        if out is None:
            return tuple(r) if listed else r
        if listed:
            return tuple(_write_out(a, o) for a, o in zip(r, out))
        return _write_out(r, out)

    rel = ("input",)
    public(name, f"{sig}{star}, out=None", fbody, relevant=rel, doc=_doc(name, view), ops=(op,))
    return op


for _full, (_args, _view, _sig) in _COPIES.items():
    _declare(_full, _args, _view, _sig, False)
for _full, (_args, _view, _sig) in _LIST_COPIES.items():
    _declare(_full, _args, _view, _sig, True)


# ---- squeeze_copy: three overloads behind one function ------------------------------------------
_SQ = defop("squeeze_copy(Tensor self) -> Tensor", composite=lambda s: _contiguous_clone(dispatch(OPS["aten::squeeze"], [s])))
_SQ_DIM = defop("squeeze_copy.dim(Tensor self, int dim) -> Tensor",
                composite=lambda s, d: _contiguous_clone(dispatch(OPS["aten::squeeze.dim"], [s, d])))  # fmt: skip
_SQ_DIMS = defop("squeeze_copy.dims(Tensor self, int[] dim) -> Tensor",
                 composite=lambda s, d: _contiguous_clone(dispatch(OPS["aten::squeeze.dims"], [s, d])))  # fmt: skip


def _squeeze_copy(input, dim, out):
    """``squeeze`` as a new tensor, as ``torch.squeeze_copy``.

    >>> numtorch.squeeze_copy(numtorch.zeros(1, 2, 1)).shape
    torch.Size([2])
    """
    if dim is None:
        r = dispatch(_SQ, [input])
    elif isinstance(dim, (list, tuple)):
        r = dispatch(_SQ_DIMS, [input, list(dim)])
    else:
        r = dispatch(_SQ_DIM, [input, dim])
    return r if out is None else _write_out(r, out)


public("squeeze_copy", "input, dim=None, *, out=None", _squeeze_copy, ops=(_SQ,))


# ---- the *_scatter ops --------------------------------------------------------------------------
def _scatter_into(view, n):
    def body(self, src, *v):
        out = _contiguous_clone(self)
        target = dispatch(OPS[f"aten::{view}"], [out, *v[:n]])
        if tuple(src.shape) != tuple(target.shape):
            raise RuntimeError("expected src to have a size equal to the slice of self. "
                               f"src size = {list(src.shape)}, slice size = {list(target.shape)}")  # fmt: skip
        dispatch(OPS["aten::copy_"], [target, src, False])
        return out

    return body


_SCATTERS = {
    "select_scatter": ("(Tensor self, Tensor src, int dim, SymInt index)", "select.int", 2, "input, src, dim, index",
                       "numtorch.select_scatter(numtorch.zeros(2, 2), numtorch.ones(2), 0, 0)",
                       "tensor([[1., 1.],\n            [0., 0.]])"),
    "slice_scatter": ("(Tensor self, Tensor src, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1)", "slice.Tensor",
                      4, "input, src, dim=0, start=None, end=None, step=1",
                      "numtorch.slice_scatter(numtorch.zeros(4), numtorch.ones(2), start=2)", "tensor([0., 0., 1., 1.])"),
    "diagonal_scatter": ("(Tensor self, Tensor src, int offset=0, int dim1=0, int dim2=1)", "diagonal", 3,
                         "input, src, offset=0, dim1=0, dim2=1",
                         "numtorch.diagonal_scatter(numtorch.zeros(2, 2), numtorch.ones(2))",
                         "tensor([[1., 0.],\n            [0., 1.]])"),
    "as_strided_scatter": ("(Tensor self, Tensor src, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None)",
                           "as_strided", 3, "input, src, size, stride, storage_offset=None",
                           "numtorch.as_strided_scatter(numtorch.zeros(4), numtorch.ones(2), (2,), (2,))",
                           "tensor([1., 0., 1., 0.])"),
}  # fmt: skip

for _name, (_args, _view, _n, _sig, _ex, _shows) in _SCATTERS.items():
    _op = defop(f"{_name}{_args} -> Tensor", composite=_scatter_into(_view, _n))

    def _fbody(*v, _o=_op):
        *vals, out = v
        r = dispatch(_o, vals)
        return r if out is None else _write_out(r, out)

    def _mbody(*v, _o=_op):
        return dispatch(_o, list(v))

    _doc_s = (f"A copy of ``input`` with its ``{_view.split('.')[0]}`` view replaced by ``src``, as ``torch.{_name}``.\n\n"
              f"    >>> {_ex}\n    {_shows}\n    ")  # fmt: skip
    public(_name, f"{_sig}, *, out=None", _fbody, relevant=("input", "src"), doc=_doc_s, ops=(_op,))
    public(_name, _sig.replace("input", "self", 1), _mbody, relevant=("self", "src"), module="Tensor", doc=_doc_s, ops=(_op,))
