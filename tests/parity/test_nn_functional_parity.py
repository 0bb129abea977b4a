"""numtorch.nn.functional against torch.nn.functional: values, gradients and error messages."""

from __future__ import annotations

import numpy as np
import pytest

import numtorch

torch = pytest.importorskip("torch")
F, TF = numtorch.nn.functional, torch.nn.functional


def _to(lib, a, grad):
    if not isinstance(a, np.ndarray):
        return a
    t = (numtorch if lib == "nt" else torch).from_numpy(a.copy())
    return t.requires_grad_(True) if grad and a.dtype.kind == "f" else t


def compare(fn_name, args, kwargs=None, tol=1e-6, grad=True, rng=None):
    """Run F.<fn_name> in both libraries on copies of ``args``; compare outputs and input gradients."""
    kwargs = kwargs or {}
    nt_args, t_args = [_to("nt", a, grad) for a in args], [_to("t", a, grad) for a in args]
    ntk = {k: _to("nt", v, False) for k, v in kwargs.items()}
    tk = {k: _to("t", v, False) for k, v in kwargs.items()}
    a, b = getattr(F, fn_name)(*nt_args, **ntk), getattr(TF, fn_name)(*t_args, **tk)
    a, b = (a[0], b[0]) if isinstance(b, tuple) else (a, b)
    np.testing.assert_allclose(
        a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol, equal_nan=True
    )
    if not grad or not b.requires_grad:
        return
    g = (
        (rng or np.random.default_rng(0))
        .standard_normal(tuple(b.shape))
        .astype(b.detach().numpy().dtype)
    )
    t_in = [x for x in t_args if isinstance(x, torch.Tensor) and x.requires_grad]
    n_in = [x for x in nt_args if isinstance(x, numtorch.Tensor) and x.requires_grad]
    gt = torch.autograd.grad(b, t_in, torch.from_numpy(g), allow_unused=True)
    gn = numtorch.autograd.grad(a, n_in, numtorch.from_numpy(g), allow_unused=True)
    for i, (p, q) in enumerate(zip(gn, gt, strict=False)):
        if q is None:
            continue
        assert p is not None, f"gradient {i} missing"
        np.testing.assert_allclose(
            p.numpy(), q.numpy(), rtol=tol * 10, atol=tol * 10, err_msg=f"gradient {i}"
        )


R = np.random.default_rng(1234)


def rnd(*shape, low=-2.0, high=2.0, dtype=np.float64):
    return R.uniform(low, high, shape).astype(dtype)


ACTIVATIONS = ["relu", "relu6", "leaky_relu", "elu", "selu", "celu", "gelu", "silu", "mish", "softplus", "softsign",
               "hardtanh", "hardsigmoid", "hardswish", "sigmoid", "tanh", "logsigmoid", "tanhshrink", "glu"]  # fmt: skip


