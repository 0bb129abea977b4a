"""Public-name coverage of numtorch against torch, namespace by namespace.

Run ``python tests/parity/api_coverage.py`` to print the table; ``test_api_coverage.py`` runs the
same measurement, writes ``docs/API_COVERAGE.md`` and fails when a required name is missing.

Counting: a public name is one in ``dir(namespace)`` that does not start with ``_`` and is not a
module from outside torch (``torch.os``). cuda, distributed, compile, sparse and quantized are out
of scope (the CUDA issue and later work), so those namespaces and the top-level names that belong
to them are not counted.
"""

from __future__ import annotations

import importlib
import re
import types

NAMESPACES = (
    "torch", "torch.Tensor", "torch.nn", "torch.nn.functional", "torch.nn.init", "torch.nn.utils",
    "torch.nn.utils.rnn", "torch.linalg", "torch.special", "torch.fft", "torch.autograd",
    "torch.autograd.graph", "torch.optim", "torch.optim.lr_scheduler", "torch.distributions",
    "torch.distributions.constraints", "torch.testing", "torch.backends", "torch.amp", "torch.jit",
    "torch.accelerator", "torch.utils", "torch.utils.data", "torch.utils.checkpoint",
)  # fmt: skip

# Top-level names that belong to an excluded area (cuda, distributed, compile, sparse, quantized).
_EXCLUDED = re.compile(
    r"(cuda|cudnn|distributed|compile|dynamo|inductor|export|sparse|quant|qint|quint|_csr|_csc|_bsr|_bsc"
    r"|mkldnn|miopen|mps|xpu|mtia|fbgemm|vulkan|xla|hpu|ipu|nested|onnx|fx|package|masked)",
    re.I,
)

# Names numtorch leaves out on purpose: name -> reason (shown in docs/API_COVERAGE.md).
DELIBERATELY_ABSENT = {
    "torch._C": "no C++ core; numtorch._C (the torch-function issue) holds the Python-level names",
    "torch.Tensor.cuda_graph": "CUDA graphs belong to the CUDA issue",
    "torch.jit.script": "present, but raises NotImplementedError: TorchScript has no NumPy analogue",
    "torch.jit.trace": "present, but raises NotImplementedError: TorchScript has no NumPy analogue",
    "torch.Tensor.is_xla": "no XLA backend",
}

# Names real training and model code reaches for first: a missing one fails the test.
REQUIRED = {
    "torch": [
        "pi", "e", "inf", "nan", "strided", "layout", "LongTensor", "FloatTensor", "IntTensor",
        "BoolTensor", "ByteTensor", "DoubleTensor", "HalfTensor", "ShortTensor", "CharTensor",
        "set_num_threads", "get_num_threads", "set_default_device", "use_deterministic_algorithms",
        "set_float32_matmul_precision", "get_float32_matmul_precision", "autocast", "testing",
        "backends", "amp", "jit", "fft", "accelerator", "from_dlpack",
    ],
    "torch.fft": [
        "fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2",
        "rfftn", "irfftn", "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn", "fftfreq",
        "rfftfreq", "fftshift", "ifftshift",
    ],
    "torch.backends": ["cudnn", "mps", "mkldnn", "opt_einsum"],
    "torch.amp": ["autocast", "GradScaler", "custom_fwd", "custom_bwd"],
    "torch.jit": ["is_scripting", "is_tracing", "ignore", "unused", "export", "Final", "annotate", "script", "trace"],
    "torch.accelerator": ["is_available", "current_accelerator", "device_count", "synchronize"],
    "torch.testing": ["assert_close", "make_tensor"],
}  # fmt: skip


def _resolve(root, dotted: str):
    obj = root
    for part in dotted.split(".")[1:]:
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def _foreign(v, root: str) -> bool:
    # typing.Any, functools.wraps, enum.Enum ... imported into a namespace are not its API
    mod = getattr(v, "__module__", None) if isinstance(v, type) or callable(v) else None
    return isinstance(mod, str) and mod.split(".")[0] not in (root, "builtins") and not mod.startswith("torch")


def public_names(mod, prefix: str) -> set[str]:
    names = set()
    lazy = getattr(mod, "_LAZY", ())  # numtorch.utils loads submodules on first access
    for n in sorted(set(dir(mod)) | set(lazy)):
        if n.startswith("_"):
            continue
        if prefix.split(".", 1)[-1] in ("torch", "numtorch", "Tensor") and _EXCLUDED.search(n):
            continue
        try:
            v = getattr(mod, n)
        except Exception:  # noqa: BLE001 - a lazy attribute that fails is simply absent
            continue
        root = prefix.split(".")[0]
        if isinstance(v, types.ModuleType):
            # foreign modules (torch.os) and the root package re-imported (torch.fft.torch) are not API
            if not v.__name__.startswith(root) or (v.__name__ == root and prefix != root):
                continue
        elif isinstance(mod, types.ModuleType) and _foreign(v, root):
            continue
        names.add(n)
    return names


def measure(torch, numtorch) -> list[dict]:
    rows = []
    for ns in NAMESPACES:
        ref = _resolve(torch, ns)
        if ref is None:
            continue
        want = public_names(ref, ns)
        mine = _resolve(numtorch, ns.replace("torch", "numtorch", 1))
        have = public_names(mine, ns.replace("torch", "numtorch", 1)) if mine is not None else set()
        absent = {n for n in want if f"{ns}.{n}" in DELIBERATELY_ABSENT}
        present = want & have
        rows.append(
            {"namespace": ns, "total": len(want), "present": sorted(present),
             "missing": sorted(want - have - absent), "absent": sorted(absent - have)}
        )  # fmt: skip
    return rows


def table(rows) -> str:
    lines = ["| namespace | torch names | numtorch has | missing | coverage |", "| --- | ---: | ---: | ---: | ---: |"]
    tot = got = 0
    for r in rows:
        n, p = r["total"], len(r["present"])
        tot, got = tot + n, got + p
        lines.append(f"| `{r['namespace']}` | {n} | {p} | {len(r['missing'])} | {100 * p / max(n, 1):.0f}% |")
    lines.append(f"| **all** | {tot} | {got} | {tot - got} | {100 * got / max(tot, 1):.1f}% |")
    return "\n".join(lines)


def markdown(rows) -> str:
    out = [
        "# API coverage against PyTorch",
        "",
        "Generated by `tests/parity/test_api_coverage.py` (do not edit by hand). Public names per",
        "namespace (`dir()` without `_` names); cuda, distributed, compile, sparse and quantized are",
        "not counted.",
        "",
        table(rows),
        "",
        "## Deliberately absent",
        "",
    ]
    out += [f"- `{k}`: {v}" for k, v in sorted(DELIBERATELY_ABSENT.items())]
    for r in rows:
        out += ["", f"## `{r['namespace']}`", "", f"Missing ({len(r['missing'])}): " + ", ".join(f"`{n}`" for n in r["missing"])]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    import torch

    import numtorch

    print(table(measure(torch, importlib.import_module("numtorch"))))
