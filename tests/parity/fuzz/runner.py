"""Run one generated call in torch and in numtorch, and classify the difference.

A call (``gen.Call``) names its target and holds argument *specs*: ``T`` (a tensor: NumPy
values, dtype, memory layout, requires_grad), ``DT`` (a dtype), and plain Python values.
Each library builds its own tensors from the same specs, so both see identical data and
layouts. Every tensor built is snapshotted before the call and compared after it.
"""

from __future__ import annotations

import operator
import re
import warnings
from dataclasses import dataclass, field

import numpy as np

# Note [Fuzz classes]
# One class per call, the first that applies in this order (the table):
CLASSES = (
    "modified",  # numtorch raised, yet an input or out= tensor changed
    "numpy_text",  # a NumPy/Numba exception (or one chained as cause/context) reaches the user
    "internal",  # a Python slip inside numtorch (AttributeError on an int, KeyError ...) reaches the user
    "wrong",  # both returned, values/dtype/shape (of results or of inputs written) differ
    "accepted",  # torch raised, numtorch returned
    "nt_raises",  # torch returned, numtorch raised
    "exc_type",  # both raised, different exception types
)
BENIGN = ("ok", "both_raise", "missing")  # missing: numtorch lacks the function (breadth issue)

_NP_TEXT = re.compile(
    r"numpy|numba|ndarray|array of size|cannot reshape array|out of bounds for array|"
    r"TypingError|No implementation of function|setting an array element|ufunc|"
    r"operands could not be broadcast|Unable to allocate|object arrays|np\.\w|"
    r"index \d+ is out of bounds for axis|LinAlgError|SVD did not converge|array dimension|array is too big|"
    r"maximum possible size",
    re.I,
)
# Python exceptions that only an internal slip produces (PyTorch never raises them from an op)
_INTERNAL = ("ZeroDivisionError", "KeyError", "AttributeError", "UnboundLocalError", "AssertionError",
             "OverflowError", "FloatingPointError", "RecursionError")  # fmt: skip


@dataclass
class T:
    """A tensor spec: ``arr`` holds the values the tensor shows (already in ``dtype``)."""

    arr: np.ndarray
    dtype: str
    layout: str = "contig"  # contig | transpose | slice | expand | overlap
    rg: bool = False
    storage: np.ndarray | None = None  # the overlap layout's 1-D storage

    def __repr__(self):
        extra = "" if self.layout == "contig" else f", {self.layout}"
        rg = ", rg" if self.rg else ""
        vals = np.array2string(self.arr.reshape(-1)[:6], precision=4, separator=",")
        return f"T({self.dtype}{list(self.arr.shape)}{extra}{rg} {vals})"


@dataclass
class DT:
    name: str

    def __repr__(self):
        return self.name


@dataclass
class Call:
    family: str
    target: str  # "torch.add", "F.relu", "linalg.det", "m.add_" (method of args[0]), "fn:name"
    args: list = field(default_factory=list)
    kwargs: dict = field(default_factory=dict)
    cmp: str = "full"  # full | meta (shape and dtype only) | sorted (values up to order) | none
    rtol: float | None = None
    atol: float | None = None  # an absolute floor, for results known only to within eps * |A|

    def label(self) -> str:
        """A grouping key: the target, its argument kinds and dtypes (values left out)."""
        parts = [_kind(a) for a in self.args] + [f"{k}={_kind(v)}" for k, v in self.kwargs.items()]
        return f"{self.target}({', '.join(parts)})"

    def __repr__(self):
        parts = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs.items()]
        return f"{self.target}({', '.join(parts)})"


def _kind(a) -> str:
    if isinstance(a, T):
        lay = "" if a.layout == "contig" else "/" + a.layout
        return f"{a.dtype}{'0d' if a.arr.ndim == 0 else 'e' if a.arr.size == 0 else ''}{lay}"
    if isinstance(a, (list, tuple)):
        return "[" + ",".join(_kind(x) for x in a) + "]"
    if isinstance(a, DT):
        return a.name
    return type(a).__name__


# ---- building tensors in one library -------------------------------------------------------------
def _own(lib, arr):
    # a tensor owning its storage: torch cannot resize a from_numpy tensor (an out= of the wrong
    # shape would fail in torch for that reason alone)
    return lib.from_numpy(np.array(arr, copy=True)).clone()