@pytest.mark.parametrize("name", ACTIVATIONS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_activations(name, dtype):
    compare(
        name, [rnd(4, 6, low=-5, high=5, dtype=dtype)], tol=1e-5 if dtype == np.float32 else 1e-10
    )


@pytest.mark.parametrize("case", [("leaky_relu", {"negative_slope": 0.3}), ("elu", {"alpha": 0.7}),
                                  ("celu", {"alpha": 1.7}), ("gelu", {"approximate": "tanh"}),
                                  ("softplus", {"beta": 3.0, "threshold": 2.0}), ("hardtanh", {"min_val": -0.5, "max_val": 2.0}),
                                  ("threshold", {"threshold": 0.3, "value": -4.0}), ("glu", {"dim": 0}),
                                  ("softmin", {"dim": 1}), ("normalize", {"p": 3.0, "dim": 0})])  # fmt: skip
def test_activation_arguments(case):
    name, kw = case
    compare(name, [rnd(4, 6, low=-4, high=4)], kw, tol=1e-10)


def _conv_configs(n, seed):
    r = np.random.default_rng(seed)
    for _ in range(n):
        g = int(r.choice([1, 2]))
        k = (int(r.integers(1, 4)), int(r.integers(1, 4)))
        d = (int(r.integers(1, 3)), int(r.integers(1, 3)))
        yield {"g": g, "cin": g * int(r.integers(1, 3)), "cout": g * int(r.integers(1, 3)), "k": k, "d": d,
               "s": (int(r.integers(1, 3)), int(r.integers(1, 3))), "p": (int(r.integers(0, 3)), int(r.integers(0, 3))),
               "hw": (d[0] * (k[0] - 1) + 1 + int(r.integers(0, 4)), d[1] * (k[1] - 1) + 1 + int(r.integers(0, 4)))}  # fmt: skip


@pytest.mark.parametrize("c", list(_conv_configs(16, 7)), ids=lambda c: str(tuple(c.values())))
def test_conv2d_and_transpose_random_configs(c):
    x = rnd(2, c["cin"], *c["hw"])
    compare("conv2d", [x, rnd(c["cout"], c["cin"] // c["g"], *c["k"]), rnd(c["cout"])],
            {"stride": c["s"], "padding": c["p"], "dilation": c["d"], "groups": c["g"]}, tol=1e-10)  # fmt: skip
    op = tuple(min(s, d) - 1 for s, d in zip(c["s"], c["d"], strict=False))
    p = tuple(min(pp, dd * (kk - 1)) for pp, dd, kk in zip(c["p"], c["d"], c["k"], strict=False))
    compare("conv_transpose2d", [x, rnd(c["cin"], c["cout"] // c["g"], *c["k"]), rnd(c["cout"])],
            {"stride": c["s"], "padding": p, "output_padding": op, "groups": c["g"], "dilation": c["d"]}, tol=1e-10)  # fmt: skip


def test_conv1d_padding_same_and_float32():
    compare("conv1d", [rnd(2, 3, 9), rnd(4, 3, 4)], {"padding": "same", "dilation": 2}, tol=1e-10)
    compare("conv1d", [rnd(2, 4, 9, dtype=np.float32), rnd(6, 2, 3, dtype=np.float32)], {"groups": 2, "stride": 2},
            tol=1e-5)  # fmt: skip
    compare(
        "conv_transpose1d",
        [rnd(2, 3, 5), rnd(3, 2, 3)],
        {"stride": 2, "output_padding": 1},
        tol=1e-10,
    )


@pytest.mark.parametrize("cfg", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
                                 dict(kernel_size=(2, 3), stride=(1, 2), dilation=(2, 1), ceil_mode=True),
                                 dict(kernel_size=3, stride=2, ceil_mode=True, padding=1)])  # fmt: skip
def test_pools(cfg):
    x = rnd(2, 3, 9, 8)
    compare("max_pool2d", [x], cfg, tol=1e-12)
    avg = {k: v for k, v in cfg.items() if k != "dilation"}
    compare("avg_pool2d", [x], avg, tol=1e-12)
    compare("avg_pool2d", [x], {**avg, "count_include_pad": False}, tol=1e-12)
    out_nt, idx_nt = F.max_pool2d(numtorch.from_numpy(x), return_indices=True, **cfg)
    out_t, idx_t = TF.max_pool2d(torch.from_numpy(x), return_indices=True, **cfg)
    np.testing.assert_array_equal(idx_nt.numpy(), idx_t.numpy())


@pytest.mark.parametrize("size", [1, 3, (2, 5), (None, 4)])
def test_adaptive_pools(size):
    compare("adaptive_avg_pool2d", [rnd(2, 3, 7, 9)], {"output_size": size}, tol=1e-12)
    compare("adaptive_max_pool2d", [rnd(2, 3, 7, 9)], {"output_size": size}, tol=1e-12)


def test_pool1d():
    compare("max_pool1d", [rnd(2, 3, 11)], {"kernel_size": 3, "stride": 2, "padding": 1}, tol=1e-12)
    compare(
        "avg_pool1d", [rnd(2, 3, 11)], {"kernel_size": 3, "stride": 2, "ceil_mode": True}, tol=1e-12
    )
    compare("adaptive_avg_pool1d", [rnd(2, 3, 11)], {"output_size": 4}, tol=1e-12)


@pytest.mark.parametrize("kw", [{"scale_factor": 2}, {"size": (5, 7)}, {"scale_factor": 1.7},
                                {"size": (5, 7), "mode": "bilinear"}, {"scale_factor": 0.6, "mode": "bilinear"},
                                {"scale_factor": 1.5, "mode": "bilinear", "align_corners": True},
                                {"scale_factor": 2.3, "mode": "bilinear", "recompute_scale_factor": True}])  # fmt: skip
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_interpolate_2d(kw, dtype):
    compare(
        "interpolate",
        [rnd(2, 3, 4, 6, dtype=dtype)],
        kw,
        tol=1e-5 if dtype == np.float32 else 1e-10,
    )


def test_interpolate_1d():
    compare("interpolate", [rnd(2, 3, 5)], {"scale_factor": 2.5}, tol=1e-12)
    compare("interpolate", [rnd(2, 3, 5)], {"size": 8, "mode": "linear"}, tol=1e-12)


@pytest.mark.parametrize("case", [((1, 2, 0, 3), "constant"), ((-1, 2), "constant"), ((2, 1, 1, 2), "reflect"),
                                  ((2, 1), "reflect"), ((3, 1, 2, 0), "replicate"), ((2, 2, 1, 3), "circular"),
                                  ((1, 2), "circular")])  # fmt: skip
def test_pad(case):
    pad, mode = case
    x = rnd(2, 3, 4, 5) if len(pad) == 4 or mode == "constant" else rnd(2, 3, 5)
    compare("pad", [x, pad], {"mode": mode}, tol=1e-12)


def test_unfold_fold_pixel_shuffle():
    compare(
        "unfold",
        [rnd(2, 3, 6, 5)],
        {"kernel_size": (2, 3), "dilation": (2, 1), "padding": 1, "stride": 2},
    )
    compare("fold", [rnd(2, 12, 10), (4, 5), 2], {"padding": (1, 0), "stride": (1, 2)})
    compare("pixel_shuffle", [rnd(2, 12, 3, 2), 2])
    compare("pixel_unshuffle", [rnd(2, 3, 6, 4), 2])


def test_normalization():
    compare("layer_norm", [rnd(3, 4, 5), (4, 5), rnd(4, 5), rnd(4, 5)], tol=1e-10)
    compare("group_norm", [rnd(2, 6, 3, 2), 3, rnd(6), rnd(6)], tol=1e-10)
    compare("batch_norm", [rnd(5, 3, 4), None, None, rnd(3), rnd(3)], {"training": True}, tol=1e-10)
    stats = {
        "running_mean": rnd(3),
        "running_var": rnd(3, low=0.5, high=2),
        "training": False,
    }  # not differentiable
    compare("batch_norm", [rnd(5, 3)], {**stats, "weight": rnd(3), "bias": rnd(3)}, tol=1e-10)
    compare("instance_norm", [rnd(2, 3, 4, 5)], tol=1e-10)


def test_batch_norm_running_stats_sequence():
    rm_n, rv_n = numtorch.zeros(3, dtype=numtorch.float64), numtorch.ones(3, dtype=numtorch.float64)
    rm_t, rv_t = torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)
    for _ in range(3):
        x = rnd(4, 3, 2)
        F.batch_norm(numtorch.from_numpy(x), rm_n, rv_n, training=True, momentum=0.3)
        TF.batch_norm(torch.from_numpy(x), rm_t, rv_t, training=True, momentum=0.3)
    np.testing.assert_allclose(rm_n.numpy(), rm_t.numpy(), rtol=1e-12)
    np.testing.assert_allclose(rv_n.numpy(), rv_t.numpy(), rtol=1e-12)


def test_layers_and_distances():
    compare("linear", [rnd(3, 4), rnd(5, 4), rnd(5)])
    compare("bilinear", [rnd(3, 4), rnd(3, 2), rnd(5, 4, 2), rnd(5)])
    compare("cosine_similarity", [rnd(4, 3), rnd(4, 3)])
    compare("pairwise_distance", [rnd(4, 3), rnd(4, 3)], {"p": 1.5, "keepdim": True})
    compare("embedding", [np.array([[0, 2], [3, 2]]), rnd(5, 3)], {"padding_idx": 2})
    idx = np.array([0, 3, 1])
    np.testing.assert_array_equal(
        F.one_hot(numtorch.from_numpy(idx), 5).numpy(), TF.one_hot(torch.from_numpy(idx), 5).numpy()
    )


@pytest.mark.parametrize(
    "kw", [{}, {"is_causal": True}, {"scale": 0.3}, {"attn_mask": "bool"}, {"attn_mask": "float"}]
)
def test_scaled_dot_product_attention(kw):
    q, k, v = rnd(2, 3, 4, 5), rnd(2, 3, 6, 5), rnd(2, 3, 6, 2)
    if kw.get("is_causal"):
        k, v = rnd(2, 3, 4, 5), rnd(2, 3, 4, 2)
    if kw.get("attn_mask") == "bool":
        kw = {"attn_mask": R.random((4, 6)) > 0.3}
    elif kw.get("attn_mask") == "float":
        kw = {"attn_mask": rnd(1, 3, 4, 6)}
    compare("scaled_dot_product_attention", [q, k, v], kw, tol=1e-10)


LOSS_CASES = [
    ("cross_entropy", lambda: [rnd(5, 4), R.integers(0, 4, 5)], {}),
    ("cross_entropy", lambda: [rnd(5, 4), R.integers(0, 4, 5)], {"weight": rnd(4, low=0.5), "ignore_index": 1, "label_smoothing": 0.15}),
    ("cross_entropy", lambda: [rnd(5, 4), R.integers(0, 4, 5)], {"weight": rnd(4, low=0.5), "reduction": "sum"}),
    ("cross_entropy", lambda: [rnd(2, 4, 3, 2), R.integers(0, 4, (2, 3, 2))], {"reduction": "none", "label_smoothing": 0.1}),
    ("cross_entropy", lambda: [rnd(2, 4, 5), R.integers(0, 4, (2, 5))], {"ignore_index": 0}),
    ("cross_entropy", lambda: [rnd(2, 4, 2, 2, 2), R.integers(0, 4, (2, 2, 2, 2))], {}),
    ("cross_entropy", lambda: [rnd(5, 4), R.random((5, 4))], {"weight": rnd(4, low=0.5), "label_smoothing": 0.2}),
    ("nll_loss", lambda: [rnd(5, 4), R.integers(0, 4, 5)], {"weight": rnd(4, low=0.5), "reduction": "none"}),
    ("mse_loss", lambda: [rnd(3, 4), rnd(3, 4)], {}),
    ("l1_loss", lambda: [rnd(3, 4), rnd(3, 4)], {"reduction": "sum"}),
    ("smooth_l1_loss", lambda: [rnd(3, 4), rnd(3, 4)], {"beta": 0.6}),
    ("huber_loss", lambda: [rnd(3, 4), rnd(3, 4)], {"delta": 0.6, "reduction": "none"}),
    ("binary_cross_entropy", lambda: [rnd(3, 4, low=0.05, high=0.95), rnd(3, 4, low=0, high=1)], {"weight": rnd(4, low=0.5)}),
    ("binary_cross_entropy_with_logits", lambda: [rnd(3, 4), rnd(3, 4, low=0, high=1)],
     {"pos_weight": rnd(4, low=0.5), "weight": rnd(3, 4, low=0.5)}),
    ("kl_div", lambda: [rnd(3, 4, high=0), rnd(3, 4, low=0.1, high=1)], {"reduction": "batchmean"}),
    ("kl_div", lambda: [rnd(3, 4), rnd(3, 4)], {"reduction": "none", "log_target": True}),
    ("margin_ranking_loss", lambda: [rnd(5), rnd(5), np.sign(rnd(5))], {"margin": 0.3}),
    ("cosine_embedding_loss", lambda: [rnd(5, 3), rnd(5, 3), np.sign(rnd(5))], {"margin": 0.2}),
]  # fmt: skip


@pytest.mark.parametrize("case", LOSS_CASES, ids=lambda c: f"{c[0]}-{sorted(c[2])}")
def test_losses_values_and_gradients(case):
    name, make, kw = case
    compare(name, make(), kw, tol=1e-10)


ERROR_CASES = [  # (functional, lib -> (args, kwargs))
    ("conv2d", lambda lib: ((lib.ones(2, 3, 8, 8), lib.ones(4, 2, 3, 3)), {})),
    ("conv2d", lambda lib: ((lib.ones(2, 3, 8, 8), lib.ones(4, 3, 9, 9)), {})),
    (
        "conv2d",
        lambda lib: (
            (lib.ones(2, 3, 8, 8), lib.ones(4, 3, 3, 3)),
            {"padding": "same", "stride": 2},
        ),
    ),
    ("conv2d", lambda lib: ((lib.ones(2, 3, 8, 8), lib.ones(4, 3, 3, 3), lib.ones(5)), {})),
    (
        "conv_transpose2d",
        lambda lib: (
            (lib.ones(2, 3, 8, 8), lib.ones(3, 4, 3, 3)),
            {"stride": 2, "output_padding": 2},
        ),
    ),
    ("max_pool2d", lambda lib: ((lib.ones(2, 3, 8, 8), 3), {"padding": 2})),
    ("max_pool2d", lambda lib: ((lib.ones(2, 3, 8, 8), 9), {})),
    ("avg_pool2d", lambda lib: ((lib.ones(2, 3, 8, 8), 2), {"divisor_override": 0})),
    ("pad", lambda lib: ((lib.ones(1, 2, 3, 3), (3, 3, 0, 0)), {"mode": "reflect"})),
    ("pad", lambda lib: ((lib.ones(1, 2, 3), (4, 4)), {"mode": "circular"})),
    ("interpolate", lambda lib: ((lib.ones(1, 1, 2, 2),), {"size": 5, "scale_factor": 2})),
    ("cross_entropy", lambda lib: ((lib.ones(3, 4), lib.tensor([0, 1])), {})),
    ("cross_entropy", lambda lib: ((lib.ones(2, 4), lib.tensor([0, 5])), {})),
    ("cross_entropy", lambda lib: ((lib.ones(2, 4, 3), lib.zeros(2, 4, dtype=lib.int64)), {})),
    ("nll_loss", lambda lib: ((lib.ones(2, 4), lib.tensor([0, 1])), {"weight": lib.ones(3)})),
    ("binary_cross_entropy", lambda lib: ((lib.tensor([1.5]), lib.tensor([1.0])), {})),
    ("layer_norm", lambda lib: ((lib.ones(2, 3), (4,)), {})),
    ("group_norm", lambda lib: ((lib.ones(2, 3, 4), 2), {})),
    ("one_hot", lambda lib: ((lib.tensor([0, 3]), 2), {})),
    ("embedding", lambda lib: ((lib.tensor([5]), lib.ones(3, 2)), {})),
    ("glu", lambda lib: ((lib.ones(3, 3),), {})),
]


@pytest.mark.parametrize("case", ERROR_CASES, ids=lambda c: c[0])
def test_errors_match_torch(case):
    name, make = case
    with pytest.raises(Exception) as want:
        args, kw = make(torch)
        getattr(TF, name)(*args, **kw)
    with pytest.raises(Exception) as got:
        args, kw = make(numtorch)
        getattr(F, name)(*args, **kw)
    assert isinstance(got.value, RuntimeError) == isinstance(want.value, RuntimeError)
    assert isinstance(got.value, (ValueError, IndexError)) == isinstance(
        want.value, (ValueError, IndexError)
    )
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("nd", [1, 2, 3])
def test_half_conv_skips_padded_taps(dtype, nd):
    # torch's bfloat16 slow_conv kernels skip the taps over the zero padding, so a NaN/inf weight
    # there does not reach the edge outputs; its float and (2.13) float16 kernels multiply 0 * NaN
    rng = np.random.default_rng(nd)
    x = rng.standard_normal((2, 4, *[5] * nd)).round(1)
    w = rng.standard_normal((6, 2, *[3] * nd)).round(1)
    w.reshape(-1)[[0, 7, 20]] = [np.nan, np.inf, -np.inf]
    x.reshape(-1)[3] = 0.0
    kw = dict(padding=2, stride=2, dilation=1, groups=2) if nd != 2 else dict(padding=(1, 2), dilation=(2, 1), groups=2)
    fn = f"conv{nd}d"
    got = getattr(numtorch.nn.functional, fn)(numtorch.tensor(x, dtype=getattr(numtorch, dtype)),
                                              numtorch.tensor(w, dtype=getattr(numtorch, dtype)), **kw)
    want = getattr(torch.nn.functional, fn)(torch.tensor(x, dtype=getattr(torch, dtype)),
                                            torch.tensor(w, dtype=getattr(torch, dtype)), **kw)
    np.testing.assert_allclose(got.float().numpy(), want.float().numpy(), rtol=0.02, atol=0.05)


@pytest.mark.parametrize("mode, shape", [("trilinear", (1, 1, 2)), ("trilinear", (1, 1, 2, 2)), ("bicubic", (1, 1, 2)),
                                         ("bicubic", (1, 1, 2, 2, 2)), ("cubic", (1, 1, 2, 2)), ("nearest", (2,)),
                                         ("linear", (1, 1, 2, 2, 2))])  # fmt: skip
def test_interpolate_mode_errors_match(mode, shape):
    # torch's texts for a mode that does not fit the input: its bad-mode list names lanczos, and
    # trilinear needs 5D (the text said 6D)
    with pytest.raises(NotImplementedError) as want:
        TF.interpolate(torch.ones(shape), scale_factor=2, mode=mode)
    with pytest.raises(NotImplementedError) as got:
        F.interpolate(numtorch.ones(shape), scale_factor=2, mode=mode)
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize("fn, kw", [("max_pool2d", dict(kernel_size=3)), ("max_pool2d", dict(kernel_size=2, padding=1)),
                                    ("max_pool3d", dict(kernel_size=2)), ("adaptive_max_pool2d", dict(output_size=2))])  # fmt: skip
def test_int64_max_pool_keeps_extremes(fn, kw):
    # the window's running max started at a float -inf, so 2**63 - 1 went through float64 and
    # came back as -2**63 (fuzz seed 64); integer adaptive max pools are refused, as torch does
    x = [[[5, 2**63 - 1, 3, 2**63 - 1], [-5, 1, 2, -2**63], [0, 0, 0, 0]], [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]]
    x = [x] if fn == "max_pool3d" else x

    def call(lib):
        try:
            return getattr(lib.nn.functional, fn)(lib.tensor(x), **kw).tolist()
        except NotImplementedError as e:
            return str(e)

    assert call(numtorch) == call(torch)


def test_cosine_similarity_takes_each_float_norm_in_its_own_dtype():
    # torch converts only integral inputs: a float32 row holding 1e30 has an inf float32 norm, so
    # its similarity with a float64 row is 0 (it was 0.918 through float64; fuzz seed 60)
    a, b = [[-7.679, 1e30, -1.037, -6.702], [1.0, 2.0, 3.0, 4.0]], [[-2.018, 7.25, -2.014, -1.289], [1.0, 0.0, 1.0, 0.0]]
    got = F.cosine_similarity(numtorch.tensor(a), numtorch.tensor(b, dtype=numtorch.float64), dim=-1)
    want = TF.cosine_similarity(torch.tensor(a), torch.tensor(b, dtype=torch.float64), dim=-1)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
    assert str(got.dtype) == str(want.dtype)


def test_int64_avg_pool_truncates_like_cpp():
    # an int64 window mean is an integer division (truncation); the float route rounded
    # -9223372036854775807 / 2 to -2**62 (fuzz seed 62)
    x = [[[6, 8, -9223372036854775807, -9223372036854775807, 0, -2, 7], [-7, 5, -3, 2, 1, 1, 1]]]
    for kw in (dict(kernel_size=2, ceil_mode=True, count_include_pad=False), dict(kernel_size=3, padding=1)):
        assert F.avg_pool1d(numtorch.tensor(x), **kw).tolist() == TF.avg_pool1d(torch.tensor(x), **kw).tolist()
    got = F.avg_pool2d(numtorch.tensor(x), (1, 3), divisor_override=2)
    assert got.tolist() == TF.avg_pool2d(torch.tensor(x), (1, 3), divisor_override=2).tolist()


def test_cosine_similarity_gradient_below_eps_matches_torch():
    a, b = [[1e-9, 0.0, 0.0], [1.0, 2.0, 3.0]], [[1.0, 2.0, 3.0], [3.0, 1.0, 2.0]]
    grads = []
    for lib in (numtorch, torch):
        x = lib.tensor(a, dtype=lib.float64, requires_grad=True)
        y = lib.tensor(b, dtype=lib.float64, requires_grad=True)
        lib.nn.functional.cosine_similarity(x, y).sum().backward()
        grads.append((x.grad.numpy(), y.grad.numpy()))
    for g, w in zip(*grads, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-12)
