"""numtorch.save / numtorch.load: round trips, shared storage, weights_only, map_location."""

from __future__ import annotations

import io
import pickle
import zipfile
from collections import OrderedDict

import numpy as np
import pytest

import numtorch
from numtorch import nn


def _round_trip(obj, **load_kw):
    buf = io.BytesIO()
    numtorch.save(obj, buf)
    buf.seek(0)
    return numtorch.load(buf, **load_kw)


class Unsafe:
    pass


def test_tensors_of_every_dtype_round_trip():
    for dt in (numtorch.float32, numtorch.float64, numtorch.float16, numtorch.int64, numtorch.int32,
               numtorch.int16, numtorch.int8, numtorch.uint8, numtorch.bool, numtorch.complex64):  # fmt: skip
        t = numtorch.from_numpy(np.arange(6).reshape(2, 3).astype(dt.np))
        r = _round_trip(t)
        assert r.dtype is dt and r.shape == (2, 3)
        np.testing.assert_array_equal(r.numpy(), t.numpy())
    scalar = _round_trip(numtorch.tensor(2.5))
    assert scalar.dim() == 0 and float(scalar) == 2.5
    assert _round_trip(numtorch.zeros(0, 3)).shape == (0, 3)


def test_requires_grad_and_parameters_survive():
    p = nn.Parameter(numtorch.ones(2))
    x = numtorch.ones(2, requires_grad=True)
    r = _round_trip(
        {"p": p, "x": x, "y": x * 2, "frozen": nn.Parameter(numtorch.ones(1), requires_grad=False)}
    )
    assert type(r["p"]) is nn.Parameter and r["p"].requires_grad
    assert type(r["x"]) is numtorch.Tensor and r["x"].requires_grad and r["x"].is_leaf
    assert r["y"].requires_grad and r["y"].is_leaf
    assert not r["frozen"].requires_grad


def test_views_keep_sharing_storage():
    base = numtorch.from_numpy(np.arange(12.0, dtype=np.float32).reshape(3, 4))
    view = base[1]
    r = _round_trip({"base": base, "view": view, "t": base.t()})
    np.testing.assert_array_equal(r["view"].numpy(), [4, 5, 6, 7])
    np.testing.assert_array_equal(r["t"].numpy(), base.t().numpy())
    r["base"].numpy()[1, 0] = 100.0
    assert float(r["view"][0]) == 100.0 and float(r["t"][0, 1]) == 100.0
    assert not np.shares_memory(r["base"].numpy(), base.numpy())


def test_same_tensor_twice_loads_as_one_object():
    t = numtorch.ones(2)
    r = _round_trip([t, t])
    assert r[0] is r[1]


def test_structures_and_metadata():
    sd = OrderedDict(a=numtorch.ones(1))
    sd._metadata = OrderedDict({"": {"version": 1}})
    obj = {
        "sd": sd, "size": numtorch.Size([2, 3]), "dtype": numtorch.float16, "device": numtorch.device("cpu"),
        "nums": [1, 2.5, True, None, 3 + 4j], "tuple": (1, "x"), "set": {1, 2}, "bytes": b"\x00\x01",
    }  # fmt: skip
    r = _round_trip(obj)
    assert isinstance(r["sd"], OrderedDict) and r["sd"]._metadata == {"": {"version": 1}}
    assert type(r["size"]) is numtorch.Size and r["size"] == (2, 3)
    assert r["dtype"] is numtorch.float16 and r["device"] == numtorch.device("cpu")
    assert r["nums"] == [1, 2.5, True, None, 3 + 4j] and r["tuple"] == (1, "x")
    assert r["set"] == {1, 2} and r["bytes"] == b"\x00\x01"


def test_file_paths(tmp_path):
    path = tmp_path / "t.pt"
    numtorch.save({"w": numtorch.arange(3)}, path)
    assert numtorch.load(str(path))["w"].tolist() == [0, 1, 2]
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
    assert "archive/data.pkl" in names and "archive/data/0" in names and "archive/version" in names


def test_weights_only_refuses_arbitrary_objects():
    buf = io.BytesIO()
    numtorch.save({"obj": Unsafe()}, buf)
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError) as e:
        numtorch.load(buf)
    msg = str(e.value)
    assert msg.startswith("Weights only load failed. This file can still be loaded")
    assert (
        f"WeightsUnpickler error: Unsupported global: GLOBAL {__name__}.Unsafe was not an allowed global "
        "by default." in msg
    )
    buf.seek(0)
    assert isinstance(numtorch.load(buf, weights_only=False)["obj"], Unsafe)


def test_weights_only_refuses_reduce_gadgets():
    evil = b"\x80\x02cos\nsystem\nX\x04\x00\x00\x00trueq\x00\x85q\x01Rq\x02."
    with pytest.raises(pickle.UnpicklingError, match="Unsupported global: GLOBAL os.system"):
        numtorch.load(io.BytesIO(evil))


def test_safe_globals_allowlist():
    buf = io.BytesIO()
    numtorch.save(Unsafe(), buf)
    with numtorch.serialization.safe_globals([Unsafe]):
        buf.seek(0)
        assert isinstance(numtorch.load(buf), Unsafe)
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError):
        numtorch.load(buf)


def test_modules_need_weights_only_false():
    buf = io.BytesIO()
    numtorch.save(nn.Sequential(nn.Module()), buf)
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="numtorch.nn.modules.container.Sequential"):
        numtorch.load(buf)
    buf.seek(0)
    assert type(numtorch.load(buf, weights_only=False)) is nn.Sequential


def test_plain_pickle_of_tensors():
    t = numtorch.from_numpy(np.arange(8.0).reshape(2, 4))[:, 1:3]
    r = pickle.loads(pickle.dumps(t))
    np.testing.assert_array_equal(r.numpy(), t.numpy())
    assert numtorch.load(io.BytesIO(pickle.dumps(t))).tolist() == t.tolist()


def test_map_location_cpu_forms():
    for ml in ("cpu", numtorch.device("cpu"), {"cpu": "cpu"}, lambda storage, loc: storage):
        assert _round_trip(numtorch.ones(2), map_location=ml).tolist() == [1.0, 1.0]


def test_optimizer_and_module_state_round_trip(tmp_path):
    lin = nn.Sequential(nn.Module())
    lin[0].w = nn.Parameter(numtorch.ones(3))
    opt = numtorch.optim.Adam(lin.parameters(), lr=0.1)
    lin[0].w.grad = numtorch.ones(3)
    opt.step()
    numtorch.save({"model": lin.state_dict(), "opt": opt.state_dict()}, tmp_path / "ckpt.pt")
    ck = numtorch.load(tmp_path / "ckpt.pt")
    assert list(ck["model"]) == ["0.w"]
    assert list(ck["opt"]["state"][0]) == ["step", "exp_avg", "exp_avg_sq"]
    assert ck["opt"]["state"][0]["step"].dtype is numtorch.float32
    assert ck["opt"]["param_groups"][0]["betas"] == (0.9, 0.999)


def test_copy_copy_shares_storage_like_torch():
    import copy

    t = numtorch.ones(3)
    c = copy.copy(t)
    c.numpy()[0] = 5.0
    assert t.tolist() == [5.0, 1.0, 1.0] and type(c) is numtorch.Tensor
    p = nn.Parameter(numtorch.ones(2))
    q = copy.copy(p)
    assert type(q) is nn.Parameter and np.shares_memory(q.detach().numpy(), p.detach().numpy())
