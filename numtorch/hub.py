"""numtorch.hub: load models and weights published the ``torch.hub`` way.

``load(dir, model, source="local")`` imports ``dir/hubconf.py`` and calls its entrypoint ``model``;
``source="github"`` first downloads ``owner/name[:ref]`` as a zip into ``get_dir()``. Weights come
through ``load_state_dict_from_url`` (cached under ``get_dir()/checkpoints``, read by
``numtorch.load``). The cache is PyTorch's (``$TORCH_HOME/hub``), so files downloaded by either
library are reused by the other.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import shutil
import sys
import tempfile
import zipfile
from urllib.parse import urlparse

__all__ = ["download_url_to_file", "get_dir", "help", "list", "load", "load_state_dict_from_url", "set_dir"]

_hub_dir: str | None = None
VAR_DEPENDENCY = "dependencies"
MODULE_HUBCONF = "hubconf.py"
HASH_REGEX = re.compile(r"-([a-f0-9]*)\.")


def get_dir() -> str:
    """The hub cache: ``set_dir``'s, else ``$TORCH_HOME/hub`` (default ``$XDG_CACHE_HOME/torch/hub``,
    ``~/.cache/torch/hub``)."""
    if _hub_dir is not None:
        return _hub_dir
    cache = os.getenv("XDG_CACHE_HOME", os.path.join("~", ".cache"))
    return os.path.join(os.path.expanduser(os.getenv("TORCH_HOME", os.path.join(cache, "torch"))), "hub")


def set_dir(d) -> None:
    """Use ``d`` as the hub cache."""
    global _hub_dir
    _hub_dir = os.path.expanduser(os.fspath(d))


def download_url_to_file(url: str, dst: str, hash_prefix: str | None = None, progress: bool = True) -> None:
    """Download ``url`` to ``dst`` (through a temporary file, so ``dst`` is whole or absent), checking that
    its SHA-256 starts with ``hash_prefix`` when given."""
    dst = os.path.expanduser(dst)
    tmp = tempfile.NamedTemporaryFile(delete=False, dir=os.path.dirname(os.path.abspath(dst)))  # noqa: SIM115
    try:
        import urllib.request  # only here: it pulls in http, email and ssl (~30 ms of import)

        sha256 = hashlib.sha256()
        with urllib.request.urlopen(urllib.request.Request(url, headers={"User-Agent": "numtorch.hub"})) as u:
            while chunk := u.read(1 << 16):
                tmp.write(chunk)
                sha256.update(chunk)
        tmp.close()
        if hash_prefix is not None and not sha256.hexdigest().startswith(hash_prefix):
            raise RuntimeError(f'invalid hash value (expected "{hash_prefix}", got "{sha256.hexdigest()}")')
        shutil.move(tmp.name, dst)
    finally:
        tmp.close()
        if os.path.exists(tmp.name):
            os.remove(tmp.name)


def load_state_dict_from_url(url: str, model_dir: str | None = None, map_location=None, progress: bool = True,
                             check_hash: bool = False, file_name: str | None = None,
                             weights_only: bool = False):  # fmt: skip
    """The object saved at ``url``, downloaded once into ``model_dir`` (default ``get_dir()/checkpoints``).
    ``check_hash`` checks the file against the hex digits after the last ``-`` in its name."""
    import numtorch

    model_dir = os.path.join(get_dir(), "checkpoints") if model_dir is None else model_dir
    os.makedirs(model_dir, exist_ok=True)
    filename = file_name or os.path.basename(urlparse(url).path)
    cached = os.path.join(model_dir, filename)
    if not os.path.exists(cached):
        m = HASH_REGEX.search(filename) if check_hash else None
        download_url_to_file(url, cached, m.group(1) if m else None, progress=progress)
    return numtorch.load(cached, map_location=map_location, weights_only=weights_only)


def _parse_repo(github: str):
    owner_name, ref = github.split(":", 1) if ":" in github else (github, "main")
    owner, name = owner_name.split("/")
    return owner, name, ref


def _get_cache_or_reload(github: str, force_reload: bool) -> str:
    owner, name, ref = _parse_repo(github)
    repo_dir = os.path.join(get_dir(), "_".join([owner, name, ref.replace("/", "_")]))
    if os.path.exists(repo_dir) and not force_reload:
        return repo_dir
    os.makedirs(get_dir(), exist_ok=True)
    cached_zip = repo_dir + ".zip"
    download_url_to_file(f"https://github.com/{owner}/{name}/zipball/{ref}", cached_zip)
    with zipfile.ZipFile(cached_zip) as z:
        extracted = os.path.join(get_dir(), z.infolist()[0].filename)
        shutil.rmtree(extracted, ignore_errors=True)
        z.extractall(get_dir())
    os.remove(cached_zip)
    shutil.rmtree(repo_dir, ignore_errors=True)
    shutil.move(extracted, repo_dir)
    return repo_dir


def _import_hubconf(repo_dir: str):
    path = os.path.join(repo_dir, MODULE_HUBCONF)
    spec = importlib.util.spec_from_file_location("hubconf", path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, repo_dir)  # hubconf imports its repository's modules
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(repo_dir)
    missing = [d for d in getattr(module, VAR_DEPENDENCY, []) if importlib.util.find_spec(d) is None]
    if missing:
        raise RuntimeError(f"Missing dependencies: {', '.join(missing)}")
    return module


def _entry(hub_module, model: str):
    if not isinstance(model, str):
        raise ValueError("Invalid input: model should be a string of function name")
    func = getattr(hub_module, model, None)
    if func is None or not callable(func):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return func


def _repo_dir(repo_or_dir: str, source: str, force_reload: bool) -> str:
    source = source.lower()
    if source not in ("github", "local"):
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    return repo_or_dir if source == "local" else _get_cache_or_reload(repo_or_dir, force_reload)


def list(github, force_reload=False, skip_validation=False, trust_repo="check", verbose=True):  # noqa: A001
    """The entrypoints (public callables) of the repository's hubconf."""
    mod = _import_hubconf(_get_cache_or_reload(github, force_reload))
    return [f for f in dir(mod) if callable(getattr(mod, f)) and not f.startswith("_")]


def help(github, model, force_reload=False, skip_validation=False, trust_repo="check"):  # noqa: A001
    """The docstring of entrypoint ``model``."""
    return _entry(_import_hubconf(_get_cache_or_reload(github, force_reload)), model).__doc__


def load(repo_or_dir, model, *args, source="github", trust_repo="check", force_reload=False, verbose=True,
         skip_validation=False, **kwargs):  # fmt: skip
    """``model(*args, **kwargs)`` from the repository's hubconf (a GitHub ``owner/name[:ref]`` or a local dir).

    >>> import tempfile, pathlib
    >>> d = tempfile.mkdtemp(); _ = pathlib.Path(d, "hubconf.py").write_text("def two():\\n    return 2\\n")
    >>> numtorch.hub.load(d, "two", source="local")
    2
    """
    return _entry(_import_hubconf(_repo_dir(repo_or_dir, source, force_reload)), model)(*args, **kwargs)