def make_tensor(lib, s: T):
    a = s.arr
    if s.layout == "transpose" and a.ndim >= 2:
        t = _own(lib, np.ascontiguousarray(a.transpose())).permute(*reversed(range(a.ndim)))
    elif s.layout == "slice" and a.ndim >= 1:
        big = np.zeros(a.shape[:-1] + (2 * a.shape[-1],), a.dtype)
        big[..., ::2] = a
        t = _own(lib, big)[..., ::2]
    elif s.layout == "expand" and a.ndim >= 1:
        t = _own(lib, a[:1]).expand(*a.shape)
    elif s.layout == "overlap" and s.storage is not None:
        t = _own(lib, s.storage).as_strided(a.shape, (1,) * a.ndim)
    else:
        t = _own(lib, a)
    if s.rg:
        t = t.requires_grad_() if s.layout == "contig" else t.detach().requires_grad_()
    return t


def materialize(lib, v, made: list):
    if isinstance(v, T):
        t = make_tensor(lib, v)
        made.append(t)
        return t
    if isinstance(v, DT):
        return getattr(lib, v.name)
    if isinstance(v, list):
        return [materialize(lib, x, made) for x in v]
    if isinstance(v, tuple):
        return tuple(materialize(lib, x, made) for x in v)
    if isinstance(v, dict):
        return {k: materialize(lib, x, made) for k, x in v.items()}
    return v


def resolve(lib, target: str, args):
    ns, _, name = target.partition(".")
    if target.startswith("fn:"):
        from .funcs import FUNCS

        f = FUNCS[target[3:]]
        return lambda *a, **k: f(lib, *a, **k)
    if ns == "m":
        return getattr(args[0], name)
    mod = {"torch": lib, "F": lib.nn.functional, "linalg": lib.linalg, "special": lib.special}[ns]
    return getattr(mod, name)


# ---- values and snapshots ------------------------------------------------------------------------
def _tensor_np(lib, t) -> np.ndarray:
    t = t.detach()
    if hasattr(t, "resolve_neg"):  # torch's numpy() refuses a conjugate- or negative-bit view
        t = t.resolve_conj().resolve_neg()
    if str(t.dtype).endswith("bfloat16"):
        t = t.float()
    # numpy() of the clone: torch's numpy() makes a tensor's own storage non-resizable for good
    return t.clone().numpy() if t.numel() else np.zeros(tuple(t.shape), _npdt(t))


def _npdt(t):
    return np.dtype(str(t.dtype).split(".")[-1].replace("bool", "bool_").replace("bool_", "bool"))


def value(lib, r):
    """A comparable, library-free form of a result."""
    if isinstance(r, lib.Tensor):
        return ("T", str(r.dtype).split(".")[-1], tuple(r.shape), _tensor_np(lib, r))
    if isinstance(r, (list, tuple)):
        return ("L", type(r).__name__ in ("list",), [value(lib, x) for x in r])
    if isinstance(r, (bool, int, float, complex)):
        return ("S", type(r).__name__, r)
    if r is None:
        return ("N",)
    if isinstance(r, lib.dtype):
        return ("D", str(r).split(".")[-1])
    return ("O", type(r).__name__, str(r)[:60])


@dataclass
class Outcome:
    ok: bool
    val: object = None
    exc: BaseException | None = None
    before: list = field(default_factory=list)
    after: list = field(default_factory=list)
    missing: bool = False


def run(lib, call: Call) -> Outcome:
    made: list = []
    try:
        args = materialize(lib, call.args, made)
        kwargs = materialize(lib, call.kwargs, made)
        fn = resolve(lib, call.target, args)
    except AttributeError as e:
        return Outcome(False, exc=e, missing=True)
    except Exception as e:  # noqa: BLE001 -- a property that refuses (torch's x.imag of a real x)
        snaps = [_snap(lib, t) for t in made]
        return Outcome(False, exc=e, before=snaps, after=snaps)
    before = [_snap(lib, t) for t in made]
    if call.target.startswith("m."):
        args = args[1:]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with np.errstate(all="ignore"):
                r = fn(*args, **kwargs)
        out = Outcome(True, val=value(lib, r))
    except Exception as e:  # noqa: BLE001 -- every exception is data here
        out = Outcome(False, exc=e)
    out.before = before
    out.after = [_snap(lib, t) for t in made]
    return out


