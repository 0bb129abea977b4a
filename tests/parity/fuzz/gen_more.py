"""Generators for the structural families: indexing, views, joins, linalg, nn, factories,
autograd misuse and tensor protocol calls (see gen.py for the value and shape draws)."""

from __future__ import annotations

import math

import numpy as np

from .gen import COMMON, DTYPES, FLOATS, INTS, SHAPES, broadcast_pair, dim_arg, dtype, out_tensor, scalar, tensor
from .runner import DT, T, Call


def _index_tensor(r, n, shape, dt="int64"):
    a = np.array([r.randint(-n, max(n - 1, -n)) if n else 0 for _ in range(int(np.prod(shape)))], np.int64)
    if r.random() < 0.1:
        a = a + n + 1  # out of range
    return T(a.reshape(shape).astype(dt), dt)


def gen_indexing(r) -> Call:
    op = r.choice(("index_select", "gather", "scatter", "scatter_add", "take", "masked_fill", "masked_select",
                   "index_add", "index_fill", "index_copy", "getitem", "setitem", "nonzero", "take_along_dim",
                   "scatter_reduce", "put", "index_put"))  # fmt: skip
    a = tensor(r, r.choice(((3,), (2, 3), (0,), (), (3, 2), (2, 0))))
    nd, sh = a.arr.ndim, a.arr.shape
    d = dim_arg(r, nd, False, False)
    n = sh[d] if nd and -nd <= d < nd else 0
    idt = r.choice(("int64",) * 4 + ("int32", "float32", "uint8"))
    if op == "index_select":
        return Call("indexing", "torch.index_select", [a, d, _index_tensor(r, n, (r.choice((0, 2, 4)),), idt)])
    if op in ("gather", "take_along_dim"):
        ish = tuple(max(1, s) if r.random() < 0.7 else s for s in sh)
        idx = _index_tensor(r, n, ish, idt)
        return Call("indexing", f"torch.{op}", [a, d, idx] if op == "gather" else [a, idx, d])
    if op in ("scatter", "scatter_add", "scatter_reduce", "index_add", "index_copy", "index_fill"):
        if op.startswith("index_"):
            idx = _index_tensor(r, n, (r.choice((0, 1, 2)),), idt)
            src_shape = list(sh)
            if nd and -nd <= d < nd:  # a bad dim stays bad; the source shape follows a good one
                src_shape[d] = idx.arr.shape[0]
            src = tensor(r, tuple(src_shape), r.choice((a.dtype, dtype(r))))
            third = scalar(r) if op == "index_fill" else src
            c = Call("indexing", f"m.{op}_" if r.random() < 0.5 else f"torch.{op}", [a, d, idx, third])
        else:
            ish = tuple(min(s, 2) for s in sh)
            idx = _index_tensor(r, n, ish, idt)
            src = tensor(r, ish, r.choice((a.dtype, dtype(r)))) if r.random() < 0.8 else scalar(r)
            c = Call("indexing", f"m.{op}_" if r.random() < 0.5 else f"torch.{op}", [a, d, idx, src])
            if op == "scatter_reduce":
                c.args.append(r.choice(("sum", "prod", "mean", "amax", "amin", "bad")))
            elif op == "scatter" and r.random() < 0.3:
                c.kwargs["reduce"] = r.choice(("add", "multiply"))
            c.cmp = "meta" if op == "scatter" and not c.kwargs else "full"  # duplicate indices: any writer wins
        if r.random() < 0.2:
            c.args[0] = tensor(r, sh, a.dtype, "expand")
        return c
    if op == "take":
        return Call("indexing", "torch.take", [a, _index_tensor(r, max(a.arr.size, 1), (3,), idt)])
    if op in ("masked_fill", "masked_select"):
        mask = tensor(r, broadcast_pair(r, sh), r.choice(("bool", "bool", "uint8")))
        if op == "masked_select":
            return Call("indexing", "torch.masked_select", [a, mask])
        v = r.choice((scalar(r), tensor(r, (), dtype(r))))
        return Call("indexing", r.choice(("torch.masked_fill", "m.masked_fill_")), [a, mask, v])
    if op == "nonzero":
        return Call("indexing", "torch.nonzero", [a], {"as_tuple": r.random() < 0.3})
    if op == "put":
        return Call("indexing", "m.put_", [a, _index_tensor(r, max(a.arr.size, 1), (2,)), tensor(r, (2,), a.dtype),
                                           r.random() < 0.5])  # fmt: skip
    key = _key(r, sh)
    if op == "index_put":
        idx = (_index_tensor(r, sh[0] if sh else 1, (2,)),)
        return Call("indexing", "m.index_put_", [a, idx, tensor(r, r.choice(((), (2,), (3,))), a.dtype),
                                                 r.random() < 0.5])  # fmt: skip
    if op == "getitem":
        return Call("indexing", "fn:getitem", [a, key])
    return Call("indexing", "fn:setitem", [a, key, r.choice((scalar(r), tensor(r, r.choice(((), (1,), (3,))))))])


