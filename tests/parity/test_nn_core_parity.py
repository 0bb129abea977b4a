"""nn core against PyTorch: the same module trees built in both print, register, name and fail
identically; init/clip_grad/data/serialization agree."""

from __future__ import annotations

import io
import math
from collections import OrderedDict

import numpy as np
import pytest

import numtorch

torch = pytest.importorskip("torch")


def _both(build):
    return build(torch), build(numtorch)


def _err(fn, lib):
    try:
        fn(lib)
    except Exception as e:  # noqa: BLE001 - we compare whatever both raise
        return type(e).__name__, str(e)
    return None


def _same_error(fn):
    t, n = _err(fn, torch), _err(fn, numtorch)
    assert t is not None
    assert n == t


def _tree(lib):
    nn = lib.nn

    class Leaf(nn.Module):
        def __init__(self, k):
            super().__init__()
            self.k = k
            self.w = nn.Parameter(lib.ones(k))
            self.register_buffer("stat", lib.zeros(k))
            self.register_buffer("scratch", lib.zeros(1), persistent=False)

        def extra_repr(self):
            return f"k={self.k}"

    class Multi(nn.Module):
        def extra_repr(self):
            return "first line\nsecond line"

    root = nn.Module()
    root.seq = nn.Sequential(Leaf(2), nn.Sequential(Leaf(3), Multi()))
    root.blocks = nn.ModuleList([Leaf(1), Leaf(1), Leaf(1), Leaf(4)])
    root.heads = nn.ModuleDict({"b": Leaf(5), "a": Multi()})
    root.plist = nn.ParameterList([lib.zeros(2, 3), lib.ones(1)])
    root.pdict = nn.ParameterDict({"beta": lib.zeros(4), "alpha": lib.ones(2, 2)})
    root.empty = nn.ModuleList()
    root.tied = root.blocks[0]
    return root


def test_nested_repr_matches():
    t, n = _both(_tree)
    assert repr(n) == repr(t)


def test_note_linear_repr_matches():
    def build(lib):
        class Linear(lib.nn.Module):
            def __init__(self, input_features, output_features, bias=True):
                super().__init__()
                self.input_features = input_features
                self.output_features = output_features
                self.weight = lib.nn.Parameter(lib.empty(output_features, input_features))
                if bias:
                    self.bias = lib.nn.Parameter(lib.empty(output_features))
                else:
                    self.register_parameter("bias", None)

            def extra_repr(self):
                return f"input_features={self.input_features}, output_features={self.output_features}, bias={self.bias is not None}"

        return lib.nn.Sequential(Linear(3, 4), Linear(4, 1, bias=False))

    t, n = _both(build)
    assert repr(n) == repr(t)
    assert [k for k, _ in n.named_parameters()] == [k for k, _ in t.named_parameters()]


def test_names_state_dict_and_metadata_match():
    t, n = _both(_tree)
    for method in ("named_parameters", "named_buffers", "named_modules", "named_children"):
        assert [k for k, _ in getattr(n, method)()] == [k for k, _ in getattr(t, method)()], method
    assert [k for k, _ in n.named_parameters(remove_duplicate=False)] == [
        k for k, _ in t.named_parameters(remove_duplicate=False)
    ]
    assert [k for k, _ in n.named_modules(prefix="m", remove_duplicate=False)] == [
        k for k, _ in t.named_modules(prefix="m", remove_duplicate=False)
    ]
    ts, ns = t.state_dict(), n.state_dict()
    assert list(ns) == list(ts)
    assert ns._metadata == ts._metadata
    assert set(dir(n)) - set(dir(type(n))) == set(dir(t)) - set(dir(type(t)))


def test_parameter_and_buffer_reprs_match():
    def build(lib):
        return [lib.nn.Parameter(lib.tensor([[1.5, -2.0], [0.25, 3.0]])),
                lib.nn.Parameter(lib.tensor([1, 2]).double(), requires_grad=False)]  # fmt: skip

    t, n = _both(build)
    assert [repr(x) for x in n] == [repr(x) for x in t]


