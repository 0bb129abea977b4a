"""Operator schema strings (PyTorch's ``FunctionSchema`` text): parse, print, bind calls.

# Note [Schema text is canonicalised like PyTorch]
# ``str(parse_schema(text))`` is what ``str(torch._C.FunctionSchema)`` prints for the same
# declaration, minus the ``aten::`` prefix. So defaults print from their values, not as written:
# ``float eps=1e-05`` -> ``1.0000000000000001e-05`` (17 digits), ``float p=2`` -> ``2.``,
# ``int[2] stride=[1, 1]`` -> ``1``; and ``-> (Tensor)`` loses its redundant parentheses.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field


class _NoDefault:
    __slots__ = ()

    def __repr__(self) -> str:
        return "NO_DEFAULT"

    __reduce__ = __repr__  # pickling/copying by global name keeps the sentinel a singleton


NO_DEFAULT = _NoDefault()
_MISSING = object()

_IDENT = re.compile(r"[A-Za-z_]\w*")
_TYPE_IDENT = re.compile(r"[A-Za-z_][\w.]*")  # dotted for custom classes: __torch__.torch.classes.X
_BRACKETS = re.compile(r"""[()\[\],"']""")
_STRING = re.compile(r"'(?:[^'\\]|\\.)*'" + r'|"(?:[^"\\]|\\.)*"', re.DOTALL)
_NAME = re.compile(r"(?:([A-Za-z_]\w*)::)?([A-Za-z_]\w*)(?:\.(\w+))?")
_ALIAS_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_!*|->.:")
# Parentheses after these names hold contained types; after any other type they hold an alias set.
_TYPE_CONSTRUCTORS = frozenset({"Dict", "Future", "RRef", "Await", "Tuple", "Union", "Optional"})
_CONSTANTS = {"None": None, "True": True, "False": False}
_QUOTED = {c: "\\" + e for c, e in zip("\\'\"\n\t\r\f\v\a\b", "\\'\"ntrfvab", strict=True)}


def _type_with_alias(type_: str, alias: str | None, on_element: bool) -> str:
    # PyTorch prints `Tensor(a!)?` (alias before `?`) and puts an element alias before the list
    # suffix: `Tensor(a!)[]`, while a list-level alias follows it: `t[](a)`.
    if alias is None:
        return type_
    if on_element:
        k = type_.rfind("[")
        return f"{type_[:k]}({alias}){type_[k:]}"
    if type_.endswith("?"):
        return f"{type_[:-1]}({alias})?"
    return f"{type_}({alias})"


def _element_type(type_: str) -> str:
    t = type_.removesuffix("?")
    if t.endswith("]"):
        t = t[: t.rfind("[")]
    return t.removesuffix("?")


def _list_size(type_: str) -> int | None:
    t = type_.removesuffix("?")
    if not t.endswith("]"):
        return None
    size = t[t.rfind("[") + 1 : -1]
    return int(size) if size else None


@dataclass(frozen=True, slots=True)
class Argument:
    """One declared argument. ``type`` omits the alias annotation, which lives in ``alias``."""

    name: str
    type: str
    # Excluded from the hash because list defaults are unhashable; equality still compares it.
    default: object = field(hash=False)
    kwarg_only: bool
    alias: str | None
    # True when the alias annotates the list's elements (`Tensor(a!)[]`), not the list (`t[](a)`).
    alias_on_element: bool = False

    @property
    def is_write(self) -> bool:
        return self.alias is not None and self.alias.endswith("!")

    @property
    def is_tensor(self) -> bool:
        return self.type.startswith("Tensor") and "[" not in self.type

    @property
    def is_tensor_list(self) -> bool:
        return self.type.removesuffix("?") in ("Tensor[]", "Tensor?[]")

    @property
    def is_optional(self) -> bool:
        return self.type.endswith("?")

    @property
    def has_default(self) -> bool:
        return self.default is not NO_DEFAULT

    @property
    def is_out(self) -> bool:
        return self.kwarg_only and self.is_write

    @property
    def list_size(self) -> int | None:
        return _list_size(self.type)

    def __str__(self) -> str:
        text = f"{_type_with_alias(self.type, self.alias, self.alias_on_element)} {self.name}"
        if self.default is NO_DEFAULT:
            return text
        return f"{text}={_format_default(self)}"