def _key(r, sh):
    k = r.random()
    n = sh[0] if sh else 0
    if k < 0.2:
        return r.randint(-n - 1, n)
    if k < 0.35:
        return slice(r.choice((None, 0, 1, -1)), r.choice((None, 2, -1, 10)), r.choice((None, 1, 2)))
    if k < 0.45:
        return (Ellipsis, None) if r.random() < 0.5 else (None, Ellipsis, 0)
    if k < 0.6:
        return T(np.random.default_rng(r.getrandbits(32)).random(sh) < 0.5, "bool")
    if k < 0.75:
        return _index_tensor(r, n, (2,))
    if k < 0.85:
        return [0, -1] if n else []
    return (slice(None), r.randint(-2, 1)) if len(sh) >= 2 else r.choice((True, False, None))


VIEWS = ("view", "reshape", "permute", "transpose", "t", "squeeze", "unsqueeze", "flatten", "ravel", "narrow",
         "select", "expand", "unfold", "diagonal", "movedim", "split", "chunk", "unbind", "flip", "roll", "tile",
         "repeat", "view_as", "contiguous", "swapaxes", "T", "mT", "H", "real", "imag", "conj", "expand_as",
         "unflatten", "resolve_conj", "detach")  # fmt: skip


def gen_view(r) -> Call:
    op = r.choice(VIEWS)
    a = tensor(r, r.choice(SHAPES + ((2, 3, 2),)), pool=DTYPES)
    sh, nd = a.arr.shape, a.arr.ndim
    d = dim_arg(r, nd, False, False)
    args = {
        "view": [r.choice(((-1,), tuple(reversed(sh)), (int(np.prod(sh)),), (2, -1), (0, -1), ()))],
        "reshape": [r.choice(((-1,), tuple(reversed(sh)), (2, -1), (0, -1), (), (1, -1, 1)))],
        "permute": [tuple(reversed(range(nd))) if r.random() < 0.8 else (0,) * max(nd, 1)],
        "transpose": [d, dim_arg(r, nd, False, False)],
        "squeeze": [] if r.random() < 0.5 else [r.choice((d, (0, -1)))],
        "unsqueeze": [r.randint(-nd - 2, nd + 1)],
        "flatten": [] if r.random() < 0.5 else [d, -1],
        "narrow": [d, r.choice((0, 1, -1)), r.choice((0, 1, 2))],
        "select": [d, r.choice((0, -1, 1, 5))],
        "expand": [r.choice(((2,) + tuple(sh), tuple(sh), (-1,) * nd, (3, 3)))],
        "unfold": [d, r.choice((0, 1, 2, 5)), r.choice((1, 2, 0))],
        "diagonal": [r.choice((0, 1, -1))] + ([0, -1] if nd >= 2 else []),
        "movedim": [d, 0],
        "split": [r.choice((1, 2, [1, 2], 0))] + [d],
        "chunk": [r.choice((1, 2, 3, 0)), d],
        "unbind": [d],
        "flip": [(d,) if r.random() < 0.8 else (0, 0)],
        "roll": [r.choice((1, -2, 7, (1, 1))), r.choice((d, None, (0, -1)))],
        "tile": [r.choice(((2,), (), (1, 2), (0,)))],
        "repeat": [r.choice(((2,) * max(nd, 1), (), (1, 2) + (1,) * nd, (0,) * max(nd, 1)))],
        "view_as": [tensor(r, r.choice((sh, (int(np.prod(sh)),))), "float32")],
        "swapaxes": [d, 0],
        "expand_as": [tensor(r, (2,) + tuple(sh), "float32")],
        "unflatten": [d, r.choice(((-1,), (1, -1), (2, -1)))],
    }.get(op, [])
    attr = op in ("T", "mT", "H", "real", "imag")
    c = Call("view", "fn:view_write", [a, op, attr, args, r.random() < 0.6])
    return c