def _snap(lib, t):
    try:
        return (tuple(t.shape), _tensor_np(lib, t))
    except Exception:  # noqa: BLE001 -- a tensor the call broke beyond reading
        return ("unreadable",)


# ---- classification -------------------------------------------------------------------------------
def classify(call: Call, ref: Outcome, got: Outcome) -> tuple[str, str]:
    """(class, detail) for one call; ``ref`` is torch's outcome, ``got`` numtorch's."""
    if ref.missing:
        return "both_raise", "torch lacks it"
    if got.missing:
        return "missing", str(got.exc)
    if not got.ok:
        changed = [i for i, (b, a) in enumerate(zip(got.before, got.after)) if not _same(b, a)]
        ref_changed = {i for i, (b, a) in enumerate(zip(ref.before, ref.after)) if not _same(b, a)}
        bad = [i for i in changed if ref.ok or i not in ref_changed]
        if bad:
            return "modified", f"input {bad} changed; {_exc(got.exc)}"
        # torch's own text may name NumPy ("Unlike NumPy, torch.sign ..."): the same text is no leak
        same_text = not ref.ok and str(ref.exc) == str(got.exc)
        if is_numpy_error(got.exc) and not same_text:
            return "numpy_text", _exc(got.exc)
        if type(got.exc).__name__ in _INTERNAL and (ref.ok or type(got.exc).__name__ != _etype(ref.exc)):
            return "internal", _exc(got.exc)
    if got.ok and ref.ok:
        d = diff(ref.val, got.val, call)
        if d is None and call.cmp == "full" and not _self_overlapping_write(call):
            for i, (a, b) in enumerate(zip(ref.after, got.after)):
                d = _snap_diff(a, b, call)
                if d:
                    return "wrong", f"input {i} after the call: {d}"
            return "ok", ""
        if d is None or _self_overlapping_write(call):
            return "ok", ""
        return "wrong", d
    if got.ok:
        return "accepted", f"torch: {_exc(ref.exc)}"
    if ref.ok:
        return "nt_raises", _exc(got.exc)
    ta, tb = _etype(ref.exc), _etype(got.exc)
    if ta != tb:
        return "exc_type", f"torch {ta}: {str(ref.exc)[:80]} | numtorch {_exc(got.exc)}"
    return "both_raise", ""


def _self_overlapping_write(call: Call) -> bool:
    # in-place or out= into memory whose elements overlap without a zero stride (as_strided):
    # PyTorch cannot tell ("too hard"), writes in its own loop order, and the result is undefined
    targets = [call.kwargs.get("out")] + ([call.args[0]] if call.target.endswith("_") and call.args else [])
    flat = []
    for t in targets:
        flat += list(t) if isinstance(t, tuple) else [t]
    return any(isinstance(t, T) and t.layout == "overlap" for t in flat)


def is_numpy_error(e: BaseException) -> bool:
    seen = 0
    while e is not None and seen < 4:
        mod = type(e).__module__ or ""
        if mod.startswith(("numpy", "numba")):
            return True
        if _NP_TEXT.search(str(e)) and not str(e).startswith("Expected"):
            return True
        nxt = e.__cause__
        if nxt is None and not e.__suppress_context__:
            nxt = e.__context__
        e, seen = nxt, seen + 1
    return False


def _exc(e) -> str:
    return f"{type(e).__module__}.{type(e).__name__}: {str(e)[:160]}"


def _etype(e) -> str:
    name = type(e).__name__.lstrip("_")
    if type(e).__module__ == "builtins":
        return name
    if name in ("LinAlgError",):
        return name
    for k in type(e).__mro__:
        if k.__module__ == "builtins":
            return k.__name__
    return name


def _same(a, b) -> bool:
    if a[0] == "unreadable" or b[0] == "unreadable":
        return a == b
    return a[0] == b[0] and a[1].dtype == b[1].dtype and np.array_equal(a[1], b[1], equal_nan=a[1].dtype.kind in "fc")