@dataclass(frozen=True, slots=True)
class Return:
    """One declared return value; ``name`` is None for unnamed returns."""

    name: str | None
    type: str
    alias: str | None
    alias_on_element: bool = False

    @property
    def is_write(self) -> bool:
        return self.alias is not None and self.alias.endswith("!")

    def __str__(self) -> str:
        text = _type_with_alias(self.type, self.alias, self.alias_on_element)
        return text if self.name is None else f"{text} {self.name}"


@dataclass(frozen=True, slots=True)
class FunctionSchema:
    """A parsed operator declaration; ``overload_name`` is "" for the default overload."""

    namespace: str
    name: str
    overload_name: str
    arguments: tuple[Argument, ...]
    returns: tuple[Return, ...]
    # printed with its namespace (``aten::add.Tensor(...)``) as PyTorch prints a registered op's
    # schema or a parsed text that named one; not part of equality
    qualified: bool = field(default=False, compare=False)

    @property
    def is_mutable(self) -> bool:
        return any(a.is_write for a in self.arguments)

    @property
    def is_inplace(self) -> bool:
        return self.name.endswith("_") and not self.name.endswith("__")

    @property
    def out_arguments(self) -> tuple[Argument, ...]:
        return tuple(a for a in self.arguments if a.is_out)

    @property
    def positional(self) -> tuple[Argument, ...]:
        return tuple(a for a in self.arguments if not a.kwarg_only)

    @property
    def kwarg_only(self) -> tuple[Argument, ...]:
        return tuple(a for a in self.arguments if a.kwarg_only)

    @property
    def returns_tuple(self) -> bool:
        # PyTorch drops the parentheses of `-> (Tensor)`, so only the count can decide.
        return len(self.returns) > 1

    def __str__(self) -> str:
        head = f"{self.namespace}::{self.name}" if self.qualified or self.namespace != "aten" else self.name
        if self.overload_name:
            head = f"{head}.{self.overload_name}"
        parts = [str(a) for a in self.arguments]
        star = next((i for i, a in enumerate(self.arguments) if a.kwarg_only), None)
        if star is not None:
            parts.insert(star, "*")
        ret = ", ".join(str(r) for r in self.returns)
        # A lone return starting with "(" is a tuple type and needs wrapping to stay parseable.
        if len(self.returns) != 1 or ret.startswith("("):
            ret = f"({ret})"
        return f"{head}({', '.join(parts)}) -> {ret}"


def _fail(what: str, where: str) -> ValueError:
    return ValueError(f"invalid schema: {what} in {where!r}")


def _skip_string(text: str, i: int, where: str) -> int:
    """Index just past the quoted string starting at ``text[i]``."""
    m = _STRING.match(text, i)
    if m is None:
        raise _fail(f"unterminated string {text[i:]!r}", where)
    return m.end()


def _group(text: str, i: int, where: str) -> tuple[list[str], int]:
    """Split the bracketed group opening at ``text[i]`` on its top-level commas; also return the
    index of its closing bracket. Commas and brackets inside string literals are skipped."""
    out, depth, start, pos = [], 0, i + 1, i
    while (m := _BRACKETS.search(text, pos)) is not None:
        c, j = m.group(), m.start()
        pos = j + 1
        if c == ",":
            if depth == 1:
                out.append(text[start:j])
                start = pos
        elif c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
            if depth == 0:
                out.append(text[start:j])
                return out, j
        else:
            pos = _skip_string(text, j, where)
    raise _fail(f"unbalanced brackets in {text[i:]!r}", where)


def _split_top(text: str, where: str) -> list[str]:
    """Split on commas that are outside brackets and string literals."""
    pieces, end = _group(f"({text})", 0, where)
    if end != len(text) + 1:
        raise _fail(f"unbalanced brackets in {text!r}", where)
    return pieces


def _normalize_alias(text: str, where: str) -> str:
    compact = "".join(text.split())
    before, arrow, after = compact.partition("->")
    if not before or (arrow and not after) or not _ALIAS_CHARS.issuperset(compact):
        raise _fail(f"bad alias annotation ({text})", where)
    return f"{before} -> {after}" if arrow else compact