def gen_join(r) -> Call:
    op = r.choice(("cat", "stack", "hstack", "vstack", "dstack", "column_stack", "concat", "block_diag",
                   "cartesian_prod", "broadcast_tensors", "meshgrid", "atleast_2d"))  # fmt: skip
    base = r.choice(SHAPES)
    ts = []
    for _ in range(r.choice((1, 2, 3, 0))):
        s = base if r.random() < 0.8 else r.choice(SHAPES)
        ts.append(tensor(r, s, r.choice((None, "float32"))))
    kw: dict = {}
    if op in ("cat", "stack", "concat") and r.random() < 0.6:
        kw["dim"] = dim_arg(r, len(base), False, False)
    if op in ("cat", "stack", "hstack", "vstack") and r.random() < 0.25 and ts:
        kw["out"] = out_tensor(r, (0,), ts[0].dtype)
        if r.random() < 0.3:
            kw["out"] = ts[0]
    if op in ("block_diag", "cartesian_prod", "broadcast_tensors", "meshgrid", "atleast_2d"):
        c = Call("join", f"torch.{op}", ts, {"indexing": "ij"} if op == "meshgrid" else {})
    else:
        c = Call("join", f"torch.{op}", [ts], kw)
    return c


LINALG = ("det", "inv", "solve", "cholesky", "norm", "vector_norm", "matrix_norm", "svdvals", "eigvalsh", "lstsq",
          "pinv", "matrix_rank", "slogdet", "qr", "svd", "eigh", "eigvals", "matrix_power", "cross", "multi_dot",
          "inv_ex", "cholesky_ex", "lu_factor", "solve_triangular", "vecdot", "matrix_exp", "diagonal")  # fmt: skip
PRODUCTS = ("matmul", "mm", "bmm", "mv", "dot", "vdot", "outer", "addmm", "einsum", "tensordot", "kron", "inner",
            "baddbmm", "addmv", "chain_matmul", "trace", "tril", "triu", "diag", "cdist", "dist", "trapezoid")  # fmt: skip


def _mat(r, batch=True, sq=True, dt=None):
    n = r.choice((0, 1, 2, 3))
    m = n if sq else r.choice((0, 1, 2, 3))
    b = r.choice(((), (), (2,), (0,))) if batch else ()
    if r.random() < 0.07:
        return tensor(r, r.choice(((3,), (), (2, 3))), dt or "float64")
    return tensor(r, b + (n, m), dt or r.choice(("float32", "float64", "float64", "complex128", "int64")),
                  r.choice(("contig", "contig", "transpose")))


