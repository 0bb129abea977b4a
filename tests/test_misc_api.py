"""Top-level odds and ends: futures, multiprocessing, profiler, signal windows, from_file, shared memory."""

from __future__ import annotations

import hashlib
import os
import warnings

import numpy as np
import pytest

import numtorch
import numtorch.multiprocessing as mp
from numtorch.signal import windows as W


# ---- signal.windows -------------------------------------------------------------------------------------
def test_windows_match_numpy_formulas():
    f64 = numtorch.float64
    for name, ref in (("hann", np.hanning), ("hamming", np.hamming), ("blackman", np.blackman),
                      ("bartlett", np.bartlett)):  # fmt: skip
        np.testing.assert_allclose(getattr(W, name)(9, dtype=f64).numpy(), ref(9), atol=1e-14)
        # periodic = the first M points of the symmetric window of length M + 1
        np.testing.assert_allclose(getattr(W, name)(8, sym=False, dtype=f64).numpy(), ref(9)[:-1], atol=1e-14)
    np.testing.assert_allclose(W.kaiser(7, beta=5.0, dtype=f64).numpy(), np.kaiser(7, 5.0), rtol=1e-12)
    n = np.arange(7)
    np.testing.assert_allclose(W.gaussian(7, std=2.0, dtype=f64).numpy(), np.exp(-((n - 3) ** 2) / 8), rtol=1e-14)
    np.testing.assert_allclose(W.exponential(7, tau=2.0, dtype=f64).numpy(), np.exp(-abs(n - 3) / 2), rtol=1e-14)
    np.testing.assert_allclose(W.cosine(7, dtype=f64).numpy(), np.sin(np.pi * (n + 0.5) / 7), rtol=1e-14)
    a = [0.3635819, 0.4891775, 0.1365995, 0.0106411]
    ref = sum((-1) ** i * c * np.cos(2 * np.pi * i * n / 6) for i, c in enumerate(a))
    np.testing.assert_allclose(W.nuttall(7, dtype=f64).numpy(), ref, atol=1e-14)
    np.testing.assert_allclose(W.general_hamming(7, alpha=0.6, dtype=f64).numpy(),
                               0.6 - 0.4 * np.cos(2 * np.pi * n / 6), atol=1e-14)  # fmt: skip
    assert W.hann(0).dtype is numtorch.float32 and W.hann(0).shape == (0,) and W.hann(1).tolist() == [1.0]
    assert numtorch.windows is W


def test_windows_errors():
    with pytest.raises(ValueError, match="general_cosine requires non-negative window length, got M=-1"):
        W.hann(-1)  # PyTorch names the function that checks
    with pytest.raises(ValueError, match="blackman requires non-negative window length, got M=-2"):
        W.blackman(-2)
    with pytest.raises(ValueError, match="expects float32 or float64 dtypes, got: torch.int64"):
        W.bartlett(3, dtype=numtorch.int64)
    with pytest.raises(ValueError, match="Standard deviation must be positive, got: 0"):
        W.gaussian(3, std=0)
    with pytest.raises(ValueError, match="Center must be None for symmetric windows"):
        W.exponential(3, center=1.0)
    with pytest.raises(ValueError, match="Coefficients cannot be empty"):
        W.general_cosine(3, a=[])


# ---- futures / fork -------------------------------------------------------------------------------------
def test_futures_collect_and_wait_all():
    assert numtorch.Future is numtorch.futures.Future is numtorch.jit.Future
    a, b = numtorch.futures.Future(), numtorch.futures.Future()
    both = numtorch.futures.collect_all([a, b])
    a.set_result(1)
    assert not both.done()
    b.set_exception(ValueError("boom"))
    assert both.done() and both.wait() == [a, b]
    with pytest.raises(ValueError, match="boom"):
        numtorch.futures.wait_all([a, b])
    assert numtorch.wait(numtorch.fork(lambda x: x * 2, 21)) == 42
    assert numtorch.futures.collect_all([]).wait() == []


def test_future_wait_blocks_until_another_thread_completes():
    import threading

    f = numtorch.futures.Future()
    threading.Timer(0.05, f.set_result, args=(7,)).start()
    assert f.wait() == 7


# ---- multiprocessing ------------------------------------------------------------------------------------
def _child_ok(i, path):
    with open(f"{path}.{i}", "w") as fh:
        fh.write(str(i))


def _child_raises(i):
    if i == 1:
        raise ValueError("child one failed")


def _child_writes(i, t):
    t[i] = 10.0 + i