def test_registration_errors_match():
    def scale(lib):
        m = lib.nn.Module()
        m.w = lib.nn.Parameter(lib.ones(2))
        m.sub = lib.nn.Module()
        m.register_buffer("b", lib.zeros(1))
        return m

    cases = [
        lambda lib: setattr(scale(lib), "w", lib.zeros(2)),
        lambda lib: setattr(scale(lib), "w", lib.zeros(2, dtype=lib.int64)),
        lambda lib: setattr(scale(lib), "sub", 3),
        lambda lib: setattr(scale(lib), "b", [1]),
        lambda lib: scale(lib).register_parameter("x.y", None),
        lambda lib: scale(lib).register_parameter("", None),
        lambda lib: scale(lib).register_parameter("p", lib.ones(1)),
        lambda lib: scale(lib).register_parameter(1, None),
        lambda lib: scale(lib).register_buffer("sub", None),
        lambda lib: scale(lib).register_buffer("c", "nope"),
        lambda lib: scale(lib).add_module("a.b", lib.nn.Module()),
        lambda lib: scale(lib).add_module("x", 5),
        lambda lib: scale(lib).get_submodule("sub.zz"),
        lambda lib: scale(lib).get_submodule("w"),
        lambda lib: scale(lib).get_parameter("b"),
        lambda lib: scale(lib).get_buffer("w"),
        lambda lib: scale(lib).missing_attr,
        lambda lib: lib.nn.Module()(1),
        lambda lib: lib.nn.Module(3),
        lambda lib: scale(lib).train("x"),
        lambda lib: lib.nn.Module.__new__(lib.nn.Module).register_parameter("w", None),
        lambda lib: scale(lib).to(lib.int32),
        lambda lib: lib.nn.Sequential()[0],
        lambda lib: lib.nn.Sequential() + [1],
        lambda lib: lib.nn.ModuleList().extend(lib.nn.Module()),
        lambda lib: lib.nn.ModuleDict().update([(1,)]),
        lambda lib: lib.nn.ParameterList()(),
    ]
    for i, case in enumerate(cases):
        t, n = _err(case, torch), _err(case, numtorch)
        assert t is not None, i
        assert n == t, i


def test_load_state_dict_messages_match():
    def model(lib):
        m = lib.nn.Module()
        m.w = lib.nn.Parameter(lib.ones(2))
        m.register_buffer("count", lib.zeros(1))
        m.inner = lib.nn.Module()
        m.inner.v = lib.nn.Parameter(lib.ones(3))
        return m

    _same_error(lambda lib: model(lib).load_state_dict({"w": lib.ones(2), "extra": lib.ones(1)}))
    _same_error(lambda lib: model(lib).load_state_dict(
        {"w": lib.ones(3), "count": lib.zeros(1), "inner.v": lib.ones(2), "inner.q": lib.ones(1)}))  # fmt: skip
    _same_error(
        lambda lib: model(lib).load_state_dict(
            {"w": [1.0, 2.0], "count": lib.zeros(1), "inner.v": lib.ones(3)}
        )
    )
    _same_error(lambda lib: model(lib).load_state_dict([]))
    t = model(torch).load_state_dict({"w": torch.ones(2), "junk.x": torch.ones(1)}, strict=False)
    n = model(numtorch).load_state_dict(
        {"w": numtorch.ones(2), "junk.x": numtorch.ones(1)}, strict=False
    )
    assert repr(n) == repr(t)
    assert repr(model(numtorch).load_state_dict(model(numtorch).state_dict())) == repr(
        model(torch).load_state_dict(model(torch).state_dict())
    )