def gen_linalg(r) -> Call:
    op = r.choice(LINALG)
    a = _mat(r, sq=op not in ("norm", "matrix_norm", "svdvals", "lstsq", "pinv", "matrix_rank", "qr", "svd"))
    if r.random() < 0.2:  # symmetric positive definite, the input cholesky/eigh/solve expect
        x = a.arr
        if x.ndim >= 2 and x.shape[-1] == x.shape[-2] and x.dtype.kind == "f":
            a.arr = (x @ np.swapaxes(x, -1, -2) + np.eye(x.shape[-1], dtype=x.dtype) * 3).astype(x.dtype)
            a.layout = "contig"
    args, kw, cmp = [a], {}, "full"
    if op in ("solve", "lstsq", "solve_triangular"):
        sh = a.arr.shape
        args.append(tensor(r, sh[:-1] + (r.choice((1, 2)),) if len(sh) >= 2 else (2,), a.dtype))
        if op == "solve_triangular":
            kw["upper"] = r.random() < 0.5
    if op == "lstsq":
        cmp = "meta"
    if op in ("qr", "svd", "eigh", "lu_factor", "eigvals"):
        cmp = "meta"
    if op == "matrix_power":
        args.append(r.choice((0, 1, 2, -1)))
    if op in ("cross", "vecdot"):
        args = [tensor(r, (2, 3), "float64"), tensor(r, r.choice(((2, 3), (3,), (1, 3))), r.choice(("float64", "float32")))]
    if op == "multi_dot":
        args = [[_mat(r, False, False, "float64"), _mat(r, False, False, "float64")]]
    if op in ("norm", "vector_norm", "matrix_norm") and r.random() < 0.6:
        kw["ord"] = r.choice((1, 2, -1, math.inf, 0, "fro", "nuc", 3.5))
    if op in ("pinv", "matrix_rank", "svdvals", "eigvalsh", "inv", "det"):
        cmp = "full"
    c = Call("linalg", f"linalg.{op}", args, kw, cmp=cmp, rtol=1e-4)
    if op in ("eigvalsh", "svdvals") and a.arr.size and a.arr.dtype.kind == "f":
        # Weyl: a backward-stable solver fixes each eigen/singular value to n eps |A| only; next to
        # a 1e30 entry the O(1) values are noise (seed 201: torch's syevd gave 1.7e14 for 0.19)
        fin = np.abs(a.arr[np.isfinite(a.arr)])
        c.atol = 16 * max(a.arr.shape[-1:] or (1,)) * float(np.finfo(a.arr.dtype).eps) * float(fin.max(initial=0.0))
    if op == "diagonal":
        c.target = "torch.diagonal"
    if op in ("inv", "det", "cholesky", "solve") and r.random() < 0.15:
        c.kwargs["out"] = out_tensor(r, a.arr.shape, a.dtype)
    return c


def gen_product(r) -> Call:
    op = r.choice(PRODUCTS)
    dt = r.choice(("float32", "float64", "int64", "uint8", "complex64", "bool", "float16"))
    dt2 = dt if r.random() < 0.8 else dtype(r)
    n, m, k = r.choice((0, 1, 3)), r.choice((0, 2)), r.choice((0, 1, 2))
    a2, b2 = tensor(r, (n, k), dt), tensor(r, (k if r.random() < 0.9 else k + 1, m), dt2)
    args = {
        "matmul": [tensor(r, r.choice(((k,), (n, k), (2, n, k))), dt), tensor(r, r.choice(((k,), (k, m), (2, k, m))), dt2)],
        "mm": [a2, b2], "bmm": [tensor(r, (2, n, k), dt), tensor(r, (2, k, m), dt2)],
        "mv": [a2, tensor(r, (k,), dt2)], "dot": [tensor(r, (k,), dt), tensor(r, (k,), dt2)],
        "vdot": [tensor(r, (k,), dt), tensor(r, (k,), dt2)], "outer": [tensor(r, (n,), dt), tensor(r, (m,), dt2)],
        "addmm": [tensor(r, broadcast_pair(r, (n, m)), dt), a2, b2],
        "einsum": [r.choice(("ij,jk->ik", "ii->i", "ij->", "i,i->", "...j,j->...")), a2, b2],
        "tensordot": [a2, b2], "kron": [a2, b2], "inner": [a2, tensor(r, (m, k), dt2)],
        "baddbmm": [tensor(r, (2, n, m), dt), tensor(r, (2, n, k), dt), tensor(r, (2, k, m), dt2)],
        "addmv": [tensor(r, (n,), dt), a2, tensor(r, (k,), dt2)], "chain_matmul": [a2, b2],
        "trace": [a2], "tril": [a2, r.choice((0, 1, -1))], "triu": [a2, r.choice((0, 1, -1))],
        "diag": [tensor(r, r.choice(((3,), (2, 3), ())), dt), r.choice((0, 1, -1))],
        "cdist": [tensor(r, (n, 2), dt), tensor(r, (m, 2), dt2)], "dist": [a2, tensor(r, (n, k), dt2)],
        "trapezoid": [tensor(r, (n, k), dt)],
    }[op]  # fmt: skip
    if op == "einsum":
        e = args[0]
        args = [e] + ([args[1]] if e in ("ii->i", "ij->") else [args[1], args[2]] if e == "ij,jk->ik" else
                      [tensor(r, (k,), dt), tensor(r, (k,), dt2)])  # fmt: skip
        if e == "...j,j->...":
            args = [e, a2, tensor(r, (k,), dt2)]
        if e == "ii->i":
            args = [e, tensor(r, (n, n), dt)]
    # torch's tensordot is Python that fails with AttributeError on a non-tensor (kept: numtorch
    # raises the argument parser's TypeError as for every other product)
    if r.random() < 0.1 and len(args) > 1 and op not in ("einsum", "chain_matmul", "tensordot"):
        # a non-tensor where the schema says Tensor: PyTorch's argument parser's TypeError
        args[-1] = r.choice((None, 3, 2.5, "a", [1.0, 2.0]))
    c = Call("products", f"torch.{op}", args, rtol=1e-3 if dt in ("float32", "complex64", "float16") else None)
    if op in ("mm", "matmul", "addmm", "bmm", "dot", "outer") and r.random() < 0.2:
        c.kwargs["out"] = out_tensor(r, (n, m), dt)
    return c


