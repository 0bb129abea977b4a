"""Where kernels live on disk: one folder per digest of the kernel sources (no Numba here).

Numba-free, so that ``_codegen`` (imported by ``import numtorch``) can name the folders;
``_jit.py`` installs the Numba side. See Note [Kernel cache layout] in ``_jit.py``.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import time
from pathlib import Path

KERNELS = os.path.dirname(os.path.abspath(__file__))
_STAMP = ".used"
_GRACE_S = 24 * 3600
_DIGEST_DIR = re.compile(r"v[\w.+-]*-[0-9a-f]{16}")
_DOOMED = re.compile(r".+\.del[0-9]+")
_LEGACY = re.compile(r"(pw|red)_\w+_[0-9a-f]{16}\.py|__pycache__")
_STATE: dict = {}


def cache_dir() -> Path:
    """The root of numtorch's kernel cache: $NUMTORCH_KERNEL_CACHE or ~/.cache/numtorch/kernels."""
    root = os.environ.get("NUMTORCH_KERNEL_CACHE")
    if root:
        return Path(root)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "numtorch" / "kernels"


def source_digest() -> str:
    """``v<version>-<sha1 of numtorch/kernels/**/*.py>``: the name of this build's cache folders."""
    d = _STATE.get("digest")
    if d is None:
        import numtorch  # imported by now (kernels load lazily); its version joins the key

        version = re.sub(r"[^\w.+-]", "_", str(numtorch.__version__))
        h = hashlib.sha1(version.encode())
        files = []
        for root, dirs, names in os.walk(KERNELS):
            dirs[:] = [x for x in dirs if x != "__pycache__"]
            files += [os.path.join(root, n) for n in names if n.endswith(".py")]
        for f in sorted(files):
            with open(f, "rb") as fh:
                data = fh.read()
            h.update(os.path.relpath(f, KERNELS).encode() + b"\0" + len(data).to_bytes(8, "little"))
            h.update(data)
        d = _STATE["digest"] = f"v{version}-{h.hexdigest()[:16]}"
    return d


def kernel_dir() -> Path:
    """This digest's folder for generated kernel modules, made and swept once per process."""
    p = _STATE.get("dir")
    if p is None:
        root = Path(os.path.abspath(cache_dir()))
        p = _STATE["dir"] = root / source_digest()
        _claim(p, root, legacy=True)
    return p


def numba_dir(numba_cache_dir: str) -> str:
    """The folder Numba's files go to, given Numba's NUMBA_CACHE_DIR setting (may be empty)."""
    p = _STATE.get("numba")
    if p is None:
        if numba_cache_dir:
            root = Path(os.path.abspath(numba_cache_dir)) / "numtorch"
            p = root / source_digest()
            _claim(p, root, legacy=False)
        else:
            p = kernel_dir() / "numba"
        p = _STATE["numba"] = str(p)
    return p


def area_of(py_file: str) -> str | None:
    """Numba's subfolder for kernels defined in ``py_file`` (None: not a numtorch kernel)."""
    f = os.path.abspath(py_file)
    folder = os.path.dirname(f)
    if f.startswith(KERNELS + os.sep):
        rel = os.path.relpath(folder, KERNELS)
        return "kernels" if rel == "." else rel.replace(os.sep, "_")
    gen = _STATE.get("dir")  # set before any generated module is written
    if gen is not None and folder == str(gen):
        return "gen"
    return None


def touch() -> None:
    """Mark this digest's folders as in use again (Numba calls it before each save)."""
    for folder in _STATE.get("claimed", ()):
        try:
            _stamp(folder)
        except OSError:
            pass


def _stamp(folder: Path) -> bool:
    """Touch ``folder/.used``; True when it did not exist (a new digest folder)."""
    stamp = folder / _STAMP
    try:
        os.utime(stamp)
        return False
    except FileNotFoundError:
        folder.mkdir(parents=True, exist_ok=True)
        stamp.touch()
        return True


def _claim(folder: Path, root: Path, legacy: bool) -> None:
    _STATE.setdefault("claimed", []).append(folder)
    try:
        new = _stamp(folder)
        _sweep(root, folder.name, legacy)
        if new and legacy:
            _sweep_in_tree()
    except OSError:
        pass  # a read-only cache: nothing to stamp or sweep


def _sweep(root: Path, keep: str, legacy: bool) -> None:
    now = time.time()
    for e in os.scandir(root):
        name = e.name
        if name == keep:
            continue
        if _DOOMED.fullmatch(name):  # a removal another process did not finish
            _remove(e.path, now)
        elif _DIGEST_DIR.fullmatch(name) and e.is_dir(follow_symlinks=False):
            try:
                used = os.stat(os.path.join(e.path, _STAMP)).st_mtime
            except FileNotFoundError:
                used = e.stat().st_mtime
            if now - used > _GRACE_S:
                _remove(e.path, now)
        elif legacy and _LEGACY.fullmatch(name) and now - e.stat().st_mtime > _GRACE_S:
            _remove(e.path, now)


def _remove(path: str, now: float) -> None:
    # rename first (atomic): a concurrent sweeper then finds nothing, a user of the folder
    # recreates it; only the renamed copy is deleted
    doomed = path if _DOOMED.fullmatch(os.path.basename(path)) else f"{path}.del{os.getpid()}"
    try:
        if doomed != path:
            os.rename(path, doomed)
    except OSError:
        return
    if os.path.isdir(doomed):
        shutil.rmtree(doomed, ignore_errors=True)
    else:
        try:
            os.unlink(doomed)
        except OSError:
            pass


def _sweep_in_tree() -> None:
    # Numba's default (in-tree __pycache__) files from before this layout: never read again
    for root, dirs, names in os.walk(KERNELS):
        if os.path.basename(root) == "__pycache__":
            for n in names:
                if n.endswith((".nbi", ".nbc")):
                    try:
                        os.unlink(os.path.join(root, n))
                    except OSError:
                        pass