def test_start_processes_runs_and_reraises(tmp_path):
    mp.start_processes(_child_ok, args=(str(tmp_path / "o"),), nprocs=2, start_method="fork")
    assert sorted(os.listdir(tmp_path)) == ["o.0", "o.1"]
    with pytest.raises(mp.ProcessRaisedException, match="ValueError: child one failed") as ei:
        mp.start_processes(_child_raises, nprocs=2, start_method="fork")
    assert ei.value.error_index == 1 and "-- Process 1 terminated with the following error:" in str(ei.value)
    ctx = mp.start_processes(_child_ok, args=(str(tmp_path / "p"),), nprocs=1, join=False, start_method="fork")
    while not ctx.join():
        pass
    assert mp.Queue is not None and mp.cpu_count() >= 1  # Python's multiprocessing is re-exported


def test_sharing_strategy():
    assert mp.get_all_sharing_strategies() == {"file_descriptor", "file_system"}
    old = mp.get_sharing_strategy()
    mp.set_sharing_strategy("file_system")
    assert mp.get_sharing_strategy() == "file_system"
    mp.set_sharing_strategy(old)
    with pytest.raises(AssertionError, match="Invalid sharing strategy: nope"):
        mp.set_sharing_strategy("nope")


def test_share_memory_is_seen_by_forked_children():
    t = numtorch.zeros(4)[1:]  # a view with an offset keeps it
    assert not t.is_shared() and not t.is_maia
    assert t.share_memory_() is t and t.is_shared() and t.untyped_storage().is_shared()
    assert t.storage_offset() == 1 and t.tolist() == [0.0, 0.0, 0.0]
    mp.start_processes(_child_writes, args=(t,), nprocs=2, start_method="fork")
    assert t.tolist() == [10.0, 11.0, 0.0]
    assert t.share_memory_() is t  # already shared: no-op
    assert not t.clone().is_shared()


# ---- from_file ------------------------------------------------------------------------------------------
def test_from_file(tmp_path):
    path = str(tmp_path / "x.bin")
    np.arange(4, dtype=np.float32).tofile(path)
    t = numtorch.from_file(path, size=4)
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0]
    t[0] = 9  # private (copy-on-write) mapping
    assert np.fromfile(path, np.float32)[0] == 0
    s = numtorch.from_file(path, shared=True, size=2)
    s[1] = 5
    assert np.fromfile(path, np.float32).tolist() == [0.0, 5.0, 2.0, 3.0]
    with pytest.raises(RuntimeError, match=r"size <16> is smaller than the required mapping size <32>"):
        numtorch.from_file(path, size=8)
    with pytest.raises(RuntimeError, match=r"unable to open file <.*nope> in read-only mode: No such file"):
        numtorch.from_file(str(tmp_path / "nope"), size=1)
    n = numtorch.from_file(str(tmp_path / "new"), shared=True, size=3, dtype=numtorch.int64)
    assert n.tolist() == [0, 0, 0] and os.path.getsize(tmp_path / "new") == 24


# ---- profiler -------------------------------------------------------------------------------------------
def test_profiler_schedule_and_trace_handler(tmp_path):
    P = numtorch.profiler
    s = P.schedule(wait=1, warmup=1, active=2, repeat=1)
    assert [s(i) for i in range(5)] == [P.ProfilerAction.NONE, P.ProfilerAction.WARMUP, P.ProfilerAction.RECORD,
                                        P.ProfilerAction.RECORD_AND_SAVE, P.ProfilerAction.NONE]  # fmt: skip
    seen = []
    with P.profile(activities=[P.ProfilerActivity.CPU], schedule=s,
                   on_trace_ready=lambda p: seen.append([e.name for e in p.events()])) as prof:  # fmt: skip
        for i in range(5):
            x = numtorch.ones(2)
            _ = x.exp() if i % 2 else x.sin()
            prof.step()
    assert seen == [["aten::ones", "aten::sin", "aten::ones", "aten::exp"]]
    with P.profile(on_trace_ready=P.tensorboard_trace_handler(str(tmp_path), worker_name="w")):
        with P.record_function("blk"):
            numtorch.ones(1).neg()
    (name,) = os.listdir(tmp_path)
    assert name.startswith("w.") and name.endswith(".pt.trace.json")
    with pytest.raises(AssertionError, match="active=0 \\(need > 0\\)"):
        P.schedule(wait=0, warmup=0, active=0)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        P.schedule(wait=0, warmup=0, active=1)
    assert "won't be using warmup" in str(w[0].message)