def _parse_type(text: str, where: str) -> tuple[str, str | None, bool]:
    """Split a type such as ``Tensor(a!)[]?`` into (``Tensor[]?``, ``a!``, alias_on_element)."""
    n, base, i = len(text), "", 0
    if not text.startswith("("):
        m = _TYPE_IDENT.match(text)
        if m is None:
            raise _fail(f"bad type {text!r}", where)
        base, i = m.group(), m.end()
    if text.startswith("(", i) and (i == 0 or base in _TYPE_CONSTRUCTORS):
        pieces, end = _group(text, i, where)
        inner = ", ".join(_parse_type(p.strip(), where)[0] for p in pieces)
        base, i = f"{base}({inner})", end + 1
    if i == n:
        return base, None, False
    parts, alias, on_element = [base], None, False
    while i < n:
        c = text[i]
        end = -1
        if c == "(" and alias is None:
            end = text.find(")", i)
            if end > 0:
                alias = _normalize_alias(text[i + 1 : end], where)
        elif c == "[":
            end = text.find("]", i)
            if end > 0 and (end == i + 1 or text[i + 1 : end].isdigit()):
                parts.append(text[i : end + 1])
                on_element = alias is not None
            else:
                end = -1
        elif c == "?":
            end = i
            parts.append("?")
        if end < 0:
            raise _fail(f"bad type {text!r}", where)
        i = end + 1
    return "".join(parts), alias, on_element


def _unescape(body: str, where: str) -> str:
    try:
        # backslashreplace keeps non-Latin-1 text intact through the byte-level escape codec.
        return body.encode("latin-1", "backslashreplace").decode("unicode_escape")
    except UnicodeDecodeError:
        raise _fail(f"bad escape in string {body!r}", where) from None


def _parse_value(text: str, where: str) -> object:
    if not text:
        raise _fail("empty default value", where)
    c = text[0]
    if c == '"' or c == "'":
        if _skip_string(text, 0, where) != len(text):
            raise _fail(f"bad default {text!r}", where)
        return _unescape(text[1:-1], where)
    if c == "[":
        pieces, end = _group(text, 0, where)
        if end != len(text) - 1:
            raise _fail(f"bad default {text!r}", where)
        return [_parse_value(p.strip(), where) for p in pieces] if text[1:-1].strip() else []
    if text in _CONSTANTS:
        return _CONSTANTS[text]
    for convert in (int, float):
        try:
            value = convert(text)
        except ValueError:
            continue
        # One shared NaN object lets dataclass equality (which tries `is` first) see it as equal.
        return math.nan if isinstance(value, float) and math.isnan(value) else value
    if _IDENT.fullmatch(text):
        return text
    raise _fail(f"bad default {text!r}", where)


def _parse_default(text: str, type_: str, where: str) -> object:
    value = _parse_value(text, where)
    # Like PyTorch, an int written for a (non-optional) float becomes a float: `float p=2` -> 2.
    if _element_type(type_) == "float" and not type_.endswith("?"):
        if isinstance(value, list):
            value = [float(v) if type(v) is int else v for v in value]
        elif type(value) is int:
            value = float(value)
    size = _list_size(type_)
    if size is not None and isinstance(value, (int, float)):
        value = [value] * size
    return value


def _format_float(d: float) -> str:
    # Mirrors c10's IValue printer: integral values as `3.`, everything else with 17 digits.
    if math.isfinite(d) and d == int(d) and -(2**63) <= d < 2**63:
        return f"{int(d)}."
    return f"{d:.17g}"


def _quote(s: str) -> str:
    chars = [_QUOTED.get(c) or (c if c >= " " and c != "\x7f" else f"\\{ord(c):03o}") for c in s]
    return f'"{"".join(chars)}"'


def _format_value(v: object, quote_str: bool) -> str:
    if v is None or isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return _format_float(v)
    if isinstance(v, str):
        return _quote(v) if quote_str else v
    if isinstance(v, (list, tuple)):
        return f"[{', '.join(_format_value(x, quote_str) for x in v)}]"
    return str(v)