NN = ("relu", "gelu", "silu", "softmax", "log_softmax", "cross_entropy", "mse_loss", "l1_loss", "smooth_l1_loss",
      "huber_loss", "binary_cross_entropy_with_logits", "binary_cross_entropy", "cosine_similarity", "layer_norm",
      "avg_pool1d", "avg_pool2d", "max_pool1d", "max_pool2d", "conv1d", "linear", "pad", "embedding", "one_hot",
      "normalize", "hardtanh", "leaky_relu", "elu", "softplus", "unfold", "nll_loss", "kl_div", "glu",
      "logsigmoid", "softmin", "threshold", "pairwise_distance", "adaptive_avg_pool1d", "interpolate",
      "group_norm", "batch_norm", "dropout", "celu", "hardswish", "mish", "tanhshrink", "softsign")  # fmt: skip


def gen_nn(r) -> Call:
    op = r.choice(NN)
    fdt = r.choice(("float32", "float64", "float32", "float16", "int64", "int32", "uint8"))
    a = tensor(r, r.choice(((2, 3), (2, 3, 4), (3,), (), (0, 3), (1, 2, 3, 3))), fdt)
    sh = a.arr.shape
    kw: dict = {}
    args = [a]
    if op in ("softmax", "log_softmax", "softmin", "glu"):
        kw["dim"] = dim_arg(r, a.arr.ndim, False, False)
        if op != "glu" and r.random() < 0.3:
            kw["dtype"] = DT(r.choice(("float64", "float32", "int64")))
    elif op in ("mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy_with_logits",
                "kl_div", "binary_cross_entropy"):  # fmt: skip
        args.append(tensor(r, broadcast_pair(r, sh) if r.random() < 0.3 else sh,
                           r.choice((fdt, "float32", "float64")), positive=op == "binary_cross_entropy"))
        if op == "binary_cross_entropy":
            args = [tensor(r, sh, fdt, positive=True), args[1]]
            args[0].arr = np.clip(args[0].arr, 0, 1).astype(args[0].arr.dtype)
            args[1].arr = np.clip(args[1].arr, 0, 1).astype(args[1].arr.dtype)
        kw["reduction"] = r.choice(("mean", "sum", "none", "bad"))
    elif op in ("cross_entropy", "nll_loss"):
        n = sh[0] if sh else 0
        cdim = sh[1] if len(sh) > 1 else (sh[0] if sh else 1)
        tgt_shape = (n,) + sh[2:] if len(sh) > 1 else ()
        tg = T(np.array([r.randint(0, max(cdim - 1, 0)) for _ in range(int(np.prod(tgt_shape)))], np.int64)
               .reshape(tgt_shape), "int64")  # fmt: skip
        if r.random() < 0.25:
            tg = tensor(r, sh, "float32", positive=True)
        args.append(tg)
        if r.random() < 0.3:
            kw["ignore_index"] = 0
        if op == "cross_entropy" and r.random() < 0.3:
            kw["label_smoothing"] = r.choice((0.1, 1.5))
    elif op in ("cosine_similarity", "pairwise_distance"):
        args.append(tensor(r, broadcast_pair(r, sh), r.choice((fdt, "float64"))))
        kw["dim"] = dim_arg(r, a.arr.ndim, False, False) if op == "cosine_similarity" else None
        if kw["dim"] is None:
            del kw["dim"]
    elif op == "layer_norm":
        args.append(tuple(sh[-1:]) if r.random() < 0.8 else (5,))
    elif op == "group_norm":
        args.append(r.choice((1, 2, 3)))
    elif op == "batch_norm":
        c = sh[1] if len(sh) > 1 else 3
        args += [tensor(r, (c,), fdt, "contig"), tensor(r, (c,), fdt, "contig", positive=True)]
        kw["training"] = r.random() < 0.5
    elif op in ("avg_pool1d", "max_pool1d", "avg_pool2d", "max_pool2d", "adaptive_avg_pool1d"):
        args.append(r.choice((1, 2, 3, 0)))
        if op != "adaptive_avg_pool1d" and r.random() < 0.4:
            kw["stride"] = r.choice((1, 2))
        if op.startswith("avg") and r.random() < 0.3:
            kw["ceil_mode"] = True
            kw["count_include_pad"] = r.random() < 0.5
    elif op == "conv1d":
        cin = sh[1] if len(sh) > 1 else 1
        args.append(tensor(r, (2, cin, r.choice((1, 2))), r.choice((fdt, "float32"))))
        kw["padding"] = r.choice((0, 1, "same", "valid"))
    elif op == "linear":
        args.append(tensor(r, (2, sh[-1] if sh else 1), r.choice((fdt, "float64"))))
        if r.random() < 0.5:
            args.append(tensor(r, (2,), fdt))
    elif op == "pad":
        args.append(r.choice(((1, 1), (0, 2, 1, 0), (-1, 0), (1,))))
        kw["mode"] = r.choice(("constant", "reflect", "replicate", "circular"))
        kw["value"] = None if kw["mode"] != "constant" else 1.5
    elif op == "embedding":
        w = tensor(r, (4, 3), r.choice(("float32", "float64")), "contig")
        args = [_idx_or_float(r, 4), w]
        if r.random() < 0.4:
            kw["max_norm"] = 1.0
        if r.random() < 0.3:
            kw["padding_idx"] = r.choice((0, -1, 7))
    elif op == "one_hot":
        args = [T(np.array([r.randint(0, 3) for _ in range(3)], np.int64), r.choice(("int64", "int64", "int32")))]
        kw["num_classes"] = r.choice((-1, 4, 2))
    elif op == "unfold":
        args = [tensor(r, (1, 2, 4, 4), fdt), r.choice((0, 1, 2, (2, 3)))]
    elif op == "normalize":
        kw["dim"] = dim_arg(r, a.arr.ndim, False, False)
        kw["p"] = r.choice((2, 1, math.inf, 0))
    elif op in ("leaky_relu", "elu", "hardtanh", "softplus", "celu", "threshold"):
        if op == "threshold":
            args += [r.choice((0.5, 0)), r.choice((2.0, -1))]
        if r.random() < 0.3 and op != "threshold":
            kw["inplace"] = True
    elif op == "interpolate":
        kw["scale_factor"] = r.choice((2, 0.5, 1.5))
        kw["mode"] = r.choice(("nearest", "linear"))
    elif op == "dropout":
        kw["p"] = r.choice((0.0, 1.0, 1.5, -0.1))
        kw["training"] = kw["p"] != 0.0 and r.random() < 0.5
    c = Call("nn", f"F.{op}", args, kw, rtol=2e-3 if fdt in ("float16", "float32") else 1e-7)
    return c


