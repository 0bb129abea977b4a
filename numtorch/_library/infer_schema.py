"""``infer_schema``: a schema string from a Python function's type hints, as PyTorch's."""

from __future__ import annotations

import collections.abc
import inspect
import typing
from types import GenericAlias

from .._device import device
from .._dtype import dtype
from .._tags import Tag
from .._tensor import Tensor


def _derived(base, schema: str, list_base: bool, opt_base_list: bool, opt_list_base: bool):
    seqs = lambda t: (typing.Sequence[t], typing.List[t], GenericAlias(collections.abc.Sequence, (t,)), GenericAlias(list, (t,)))  # noqa: E731,UP006
    out = [(base, schema), (typing.Optional[base], f"{schema}?")]  # noqa: UP045
    if list_base:
        out += [(s, f"{schema}[]") for s in seqs(base)]
    if opt_base_list:
        out += [(s, f"{schema}?[]") for s in seqs(typing.Optional[base])]  # noqa: UP045
    if opt_list_base:
        out += [(typing.Optional[s], f"{schema}[]?") for s in seqs(base)]  # noqa: UP045
    return out


_NUMBER = typing.Union[int, float, bool]
SUPPORTED_PARAM_TYPES = dict(
    _derived(Tensor, "Tensor", True, True, False)
    + _derived(int, "SymInt", True, False, True)
    + _derived(float, "float", True, False, True)
    + _derived(bool, "bool", True, False, True)
    + _derived(str, "str", False, False, False)
    + _derived(_NUMBER, "Scalar", True, False, False)
    + _derived(dtype, "ScalarType", False, False, False)
    + _derived(device, "Device", False, False, False)
)
SUPPORTED_RETURN_TYPES = {Tensor: "Tensor", typing.List[Tensor]: "Tensor[]", list[Tensor]: "Tensor[]",  # noqa: UP006
                          int: "SymInt", float: "float", bool: "bool", _NUMBER: "Scalar"}  # fmt: skip


