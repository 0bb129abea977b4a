"""Shape ops against PyTorch: values, shapes, strides, storage offsets, dtypes, view-ness and
error messages, on contiguous, permuted, strided, expanded, 0-d and empty inputs."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import numtorch

torch = pytest.importorskip("torch")


def _inputs(m):
    """The same family of inputs built with module ``m`` (torch or numtorch), via shape ops only."""
    base = m.arange(24.0).reshape(2, 3, 4)
    return {
        "contig": base,
        "permuted": m.arange(24.0).reshape(2, 3, 4).permute(2, 0, 1),
        "strided": m.arange(48.0).reshape(2, 3, 8).unfold(2, 1, 2).squeeze(-1),
        "expanded": m.arange(8.0).reshape(2, 1, 4).expand(2, 3, 4),
        "scalar": m.tensor(3.5),
        "empty": m.zeros(0, 3, 4),
        "int": m.arange(24).reshape(2, 3, 4),
        "vector": m.arange(5.0),
    }


CASES = {
    "view": lambda m, x: x.view(-1),
    "view_2d": lambda m, x: x.view(x.shape[0], -1) if x.dim() else x.view(1),
    "view_dtype": lambda m, x: x.view(m.int32) if x.dtype == m.float32 else x.view(m.float64),
    "view_dtype_small": lambda m, x: x.view(m.int16),
    "reshape": lambda m, x: x.reshape(-1),
    "reshape_split": lambda m, x: x.reshape(x.shape[0], -1, 1),
    "flatten": lambda m, x: x.flatten(),
    "flatten_1": lambda m, x: x.flatten(1),
    "unflatten": lambda m, x: x.unflatten(-1, (2, -1)),
    "squeeze": lambda m, x: x.unsqueeze(1).squeeze(),
    "squeeze_dim": lambda m, x: x.squeeze(0),
    "unsqueeze_0": lambda m, x: x.unsqueeze(0),
    "unsqueeze_1": lambda m, x: x.unsqueeze(1),
    "unsqueeze_last": lambda m, x: x.unsqueeze(-1),
    "permute": lambda m, x: x.permute(*reversed(range(x.dim()))),
    "transpose": lambda m, x: x.transpose(0, -1),
    "t": lambda m, x: x.t(),
    "T": lambda m, x: x.T,
    "mT": lambda m, x: x.mT,
    "mH": lambda m, x: x.mH,
    "H": lambda m, x: x.H,
    "adjoint": lambda m, x: x.adjoint(),
    "expand": lambda m, x: x.expand(2, *x.shape),
    "expand_minus_one": lambda m, x: x.unsqueeze(-1).expand(*([-1] * (x.dim() + 1))[:-1], 3),
    "broadcast_to": lambda m, x: m.broadcast_to(x, (5,) + tuple(x.shape)),
    "narrow": lambda m, x: x.narrow(-1, 1, 2),
    "narrow_neg": lambda m, x: x.narrow(0, -1, 1),
    "select": lambda m, x: x.select(1, -1),
    "unfold": lambda m, x: x.unfold(-1, 2, 1),
    "unfold_step": lambda m, x: x.unfold(0, 1, 2),
    "as_strided": lambda m, x: x.as_strided((2, 2), (2, 1), 1),
    "diagonal": lambda m, x: x.diagonal(),
    "diagonal_off": lambda m, x: x.diagonal(1, -1, 0),
    "diagonal_far": lambda m, x: x.diagonal(-7, 0, 1),
    "movedim": lambda m, x: x.movedim(0, -1),
    "movedim_list": lambda m, x: x.movedim((0, 1), (-1, 0)),
    "unbind": lambda m, x: x.unbind(-1),
    "split": lambda m, x: x.split(2, -1),
    "split_sizes": lambda m, x: x.split([1, 2], 1),
    "chunk": lambda m, x: x.chunk(3, -1),
    "tensor_split": lambda m, x: x.tensor_split(3, -1),
    "tensor_split_idx": lambda m, x: x.tensor_split([1, 9], -1),
    "hsplit": lambda m, x: m.hsplit(x, 3),
    "vsplit": lambda m, x: m.vsplit(x, [1]),
    "dsplit": lambda m, x: m.dsplit(x, 2),
    "real": lambda m, x: x.real,
    "clone": lambda m, x: x.clone(),
    "clone_contig": lambda m, x: x.clone(memory_format=m.contiguous_format),
    "contiguous": lambda m, x: x.contiguous(),
    "flip": lambda m, x: x.flip(0, -1),
    "fliplr": lambda m, x: m.fliplr(x),
    "roll": lambda m, x: x.roll(1),
    "roll_dims": lambda m, x: x.roll((1, -1), (0, -1)),
    "repeat": lambda m, x: x.repeat(2, *([1] * x.dim())),
    "tile": lambda m, x: x.tile((2,)),
    "repeat_interleave": lambda m, x: x.repeat_interleave(2, -1),
    "repeat_interleave_flat": lambda m, x: x.repeat_interleave(2),
    "tril": lambda m, x: x.tril(1),
    "triu": lambda m, x: x.triu(-1),
    "diag": lambda m, x: m.diag(x.flatten()[:3], 1),
    "diag_2d": lambda m, x: m.diag(x.flatten(0, -2) if x.dim() > 1 else x),
    "diag_embed": lambda m, x: m.diag_embed(x),
    "diag_embed_dims": lambda m, x: m.diag_embed(x, 1, 0, -1),
    "cat": lambda m, x: m.cat([x, x], -1),
    "cat_0": lambda m, x: m.cat([x, x.flip(0), m.zeros(0)]),
    "stack": lambda m, x: m.stack([x, x], 1),
    "hstack": lambda m, x: m.hstack([x, x]),
    "vstack": lambda m, x: m.vstack([x, x]),
    "dstack": lambda m, x: m.dstack([x, x]),
    "column_stack": lambda m, x: m.column_stack([x, x]),
    "atleast_1d": lambda m, x: m.atleast_1d(x),
    "atleast_2d": lambda m, x: m.atleast_2d(x),
    "atleast_3d": lambda m, x: m.atleast_3d(x),
    "broadcast_tensors": lambda m, x: m.broadcast_tensors(x, m.zeros(3, 1, 1, 1)),
    "meshgrid_ij": lambda m, x: m.meshgrid(x.flatten()[:3], x.flatten()[:2], indexing="ij"),
    "meshgrid_xy": lambda m, x: m.meshgrid(x.flatten()[:3], x.flatten()[:2], indexing="xy"),
    "cartesian_prod": lambda m, x: m.cartesian_prod(x.flatten()[:3], x.flatten()[:2]),
    "to_double": lambda m, x: x.to(m.float64),
    "to_int": lambda m, x: x.int(),
    "to_copy": lambda m, x: x.to(x.dtype, copy=True),
    "to_contig": lambda m, x: x.to(memory_format=m.contiguous_format),
    "type_as": lambda m, x: x.type_as(m.zeros(1, dtype=m.int8)),
    "copy_": lambda m, x: m.zeros(x.shape).t().t().copy_(x),
    "fill_": lambda m, x: x.clone().fill_(2),
    "zero_": lambda m, x: x.clone().zero_(),
    "resize_": lambda m, x: x.clone().resize_(2, 2) if x.numel() >= 4 else x.clone().resize_(0, 2),
    "resize_view": lambda m, x: (
        x.clone().view(-1).resize_(2) if x.numel() >= 2 else x.clone().resize_(0)
    ),
}


def _run(fn, m, x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn(m, x), None
        except Exception as e:  # noqa: BLE001 - the error itself is compared
            return None, e


def _compare(t, n, where=""):
    if isinstance(t, (tuple, list)):
        assert isinstance(n, tuple if isinstance(t, tuple) else (tuple, list)), (
            f"{where}: {type(n)} vs {type(t)}"
        )
        assert len(n) == len(t), where
        for i, (a, b) in enumerate(zip(t, n, strict=False)):
            _compare(a, b, f"{where}[{i}]")
        return
    assert tuple(n.shape) == tuple(t.shape), f"{where} shape"
    assert str(n.dtype) == str(t.dtype), f"{where} dtype"
    if t.numel():  # NumPy 2 gives every zero-size array zero strides, so empty strides can't match
        assert n.stride() == t.stride(), f"{where} stride {n.stride()} vs torch {t.stride()}"
    assert n.is_contiguous() == t.is_contiguous(), f"{where} is_contiguous"
    assert (n._base is not None) == (t._base is not None), f"{where} view-ness"
    if t._base is not None and t.numel():
        assert n.storage_offset() == t.storage_offset(), f"{where} storage_offset"
    np.testing.assert_array_equal(n.numpy(), t.detach().numpy(), err_msg=where)


@pytest.mark.parametrize("inp", list(_inputs(numtorch)))
@pytest.mark.parametrize("case", list(CASES))
def test_matches_torch(case, inp):
    fn = CASES[case]
    t, terr = _run(fn, torch, _inputs(torch)[inp])
    n, nerr = _run(fn, numtorch, _inputs(numtorch)[inp])
    if terr is not None:
        assert nerr is not None, f"torch raised {type(terr).__name__}: {terr}; numtorch returned"
        assert type(nerr).__name__ == type(terr).__name__, f"{nerr!r} vs torch {terr!r}"
        assert str(nerr) == str(terr).split("\nException raised from")[0]
        return
    assert nerr is None, f"numtorch raised {nerr!r}; torch returned"
    _compare(t, n, case)


def test_complex_views_match_torch():
    data = (np.arange(6) + 1j * np.arange(6, 12)).reshape(2, 3).astype(np.complex64)
    fns = [lambda m, z: z.real, lambda m, z: z.imag, lambda m, z: m.view_as_real(z), lambda m, z: m.view_as_real(z.t()),
           lambda m, z: z.t().imag, lambda m, z: m.view_as_complex(m.view_as_real(z))]  # fmt: skip

    def run(m):
        z = m.from_numpy(data.copy())
        return [
            (tuple(r.shape), r.stride(), r.storage_offset(), r.numpy().tolist())
            for r in (f(m, z) for f in fns)
        ]

    assert run(numtorch) == run(torch)


def test_inplace_version_and_base_semantics_match_torch():
    def run(m):
        x = m.zeros(3, 4)
        v = x.view(12)
        before = x._version
        v.copy_(m.arange(12.0))
        res = [x._version - before, v._version == x._version, x.select(0, 1).tolist()]
        x.t().tril_()
        return res + [x.tolist(), x._version - before]

    assert run(numtorch) == run(torch)