def _idx_or_float(r, n):
    if r.random() < 0.2:
        return tensor(r, (3,), "float32")
    return T(np.array([r.randint(-1 if r.random() < 0.1 else 0, n - 1 + (r.random() < 0.05)) for _ in range(3)],
                      np.int64), "int64")  # fmt: skip


FACTORIES = ("zeros", "ones", "full", "arange", "linspace", "logspace", "eye", "empty", "randn", "rand", "tensor",
             "zeros_like", "full_like", "tril_indices", "as_tensor", "scalar_tensor", "range", "randint", "randperm")  # fmt: skip


def gen_factory(r) -> Call:
    op = r.choice(FACTORIES)
    size = r.choice(((2, 3), (0,), (), (-1,), (2**40,), 3, (2, 2**62)))
    kw: dict = {}
    if r.random() < 0.4:
        kw["dtype"] = DT(dtype(r, DTYPES))
    cmp = "full"
    if op in ("zeros", "ones", "empty", "randn", "rand"):
        args = [size] if not isinstance(size, int) else [size]
        cmp = "meta" if op in ("empty", "randn", "rand") else "full"
    elif op == "full":
        args = [size, r.choice((1.5, 2, True, 1j, math.nan))]
    elif op in ("arange", "range"):
        args = r.choice(([5], [0, 5, 2], [1.0, 2.0, 0.25], [0, 5, 0], [5, 0, 1], [0, 10, -1], [0.0, 1.0, 0.1], [2**62]))
    elif op in ("linspace", "logspace"):
        args = [r.choice((0, 0.0, -1.5)), r.choice((1, 10, 2.5)), r.choice((0, 1, 5, -1))]
        if r.random() < 0.2:
            kw["out"] = out_tensor(r, (args[2] if args[2] > 0 else 0,), "float32")
    elif op == "eye":
        args = [r.choice((0, 3, -1)), r.choice((2, 3))] if r.random() < 0.5 else [r.choice((0, 3, -1))]
    elif op in ("tensor", "as_tensor"):
        args = [r.choice(([1, 2.5], [[1, 2], [3]], [], [[]], [True, 2], [1, 2j], 2**63, [2**63 - 1], (1, [2]),
                          [[1, 2], [3, 4]], 1e400, [math.nan]))]  # fmt: skip
    elif op in ("zeros_like", "full_like"):
        args = [tensor(r)] + ([r.choice((1.5, 7, True, 1j, 300))] if op == "full_like" else [])
    elif op == "tril_indices":
        args = [r.choice((0, 3, -1)), r.choice((2, 3)), r.choice((0, 1, -1))]
    elif op == "scalar_tensor":
        args = [r.choice((1.5, 2, True, 1j))]
    elif op == "randint":
        args = [r.choice((0, 5, -1)), r.choice((10, 0)), size if not isinstance(size, int) else (size,)]
        cmp = "meta"
    else:
        args = [r.choice((0, 5, -1))]
        cmp = "sorted"
    return Call("factory", f"torch.{op}", args, kw, cmp=cmp)