def test_full_backward_hooks_match():
    def run(lib):
        class Scale(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.w = lib.nn.Parameter(lib.tensor([2.0, -3.0]))

            def forward(self, x, y):
                return x * self.w, y * 2

        m = Scale()
        seen = []
        as_lists = lambda gs: [None if g is None else g.tolist() for g in gs]  # noqa: E731
        m.register_full_backward_pre_hook(lambda mod, go: seen.append(("pre", as_lists(go))))
        m.register_full_backward_hook(
            lambda mod, gi, go: seen.append(("post", as_lists(gi), as_lists(go)))
        )
        x = lib.tensor([1.0, 1.0], requires_grad=True)
        a, b = m(x, lib.ones(2))
        (a * 3 + b).sum().backward()
        return seen, x.grad.tolist(), m.w.grad.tolist()

    assert run(numtorch) == run(torch)


def test_forward_hook_order_matches():
    def run(lib):
        log = []
        m = lib.nn.Sequential(lib.nn.Module())
        m[0].forward = lambda x: x
        m.register_forward_pre_hook(lambda mod, a: log.append("pre"))
        m.register_forward_pre_hook(lambda mod, a: log.append("pre-first"), prepend=True)
        m.register_forward_hook(lambda mod, a, o: log.append("post"))
        m.register_forward_hook(
            lambda mod, a, k, o: log.append(("kw", sorted(k))), with_kwargs=True
        )
        m[0].register_forward_hook(lambda mod, a, o: log.append("child"))
        m(1)
        return log

    assert run(numtorch) == run(torch)


def test_init_helpers_match():
    for nl in ("linear", "conv3d", "sigmoid", "tanh", "relu", "selu"):
        assert numtorch.nn.init.calculate_gain(nl) == torch.nn.init.calculate_gain(nl)
    for a in (None, 0.2, 3):
        assert numtorch.nn.init.calculate_gain("leaky_relu", a) == torch.nn.init.calculate_gain(
            "leaky_relu", a
        )
    for shape in ((3, 5), (8, 4, 3, 3), (2, 6, 2, 1, 4)):
        assert numtorch.nn.init._calculate_fan_in_and_fan_out(numtorch.empty(*shape)) == (
            torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(*shape))
        )
    _same_error(lambda lib: lib.nn.init.calculate_gain("swish"))
    _same_error(lambda lib: lib.nn.init.xavier_uniform_(lib.empty(3)))
    _same_error(lambda lib: lib.nn.init.kaiming_normal_(lib.empty(3, 3), mode="fan"))
    _same_error(lambda lib: lib.nn.init.dirac_(lib.empty(3, 3)))
    d = numtorch.nn.init.dirac_(numtorch.empty(4, 2, 3, 3), groups=2)
    np.testing.assert_array_equal(
        d.numpy(), torch.nn.init.dirac_(torch.empty(4, 2, 3, 3), groups=2).numpy()
    )
    np.testing.assert_array_equal(
        numtorch.nn.init.eye_(numtorch.empty(3, 5)).numpy(),
        torch.nn.init.eye_(torch.empty(3, 5)).numpy(),
    )


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.5, math.inf])
def test_clip_grad_norm_matches(norm_type):
    rng = np.random.default_rng(0)
    grads = [rng.standard_normal(s).astype(np.float32) for s in ((4, 3), (5,), (2, 2))]

    def run(lib):
        ps = [lib.nn.Parameter(lib.zeros(*g.shape)) for g in grads]
        for p, g in zip(ps, grads, strict=True):
            p.grad = lib.from_numpy(g.copy())
        total = lib.nn.utils.clip_grad_norm_(ps, max_norm=1.0, norm_type=norm_type)
        return float(total), [p.grad.numpy() for p in ps]

    (tn, tg), (nn_, ng) = run(torch), run(numtorch)
    assert nn_ == pytest.approx(tn, rel=1e-6)
    for a, b in zip(ng, tg, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def test_default_collate_matches():
    def batch(lib):
        return [
            {
                "x": lib.ones(2) * i,
                "y": i,
                "z": float(i) / 2,
                "s": "n",
                "a": np.full(2, i, np.int32),
                "t": (i, [i, i]),
            }
            for i in range(3)
        ]

    def describe(obj):
        if hasattr(obj, "dtype") and hasattr(obj, "tolist"):
            return (str(obj.dtype), obj.tolist())
        if isinstance(obj, dict):
            return {k: describe(v) for k, v in obj.items()}
        if isinstance(obj, (list, tuple)):
            return (type(obj).__name__, [describe(v) for v in obj])
        return obj

    t = torch.utils.data.default_collate(batch(torch))
    n = numtorch.utils.data.default_collate(batch(numtorch))
    assert describe(n) == describe(t)


def test_loader_batches_and_split_lengths_match():
    def run(lib):
        ds = lib.utils.data.TensorDataset(lib.arange(11), lib.arange(11) * 2)
        out = [
            [x.tolist() for x in b]
            for b in lib.utils.data.DataLoader(ds, batch_size=4, drop_last=False)
        ]
        lens = [len(s) for s in lib.utils.data.random_split(range(11), [0.5, 0.3, 0.2])]
        return out, lens, len(lib.utils.data.DataLoader(ds, batch_size=3, drop_last=True))

    assert run(numtorch) == run(torch)


def test_torch_loads_numtorch_checkpoints_and_back():
    base = numtorch.from_numpy(np.arange(12, dtype=np.float32).reshape(3, 4))
    obj = {
        "w": base, "view": base[1:, 2:], "p": numtorch.nn.Parameter(numtorch.ones(2)),
        "i": numtorch.tensor([1, 2], dtype=numtorch.int16), "b": numtorch.tensor([True, False]),
        "size": numtorch.Size([2]), "dtype": numtorch.float16, "dev": numtorch.device("cpu"),
        "sd": OrderedDict(a=numtorch.zeros(1)), "meta": [1, 2.5, "x", (None, True)],
    }  # fmt: skip
    buf = io.BytesIO()
    numtorch.save(obj, buf)
    buf.seek(0)
    t = torch.load(buf)  # weights_only=True in PyTorch too
    assert type(t["p"]) is torch.nn.Parameter and t["p"].requires_grad
    np.testing.assert_array_equal(t["view"].numpy(), base[1:, 2:].numpy())
    t["w"][1, 2] = -1.0
    assert float(t["view"][0, 0]) == -1.0  # torch sees the shared storage too
    assert t["i"].dtype == torch.int16 and t["b"].dtype == torch.bool
    assert (
        t["size"] == torch.Size([2])
        and t["dtype"] is torch.float16
        and t["dev"] == torch.device("cpu")
    )
    assert t["meta"] == [1, 2.5, "x", (None, True)]
    back = io.BytesIO()
    torch.save(t, back)
    back.seek(0)
    n = numtorch.load(back)
    assert float(n["view"][0, 0]) == -1.0 and type(n["p"]) is numtorch.nn.Parameter
    assert n["dtype"] is numtorch.float16 and type(n["size"]) is numtorch.Size


class Evil:
    pass


def test_weights_only_error_text_matches():
    def run(lib):
        buf = io.BytesIO()
        lib.save({"e": Evil()}, buf)
        buf.seek(0)
        lib.load(buf)

    t, n = _err(run, torch), _err(run, numtorch)
    assert n == t and t[0] == "UnpicklingError"