def infer_schema(prototype_function, /, *, mutates_args, op_name: str | None = None, tags=None) -> str:
    """The schema of a function from its type hints.

    >>> def foo(x: numtorch.Tensor, n: int = 2) -> numtorch.Tensor: ...
    >>> numtorch.library.infer_schema(foo, op_name="foo", mutates_args=())
    'foo(Tensor x, SymInt n=2) -> Tensor'
    """
    prototype_function = getattr(prototype_function, "py_func", prototype_function)  # a Numba function
    sig = inspect.signature(prototype_function)
    tags = () if tags is None else (tags,) if isinstance(tags, Tag) else tuple(tags)
    is_inplace, is_out = Tag.inplace in tags, Tag.out in tags
    if type(mutates_args) is not str:
        mutates_args = tuple(mutates_args)

    def error_fn(what):
        raise ValueError(f"infer_schema(func): {what} Got func with signature {sig})")

    def resolve(ann):
        if isinstance(ann, str):
            try:
                return eval(ann, prototype_function.__globals__)  # a type name, not code to run
            except Exception as e:
                error_fn(f"Unsupported type annotation {ann}. It is not a type. ({type(e).__name__}: {e})")
        return ann

    params, seen, kw_seen = [], set(), False
    first = None  # (name, schema type, alias) of the first positional parameter
    out_aliases, out_names = [], []
    for idx, (name, p) in enumerate(sig.parameters.items()):
        if p.kind not in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            error_fn("We do not support positional-only args, varargs, or varkwargs.")
        if p.kind == p.KEYWORD_ONLY and not kw_seen:
            params.append("*")
            kw_seen = True
        if p.annotation is p.empty:
            error_fn(f"Parameter {name} must have a type annotation.")
        ann = resolve(p.annotation)
        st = SUPPORTED_PARAM_TYPES.get(ann) if _hashable(ann) else None
        if st is None:
            if typing.get_origin(ann) is tuple:
                error_fn(f"Parameter {name} has unsupported type {p.annotation}. We do not support Tuple "
                         "inputs in schema. As a workaround, please try to use List instead. "
                         f"The valid types are: {SUPPORTED_PARAM_TYPES.keys()}.")  # fmt: skip
            error_fn(f"Parameter {name} has unsupported type {p.annotation}. "
                     f"The valid types are: {SUPPORTED_PARAM_TYPES.keys()}.")  # fmt: skip
        if p.kind == p.POSITIONAL_OR_KEYWORD and first is None:
            first = (name, st, f"a{idx}")
        mutated = False
        if type(mutates_args) is str:
            if mutates_args != "unknown":
                raise ValueError("mutates_args must either be a sequence of the names of the arguments "
                                 "that are mutated or the string 'unknown'. ")  # fmt: skip
            if st.startswith("Tensor"):
                mutated, st = True, f"Tensor(a{idx}!){st[6:]}"
        elif name in mutates_args:
            if not st.startswith("Tensor"):
                error_fn(f"Parameter {name} is in mutable_args but only Tensors or collections of "
                         "Tensors can be mutated")  # fmt: skip
            mutated, st = True, f"Tensor(a{idx}!){st[6:]}"
        if is_out and mutated:
            if p.kind != p.KEYWORD_ONLY:
                error_fn("torch.Tag.out requires mutable arguments to be keyword-only.")
            out_aliases.append(f"a{idx}")
            out_names.append(name)
        seen.add(name)
        params.append(f"{st} {name}" if p.default is p.empty else f"{st} {name}={_default(p.default, name, error_fn)}")
    if type(mutates_args) is not str:
        missing = set(mutates_args) - seen
        if missing:
            error_fn(f"{missing} in mutates_args were not found in the custom op's signature. "
                     "mutates_args should contain the names of all args that the custom op mutates, "
                     "or just the string 'unknown' if you don't know.")  # fmt: skip
    if is_inplace and (first is None or first[1] != "Tensor"):
        error_fn("torch.Tag.inplace requires the first positional argument to be a Tensor.")
    if is_out and not out_aliases:
        error_fn("torch.Tag.out requires at least one mutable keyword-only Tensor argument.")
    ret = _parse_return(resolve(sig.return_annotation), error_fn)
    if is_out:
        ret = ", ".join(f"Tensor({a}!)" for a in out_aliases)
        ret = ret if len(out_aliases) == 1 else f"({ret})"
    if is_inplace:
        ret = f"Tensor({first[2]}!)"
    head = op_name if op_name is not None else ""
    return f"{head}({', '.join(params)}) -> {ret}"


def _hashable(x) -> bool:
    try:
        hash(x)
    except TypeError:
        return False
    return True


def _default(v, name, error_fn) -> str:
    if v is None or isinstance(v, (int, float, bool)):
        return str(v)
    if isinstance(v, (str, device)):
        return f'"{v}"'
    if isinstance(v, dtype):
        return v.name
    error_fn(f"Parameter {name} has an unsupported default value type {type(v)}. "
             "Please file an issue on GitHub so we can prioritize this.")  # fmt: skip


def _parse_return(ann, error_fn) -> str:
    if ann is None:
        return "()"
    if ann is inspect.Parameter.empty:
        error_fn("No return type annotation was provided. Please add one.")
    if typing.get_origin(ann) is not tuple:
        if not _hashable(ann) or ann not in SUPPORTED_RETURN_TYPES:
            error_fn(f"Return has unsupported type {ann}. The valid types are: {SUPPORTED_RETURN_TYPES}.")
        return SUPPORTED_RETURN_TYPES[ann]
    args = typing.get_args(ann)
    for a in args:
        if not _hashable(a) or a not in SUPPORTED_RETURN_TYPES:
            error_fn(f"Return has unsupported type {ann}. The valid types are: {SUPPORTED_RETURN_TYPES}.")
    body = ", ".join(SUPPORTED_RETURN_TYPES[a] for a in args)
    return f"(({body}))" if len(args) == 1 else f"({body})"