# ---- re-exports and errors ------------------------------------------------------------------------------
def test_top_level_reexports():
    assert numtorch.special.Tensor is numtorch.Tensor and numtorch.fft.Tensor is numtorch.Tensor
    assert numtorch.GradScaler is numtorch.amp.GradScaler and numtorch.FileCheck is numtorch.testing.FileCheck
    assert numtorch.DisableTorchFunction is numtorch._C.DisableTorchFunction
    assert numtorch.DisableTorchFunctionSubclass is numtorch._C.DisableTorchFunctionSubclass
    assert issubclass(numtorch.OutOfMemoryError, RuntimeError) and issubclass(numtorch.AcceleratorError, RuntimeError)
    assert numtorch.cuda.OutOfMemoryError is numtorch.OutOfMemoryError
    cap = numtorch.to_dlpack(numtorch.ones(2))
    assert numtorch.from_dlpack(cap).tolist() == [1.0, 1.0] if hasattr(cap, "__dlpack__") else cap is not None
    assert numtorch.signal.windows.hann(3, dtype=numtorch.float64)[1].item() == 1.0


# ---- svd_lowrank / pca_lowrank --------------------------------------------------------------------------
def test_svd_and_pca_lowrank_recover_a_low_rank_matrix():
    numtorch.manual_seed(0)
    f64 = numtorch.float64
    A = numtorch.randn(12, 3, dtype=f64) @ numtorch.randn(3, 8, dtype=f64)
    for X in (A, A.mT):  # tall and wide
        U, S, V = numtorch.svd_lowrank(X, q=3)
        np.testing.assert_allclose((U @ numtorch.diag(S) @ V.mT).numpy(), X.numpy(), atol=1e-10)
        np.testing.assert_allclose(S.numpy(), np.linalg.svd(X.numpy(), compute_uv=False)[:3], rtol=1e-10)
    M = numtorch.ones(12, 8, dtype=f64)
    _, S, _ = numtorch.svd_lowrank(A, q=4, M=M)  # rank of A - M is 4
    np.testing.assert_allclose(S.numpy(), np.linalg.svd((A - M).numpy(), compute_uv=False)[:4], rtol=1e-10)
    _, S, _ = numtorch.pca_lowrank(A, q=3)
    np.testing.assert_allclose(S.numpy(), np.linalg.svd((A - A.mean(0)).numpy(), compute_uv=False)[:3], rtol=1e-10)
    with pytest.raises(ValueError, match=r"q\(=9\) must be non-negative integer and not greater than min\(m, n\)=8"):
        numtorch.pca_lowrank(A, q=9)
    with pytest.raises(ValueError, match=r"niter\(=-1\) must be non-negative integer"):
        numtorch.pca_lowrank(A, niter=-1)


# ---- hub ------------------------------------------------------------------------------------------------
def test_hub_local_cached_repo_and_state_dict_from_url(tmp_path, monkeypatch):
    hub = numtorch.hub
    monkeypatch.setattr(hub, "_hub_dir", None)
    hub.set_dir(str(tmp_path / "hub"))
    assert hub.get_dir() == str(tmp_path / "hub")
    repo = tmp_path / "hub" / "me_models_main"  # what a github download of me/models (ref main) unpacks to
    repo.mkdir(parents=True)
    (repo / "helper.py").write_text("SCALE = 3\n")
    (repo / "hubconf.py").write_text(
        "dependencies = ['numpy']\nfrom helper import SCALE\n"
        "def lin(n=2):\n    '''A linear layer.'''\n    import numtorch\n    return numtorch.nn.Linear(n, SCALE)\n"
    )
    assert hub.list("me/models") == ["lin"] and hub.help("me/models", "lin") == "A linear layer."
    assert hub.load("me/models", "lin", 4).weight.shape == (3, 4)
    assert hub.load(str(repo), "lin", source="local").in_features == 2
    with pytest.raises(RuntimeError, match="Cannot find callable nope in hubconf"):
        hub.load(str(repo), "nope", source="local")
    with pytest.raises(ValueError, match='Unknown source: "svn"'):
        hub.load(str(repo), "lin", source="svn")
    (repo / "hubconf.py").write_text("dependencies = ['no_such_module_xyz']\n")
    with pytest.raises(RuntimeError, match="Missing dependencies: no_such_module_xyz"):
        hub.load(str(repo), "lin", source="local")
    src = tmp_path / "w.pt"
    numtorch.save({"w": numtorch.arange(3)}, str(src))
    sd = hub.load_state_dict_from_url(src.as_uri(), model_dir=str(tmp_path / "ck"), weights_only=True)
    assert sd["w"].tolist() == [0, 1, 2] and os.listdir(tmp_path / "ck") == ["w.pt"]
    # a prefix the file's digest cannot start with: a fixed one such as "00" matches one file in 256
    wrong = "1" if hashlib.sha256(src.read_bytes()).hexdigest().startswith("0") else "0"
    with pytest.raises(RuntimeError, match=f'invalid hash value \\(expected "{wrong}"'):
        hub.download_url_to_file(src.as_uri(), str(tmp_path / "x.pt"), hash_prefix=wrong)
    assert not (tmp_path / "x.pt").exists()