def _format_default(arg: Argument) -> str:
    value, element, size = arg.default, _element_type(arg.type), arg.list_size
    # PyTorch writes `int[2] stride=1` for [1, 1], and keeps an optional sized list's scalar.
    if (element == "int" or arg.is_optional) and isinstance(value, list) and len(value) == size:
        value = value[0] if size > 1 and len({repr(x) for x in value}) == 1 else value
    return _format_value(value, element == "str")


def _parse_argument(piece: str, kwarg_only: bool, where: str) -> Argument:
    head, eq, default_text = piece.partition("=")
    parts = head.rsplit(None, 1)
    if len(parts) != 2 or _IDENT.fullmatch(parts[1]) is None:
        raise _fail(f"argument {piece!r} needs a type and a name", where)
    type_, alias, on_element = _parse_type(parts[0], where)
    default = _parse_default(default_text.strip(), type_, where) if eq else NO_DEFAULT
    return Argument(parts[1], type_, default, kwarg_only, alias, on_element)


def _parse_return(piece: str, where: str) -> Return:
    parts = piece.rsplit(None, 1)
    name = None
    if len(parts) == 2 and _IDENT.fullmatch(parts[1]) is not None:
        piece, name = parts
    type_, alias, on_element = _parse_type(piece, where)
    return Return(name, type_, alias, on_element)


def parse_schema(text: str) -> FunctionSchema:
    """Parse ``[ns::]name[.overload](args) -> returns``; raises ValueError on malformed text."""
    s = text.strip()
    lp = s.find("(")
    if lp < 0:
        raise _fail("missing argument list", text)
    m = _NAME.fullmatch(s[:lp].strip())
    if m is None:
        raise _fail(f"bad operator name {s[:lp].strip()!r}", text)
    namespace, name, overload = m.group(1) or "aten", m.group(2), m.group(3) or ""
    pieces, rp = _group(s, lp, text)
    tail = s[rp + 1 :].lstrip()
    if not tail.startswith("->"):
        raise _fail(f"expected '->' before {tail!r}", text)

    arguments: list[Argument] = []
    kwarg_only = False
    for piece in pieces if s[lp + 1 : rp].strip() else ():
        piece = piece.strip()
        if piece == "*" and not kwarg_only:
            kwarg_only = True
        elif piece == "...":
            raise _fail("varargs '...' are not supported", text)
        else:
            arguments.append(_parse_argument(piece, kwarg_only, text))
    names = [a.name for a in arguments]
    if len(set(names)) != len(names):
        raise _fail("duplicate argument name", text)

    ret = tail[2:].strip()
    if not ret or ret == "...":
        raise _fail(f"bad return list {ret!r}", text)
    pieces = [ret]
    if ret.startswith("("):
        group, end = _group(ret, 0, text)
        if end == len(ret) - 1:
            pieces = group if ret[1:-1].strip() else []
    returns = tuple(_parse_return(p.strip(), text) for p in pieces)
    return FunctionSchema(namespace, name, overload, tuple(arguments), returns, m.group(1) is not None)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def bind(schema: FunctionSchema, args: tuple, kwargs: dict, *, fname: str | None = None) -> list:
    """Match a call to ``schema``: all argument values in schema order, defaults filled in.

    Raises TypeError worded like PyTorch's Python argument parser. Values are not type-checked.
    """
    fname = schema.name if fname is None else fname
    params = schema.arguments
    n_pos = next((i for i, a in enumerate(params) if a.kwarg_only), len(params))
    given = len(args)
    if given > n_pos:
        n_req = sum(1 for a in params[:n_pos] if a.default is NO_DEFAULT)
        were = "was" if given == 1 else "were"
        if n_req == n_pos:
            takes = _plural(n_pos, "positional argument")
        else:
            takes = f"from {n_req} to {n_pos} positional arguments"
        raise TypeError(f"{fname}() takes {takes} but {given} {were} given")
    values = [*args, *([_MISSING] * (len(params) - given))]
    for key, value in kwargs.items() if kwargs else ():
        i = next((j for j, a in enumerate(params) if a.name == key), -1)
        if i < 0:
            raise TypeError(f"{fname}() got an unexpected keyword argument '{key}'")
        if i < given:
            raise TypeError(f"{fname}() got multiple values for argument '{key}'")
        values[i] = value
    missing_pos: list[str] = []
    missing_kw: list[str] = []
    for i in range(given, len(params)):
        if values[i] is _MISSING:
            a = params[i]
            d = a.default
            if d is NO_DEFAULT:
                (missing_kw if a.kwarg_only else missing_pos).append(a.name)
            else:
                # Copy list defaults so a kernel mutating its argument cannot corrupt the schema.
                values[i] = list(d) if isinstance(d, list) else d
    for missing, kind in ((missing_pos, "positional"), (missing_kw, "keyword-only")):
        if missing:
            names = ", ".join(f'"{m}"' for m in missing)
            what = _plural(len(missing), f"required {kind} argument")
            raise TypeError(f"{fname}() missing {what}: {names}")
    return values