def _snap_diff(a, b, call) -> str | None:
    if a[0] == "unreadable" or b[0] == "unreadable":
        return None
    if a[0] != b[0]:
        return f"shape {a[0]} vs {b[0]}"
    return _values_diff(a[1], b[1], call)


def diff(a, b, call: Call) -> str | None:
    """None when numtorch's result ``b`` matches torch's ``a``, else what differs."""
    if a[0] != b[0]:
        return f"kind {a[0]} vs {b[0]}"
    if a[0] == "T":
        if a[1] != b[1]:
            return f"dtype {a[1]} vs {b[1]}"
        if a[2] != b[2]:
            return f"shape {list(a[2])} vs {list(b[2])}"
        if call.cmp == "meta":
            return None
        x, y = a[3], b[3]
        if call.cmp == "sorted":
            x, y = np.sort(x, axis=None), np.sort(y, axis=None)
        return _values_diff(x, y, call)
    if a[0] == "L":
        if len(a[2]) != len(b[2]):
            return f"length {len(a[2])} vs {len(b[2])}"
        for i, (x, y) in enumerate(zip(a[2], b[2])):
            if i and call.cmp == "values0":  # indices of tied values may legally differ
                d = diff(x, y, Call(call.family, call.target, cmp="meta"))
                if d:
                    return f"[{i}] {d}"
                continue
            d = diff(x, y, call)
            if d:
                return f"[{i}] {d}"
        return None
    if a[0] == "S":
        if a[1] != b[1]:
            return f"Python type {a[1]} vs {b[1]}"
        if call.cmp == "meta":
            return None
        return _values_diff(np.array(a[2]), np.array(b[2]), call)
    if a[0] == "O":
        return None  # an object whose form the fuzzer does not model (Size compares as tuple)
    return None if a == b else f"{a} vs {b}"


_TOL = {"float16": (2e-3, 1e-3), "float32": (2e-5, 1e-5), "complex64": (2e-5, 1e-5),
        "float64": (1e-9, 1e-12), "complex128": (1e-9, 1e-12)}  # fmt: skip


def _values_diff(x: np.ndarray, y: np.ndarray, call: Call) -> str | None:
    if x.shape != y.shape:
        return f"shape {list(x.shape)} vs {list(y.shape)}"
    if x.dtype.kind in "fc" or y.dtype.kind in "fc":
        # the least precise dtype the call computes in bounds the error (cos(bool, out=float64)
        # computes in float32 and widens)
        tols = [_TOL.get(str(x.dtype), (1e-5, 1e-8))] + [_TOL.get(d, _TOL["float32"]) for d in _dtypes(call)]
        rtol, atol = max(t[0] for t in tols), max(t[1] for t in tols)
        if call.rtol is not None:  # a floor: a float64-input call may return float32 (bce_with_logits' target)
            rtol, atol = max(rtol, call.rtol), max(atol, call.rtol)
        if call.atol is not None:
            atol = max(atol, call.atol)
        xf, yf = x.astype(np.complex128), y.astype(np.complex128)
        with np.errstate(all="ignore"):
            ok = np.isclose(xf, yf, rtol=rtol, atol=atol, equal_nan=True)
            # infinities compare by sign and part; NaN matches NaN in either part
            ok |= (xf == yf)
        if ok.all():
            return None
        i = int(np.argmin(ok.reshape(-1)))
        return f"values differ at {i}: torch {x.reshape(-1)[i]} numtorch {y.reshape(-1)[i]}"
    if np.array_equal(x, y):
        return None
    i = int(np.argmin((x == y).reshape(-1)))
    return f"values differ at {i}: torch {x.reshape(-1)[i]} numtorch {y.reshape(-1)[i]}"


def _dtypes(v) -> set:
    if isinstance(v, Call):
        return _dtypes(v.args) | _dtypes(v.kwargs)
    if isinstance(v, T):
        return {v.dtype}
    if isinstance(v, (list, tuple)):
        return set().union(*(_dtypes(x) for x in v)) if v else set()
    if isinstance(v, dict):
        return _dtypes(list(v.values()))
    return set()


def apply_operator(name: str, a, b=None):
    f = getattr(operator, name)
    return f(a) if b is None else f(a, b)