AUTOGRAD = ("backward_shape", "backward_list", "backward_nonscalar", "backward_twice", "complex_backward",
            "requires_grad_nonleaf", "int_requires_grad", "hook_dtype", "grad_inplace_leaf", "inplace_saved",
            "std_grad", "grad_unused", "retain_graph", "grad_of_int_output", "detach_inplace")  # fmt: skip


def gen_autograd(r) -> Call:
    s = r.choice(AUTOGRAD)
    x = tensor(r, r.choice(((), (3,), (2, 2), (1,))), r.choice(("float64", "float32", "complex128")), "contig", rg=True)
    extra = r.choice((0, 1, 2))
    return Call("autograd", "fn:autograd", [s, x, extra])


MISC = ("contains", "item", "tolist", "is_contiguous_cl", "conj_write", "storage_offset", "bool", "int", "float",
        "len", "iter", "numel", "clone_cl", "type_as", "to", "index_int", "eq_none", "hash_dim")  # fmt: skip


def gen_misc(r) -> Call:
    s = r.choice(MISC)
    x = tensor(r, r.choice(((), (1,), (3,), (2, 3), (0,), (1, 2, 2, 2))), pool=DTYPES)
    return Call("misc", "fn:misc", [s, x, r.choice((scalar(r), tensor(r, (), "int64"), "a", None))])


__all__ = ["gen_autograd", "gen_factory", "gen_indexing", "gen_join", "gen_linalg", "gen_misc", "gen_nn",
           "gen_product", "gen_view", "FLOATS", "INTS"]  # fmt: skip