def _equals_default(value: object, default: object) -> bool:
    # Like c10's IValue equality: types must match (an int 2 is not a float 2.0, 0 is not False),
    # and == is never called on tensors or arrays (elementwise, truth value ambiguous).
    if value is default:
        return True
    if value is None or default is None or isinstance(value, bool) or isinstance(default, bool):
        return False  # None and bools only ever match by identity
    if isinstance(value, (list, tuple)):
        if not isinstance(default, (list, tuple)) or len(value) != len(default):
            return False
        return all(_equals_default(v, d) for v, d in zip(value, default, strict=True))
    if isinstance(value, str) or isinstance(default, str):
        return isinstance(value, str) and isinstance(default, str) and value == default
    if isinstance(value, int) and isinstance(default, int):
        return value == default
    if isinstance(value, float) and isinstance(default, float):
        return value == default or (value != value and default != default)
    return False


def dispatch_plan(schema: FunctionSchema) -> tuple:
    """What normalize_for_dispatch needs, computed once per op (numtorch.utils._python_dispatch
    caches it on the OpOverload): the number of positional arguments, each positional default,
    the keyword-only (index, name, default) triples, the int[N] arguments as (index, N) and the
    number of leading positional arguments that are always passed (up to the last required)."""
    params = schema.arguments
    n_pos = next((i for i, a in enumerate(params) if a.kwarg_only), len(params))
    kw = tuple((i, a.name, a.default) for i, a in enumerate(params) if i >= n_pos)
    # a bare int given for an int[N] / SymInt[N] argument reaches a handler as a list of N copies
    # (N=1 when unsized) and a tuple as a list, as PyTorch's IntArrayRef conversion does
    lists = tuple(
        (i, a.list_size or 1)
        for i, a in enumerate(params)
        if _element_type(a.type) in ("int", "SymInt") and a.type.removesuffix("?").endswith("]")
    )
    req = max((i + 1 for i, a in enumerate(params[:n_pos]) if a.default is NO_DEFAULT), default=0)
    return n_pos, tuple(a.default for a in params[:n_pos]), kw, lists, req


def normalize_for_dispatch(schema: FunctionSchema, values: list, plan: tuple | None = None) -> tuple[tuple, dict]:
    """Split ``bind``'s value list into the (args, kwargs) that ``__torch_dispatch__`` receives.

    Keyword-only values are passed by name unless equal to their default; positional values are
    passed positionally, minus the trailing run of those equal to their defaults.
    """
    if len(values) != len(schema.arguments):
        raise ValueError(f"expected {len(schema.arguments)} values for {schema.name}, got {len(values)}")
    n_pos, defaults, kw, lists, req = (dispatch_plan(schema) if plan is None else plan)[:5]
    if lists:
        values = list(values)
        for i, n in lists:
            v = values[i]
            if v.__class__ is int:
                values[i] = [v] * n
            elif v.__class__ is tuple:
                values[i] = list(v)
    end = n_pos
    # the identity test first: most values equal to their default are the default object itself
    while end > req and (values[end - 1] is defaults[end - 1] or _equals_default(values[end - 1], defaults[end - 1])):
        end -= 1
    kwargs = {}
    for i, name, d in kw:
        v = values[i]
        if v is not d and not _equals_default(v, d):
            kwargs[name] = v
    return tuple(values[:end]) if end < len(values) else tuple(values), kwargs
