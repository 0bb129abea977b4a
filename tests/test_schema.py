"""Operator schema parsing, printing, call binding and dispatch normalisation."""

from __future__ import annotations

import copy
import math
import pickle
import time

import numpy as np
import pytest

from numtorch._schema import (
    NO_DEFAULT,
    Argument,
    FunctionSchema,
    Return,
    bind,
    normalize_for_dispatch,
    parse_schema,
)

FACTORY = (
    "*, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None"
)

# Texts already in PyTorch's canonical spelling: printing gives them back verbatim. Identifier
# defaults (`Mean`, `contiguous_format`) stay as written where PyTorch would print enum values,
# and `inf` defaults, which PyTorch's own parser rejects, print as `inf`.
CANONICAL = [
    "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
    "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
    (
        "sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None)"
        " -> Tensor"
    ),
    "max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
    "view(Tensor(a) self, SymInt[] size) -> Tensor(a)",
    "split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]",
    "cat(Tensor[] tensors, int dim=0) -> Tensor",
    f"rand(SymInt[] size, {FACTORY}) -> Tensor",
    f"ones_like(Tensor self, {FACTORY}, MemoryFormat? memory_format=None) -> Tensor",
    (
        "std.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None,"
        " bool keepdim=False) -> Tensor"
    ),
    "norm.ScalarOpt_dim(Tensor self, Scalar? p, int[1] dim, bool keepdim=False) -> Tensor",
    "clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor",
    "div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor",
    "mylib::foo(Tensor x, float y=0.5, *, bool flag=False) -> Tensor",
    "nan_to_num(Tensor self, float? nan=None, float? posinf=None, float? neginf=None) -> Tensor",
    f"empty.memory_format(SymInt[] size, {FACTORY}, MemoryFormat? memory_format=None) -> Tensor",
    f"full(SymInt[] size, Scalar fill_value, {FACTORY}) -> Tensor",
    (
        "max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0,"
        " int[2] dilation=1, bool ceil_mode=False) -> Tensor"
    ),
    (
        'linalg_matrix_norm.str_ord(Tensor self, str ord="fro", int[] dim=[-2, -1],'
        " bool keepdim=False, *, ScalarType? dtype=None) -> Tensor"
    ),
    "rot90(Tensor self, int k=1, int[] dims=[0, 1]) -> Tensor",
    (
        "unsafe_split_with_sizes.out(Tensor self, SymInt[] split_sizes, int dim=0, *,"
        " Tensor(a!)[] out) -> ()"
    ),
    "sorted.Tensor(Tensor[](a) input) -> Tensor[]",
    "cpu(Tensor(a) self) -> Tensor(b|a)",
    "_unwrap_optional(t(a)? optional) -> t(a)",
    "items.Tensor(Dict(Tensor, t) self) -> ((Tensor, t)[])",
    "setdefault.str(Dict(str, t)(a!) self, str(b -> *) key, t(c -> *) default_value) -> t(*)",
    "dict.str((str, tVal)[] inputs) -> Dict(str, tVal)",
    "wait(Future(t) self) -> t",
    "index.Tensor(Tensor self, Tensor?[] indices) -> Tensor",
    "log_normal(Tensor self, float mean=1., float std=2., *, Generator? generator=None) -> Tensor",
    'strip(str self, str chars=" \\n\\t\\f\\v") -> str',
    (
        "cross_entropy_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=Mean,"
        " SymInt ignore_index=-100, float label_smoothing=0.5) -> Tensor"
    ),
    "empty_like(Tensor self, MemoryFormat memory_format=contiguous_format) -> Tensor",
    "renorm(Tensor self, float p=inf, float q=-inf) -> Tensor",
    "_make_dep_token(*, ScalarType? dtype=None) -> Tensor",
    "warn(str message, int stacklevel=2) -> ()",
]

# (input text, what PyTorch prints for it): defaults are reformatted from their values.
REFORMATTED = [
    (
        (
            "layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None,"
            " Tensor? bias=None, float eps=1e-05, bool cudnn_enable=True) -> Tensor"
        ),
        (
            "layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None,"
            " Tensor? bias=None, float eps=1.0000000000000001e-05, bool cudnn_enable=True)"
            " -> Tensor"
        ),
    ),
    ("f(int[1] dim=[0,1]) -> Tensor", "f(int[1] dim=[0, 1]) -> Tensor"),
    ("f(float label_smoothing=0.0) -> Tensor", "f(float label_smoothing=0.) -> Tensor"),
    ("f(float p=2) -> Tensor", "f(float p=2.) -> Tensor"),
    ("f(int[2] stride=[1,1]) -> Tensor", "f(int[2] stride=1) -> Tensor"),
    ("f(SymInt[2] stride=1) -> Tensor", "f(SymInt[2] stride=[1, 1]) -> Tensor"),
    ("f(str s='a\"b') -> Tensor", 'f(str s="a\\"b") -> Tensor'),
    ("f(Tensor?(a!) x) -> (Tensor)", "f(Tensor(a!)? x) -> Tensor"),
    ("f(Tensor(a->*) x) -> Tensor(a)[]", "f(Tensor(a -> *) x) -> Tensor(a)[]"),
    (
        "aten::f.out( Tensor x ,*,Tensor(a!) out )->Tensor(a!)",
        "aten::f.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)",  # the namespace given is printed
    ),
    ("f(Tensor x, *) -> Tensor", "f(Tensor x) -> Tensor"),
    ("f(float x=0.1) -> Tensor", "f(float x=0.10000000000000001) -> Tensor"),
    (
        "f(float x=1e16, float y=1e20) -> Tensor",
        "f(float x=10000000000000000., float y=1e+20) -> Tensor",
    ),
]


def s(text: str) -> FunctionSchema:
    return parse_schema(text)


@pytest.mark.parametrize("text", CANONICAL)
def test_canonical_text_round_trips(text):
    schema = parse_schema(text)
    assert str(schema) == text
    assert parse_schema(str(schema)) == schema


@pytest.mark.parametrize(("text", "printed"), REFORMATTED)
def test_printing_matches_pytorch_canonical_form(text, printed):
    schema = parse_schema(text)
    assert str(schema) == printed
    assert parse_schema(printed) == schema


def test_add_tensor_fields():
    schema = s("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor")
    assert (schema.namespace, schema.name, schema.overload_name) == ("aten", "add", "Tensor")
    assert schema.arguments == (
        Argument("self", "Tensor", NO_DEFAULT, False, None),
        Argument("other", "Tensor", NO_DEFAULT, False, None),
        Argument("alpha", "Scalar", 1, True, None),
    )
    assert type(schema.arguments[2].default) is int
    assert schema.returns == (Return(None, "Tensor", None),)
    assert not schema.is_mutable and not schema.is_inplace and not schema.returns_tuple
    assert schema.out_arguments == ()
    assert [a.name for a in schema.positional] == ["self", "other"]
    assert [a.name for a in schema.kwarg_only] == ["alpha"]


def test_out_and_inplace_overloads():
    out = s("add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)")
    o = out.arguments[3]
    assert (o.name, o.type, o.alias, o.kwarg_only) == ("out", "Tensor", "a!", True)
    assert o.is_write and o.is_out and o.is_tensor and not o.has_default
    assert out.out_arguments == (o,)
    assert out.is_mutable and not out.is_inplace
    assert out.returns == (Return(None, "Tensor", "a!"),)
    assert out.returns[0].is_write

    inplace = s("add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)")
    assert inplace.is_inplace and inplace.is_mutable
    assert inplace.arguments[0].is_write and not inplace.arguments[0].is_out
    assert inplace.out_arguments == ()
    assert not s("__iand__.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)").is_inplace


def test_sum_dim_intlist_fields():
    schema = s(CANONICAL[3])
    dim, keepdim, dtype = schema.arguments[1:]
    assert (dim.type, dim.default, dim.list_size, dim.is_optional) == (
        "int[1]?",
        NO_DEFAULT,
        1,
        True,
    )
    assert not dim.has_default and not dim.kwarg_only
    assert (keepdim.default, keepdim.kwarg_only) == (False, False)
    assert (dtype.type, dtype.default, dtype.kwarg_only) == ("ScalarType?", None, True)
    assert dtype.has_default and dtype.is_optional and not dtype.is_tensor


def test_tuple_returns_and_views():
    mx = s("max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)")
    assert mx.returns == (Return("values", "Tensor", None), Return("indices", "Tensor", None))
    assert mx.returns_tuple

    view = s("view(Tensor(a) self, SymInt[] size) -> Tensor(a)")
    assert view.arguments[0].alias == "a" and not view.arguments[0].is_write
    assert view.arguments[1].type == "SymInt[]" and view.arguments[1].list_size is None
    assert not view.is_mutable

    split = s("split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]")
    assert split.arguments[0].alias == "a -> *"
    assert split.returns == (Return(None, "Tensor[]", "a", True),)
    assert [a.default for a in split.arguments] == [NO_DEFAULT, NO_DEFAULT, 0]


def test_list_and_alias_placement():
    cat = s("cat(Tensor[] tensors, int dim=0) -> Tensor")
    assert cat.arguments[0].is_tensor_list and not cat.arguments[0].is_tensor
    index = s("index.Tensor(Tensor self, Tensor?[] indices) -> Tensor")
    assert index.arguments[1].type == "Tensor?[]" and index.arguments[1].is_tensor_list
    assert not index.arguments[1].is_optional

    split_out = s(CANONICAL[21])
    out = split_out.arguments[3]
    assert (out.type, out.alias, out.alias_on_element, out.is_out) == ("Tensor[]", "a!", True, True)
    assert split_out.returns == ()
    assert not split_out.returns_tuple

    sorted_ = s("sorted.Tensor(Tensor[](a) input) -> Tensor[]")
    a = sorted_.arguments[0]
    assert (a.type, a.alias, a.alias_on_element) == ("Tensor[]", "a", False)
    assert a != Argument("input", "Tensor[]", NO_DEFAULT, False, "a", True)

    opt = s("f(Tensor?(a!) x, Tensor(b!)? y) -> ()").arguments
    assert [(x.type, x.alias, x.is_write, x.is_tensor) for x in opt] == [
        ("Tensor?", "a!", True, True),
        ("Tensor?", "b!", True, True),
    ]


def test_generic_and_container_types():
    d = s("setdefault.str(Dict(str, t)(a!) self, str(b -> *) key, t(c -> *) default_value) -> t(*)")
    assert [(a.type, a.alias) for a in d.arguments] == [
        ("Dict(str, t)", "a!"),
        ("str", "b -> *"),
        ("t", "c -> *"),
    ]
    assert d.returns == (Return(None, "t", "*"),)
    items = s("items.Tensor(Dict(Tensor, t) self) -> ((Tensor, t)[])")
    assert items.returns == (Return(None, "(Tensor, t)[]", None),)
    assert s("cpu(Tensor(a) self) -> Tensor(b|a)").returns[0].alias == "b|a"
    assert s("wait(Future(t) self) -> t").arguments[0] == Argument(
        "self", "Future(t)", NO_DEFAULT, False, None
    )


def test_factory_and_namespaced():
    rand = s(f"rand(SymInt[] size, {FACTORY}) -> Tensor")
    assert [a.name for a in rand.kwarg_only] == ["dtype", "layout", "device", "pin_memory"]
    assert [a.default for a in rand.kwarg_only] == [None] * 4
    assert rand.arguments[4].type == "bool?"

    foo = s("mylib::foo(Tensor x, float y=0.5, *, bool flag=False) -> Tensor")
    assert (foo.namespace, foo.name, foo.overload_name) == ("mylib", "foo", "")
    assert [(a.name, a.default, a.kwarg_only) for a in foo.arguments] == [
        ("x", NO_DEFAULT, False),
        ("y", 0.5, False),
        ("flag", False, True),
    ]
    assert str(foo).startswith("mylib::foo(")
    assert str(s("aten::foo(Tensor x) -> Tensor")) == "aten::foo(Tensor x) -> Tensor"  # as torch._C.parse_schema
    assert str(s("foo(Tensor x) -> Tensor")) == "foo(Tensor x) -> Tensor"
    assert s("prims::var.out(Tensor x) -> Tensor").namespace == "prims"


@pytest.mark.parametrize(
    ("decl", "value"),
    [
        ("int dim=-1", -1),
        ("SymInt ignore_index=-100", -100),
        ("float eps=1e-05", 1e-05),
        ("float label_smoothing=0.0", 0.0),
        ("float p=2", 2.0),
        ("float? p=2", 2),
        ("Scalar beta=1", 1),
        ("Scalar beta=1.", 1.0),
        ("float p=inf", math.inf),
        ("float p=-inf", -math.inf),
        ("bool? x=None", None),
        ("bool x=True", True),
        ('str reduction="mean"', "mean"),
        ("str reduction='mean'", "mean"),
        ('str s=""', ""),
        ('str s="a\\nb\\\\c\\101"', "a\nb\\cA"),
        ("int reduction=Mean", "Mean"),
        ("MemoryFormat memory_format=contiguous_format", "contiguous_format"),
        ("ScalarType dtype=long", "long"),
        ("int[] dims=[]", []),
        ("int[1] dim=[0,1]", [0, 1]),
        ("int[2] stride=1", [1, 1]),
        ("int[3] padding=0", [0, 0, 0]),
        ("int[2]? pad=1", [1, 1]),
        ("bool[3] mask=[True, False, True]", [True, False, True]),
        ("float[] w=[1, 2.5]", [1.0, 2.5]),
    ],
)
def test_default_values(decl, value):
    arg = s(f"f({decl}) -> Tensor").arguments[0]
    assert arg.default == value
    assert type(arg.default) is type(value)
    if isinstance(value, list):
        assert [type(v) for v in arg.default] == [type(v) for v in value]


def test_nan_default_compares_equal_after_round_trip():
    schema = s("f(float p=nan) -> Tensor")
    assert math.isnan(schema.arguments[0].default)
    assert str(schema) == "f(float p=nan) -> Tensor"
    assert parse_schema(str(schema)) == schema


def test_no_default_sentinel_and_hashing():
    assert repr(NO_DEFAULT) == "NO_DEFAULT"
    assert copy.deepcopy(NO_DEFAULT) is NO_DEFAULT
    assert pickle.loads(pickle.dumps(NO_DEFAULT)) is NO_DEFAULT
    a = s("amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor")
    b = s("amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor")
    assert a == b and hash(a) == hash(b)
    assert {a: 1}[b] == 1
    assert a != s("amax(Tensor self, int[1] dim=[0], bool keepdim=False) -> Tensor")


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("add.Tensor(Tensor self, Tensor other -> Tensor", "unbalanced"),
        ("add(Tensor self) Tensor", "expected '->'"),
        ("add(Tensor self) ->", "bad return list"),
        ("add(Tensor self) -> (Tensor,)", "bad type ''"),
        ("add(Tensor) -> Tensor", "'Tensor' needs a type and a name"),
        ("add(Tensor self, Tensor self) -> Tensor", "duplicate argument"),
        ("(Tensor self) -> Tensor", "bad operator name ''"),
        ("1add(Tensor self) -> Tensor", "bad operator name '1add'"),
        ("add.(Tensor self) -> Tensor", "bad operator name 'add.'"),
        ("add Tensor self", "missing argument list"),
        ("add(Tensor self=) -> Tensor", "empty default"),
        ("add(int[] x=[1, 2) -> Tensor", "unbalanced"),
        ("add(int x=1 2) -> Tensor", "bad default '1 2'"),
        ("add(Tensor(a self) -> Tensor", "unbalanced"),
        ("add(Tensor(a)(b) self) -> Tensor", "bad type 'Tensor(a)(b)'"),
        ("add(Tensor() self) -> Tensor", "bad alias"),
        ("add(Tensor(a -> ) self) -> Tensor", "bad alias"),
        ("add(int[x] a) -> Tensor", "bad type 'int[x]'"),
        ("add(Tensor% a) -> Tensor", "bad type 'Tensor%'"),
        ('add(str s="abc) -> Tensor', "unterminated string"),
        ("add(Tensor self, *, *, int x) -> Tensor", "'*' needs a type and a name"),
        ("add(Tensor self) -> Tensor junk more", "bad type 'Tensor junk'"),
        ("format(str self, ...) -> str", "varargs"),
    ],
)
def test_malformed_schema_raises(text, fragment):
    with pytest.raises(ValueError, match="invalid schema") as info:
        parse_schema(text)
    assert fragment in str(info.value)
    assert repr(text) in str(info.value)


ADD = "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
ADD_OUT = "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)"
SUM = CANONICAL[3]


def test_bind_fills_defaults_in_schema_order():
    t, o = np.zeros(2), np.ones(2)
    values = bind(s(ADD), (t, o), {})
    assert values[0] is t and values[1] is o and values[2] == 1
    assert len(values) == 3
    got = bind(s(ADD), (t,), {"alpha": 3, "other": o})
    assert got[0] is t and got[1] is o and got[2] == 3
    got = bind(s(ADD), (), {"other": o, "self": t})
    assert got[0] is t and got[1] is o and got[2] == 1
    assert bind(s(SUM), (t, [0]), {})[1:] == [[0], False, None]
    assert bind(s(SUM), (t,), {"dim": 1, "dtype": "f8", "keepdim": True})[1:] == [1, True, "f8"]
    pool = (
        "max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0) -> Tensor"
    )
    assert bind(s(pool), (t, 2), {})[1:] == [2, [], [0, 0]]


def test_bind_accepts_missing_kwargs_mapping():
    assert bind(s("f(int x, int y=3) -> Tensor"), (1,), None) == [1, 3]


def test_bind_copies_list_defaults():
    schema = s("f(int[2] padding=0) -> Tensor")
    values = bind(schema, (), {})
    values[0].append(9)
    assert schema.arguments[0].default == [0, 0]
    assert bind(schema, (), {}) == [[0, 0]]


def test_bind_out_variant():
    t, o, out = np.zeros(2), np.ones(2), np.empty(2)
    values = bind(s(ADD_OUT), (t, o), {"out": out})
    assert values[2] == 1 and values[3] is out
    with pytest.raises(TypeError) as info:
        bind(s(ADD_OUT), (t, o), {})
    assert str(info.value) == 'add() missing 1 required keyword-only argument: "out"'


@pytest.mark.parametrize(
    ("schema", "args", "kwargs", "message"),
    [
        (ADD, (1, 2), {"alpah": 2}, "add() got an unexpected keyword argument 'alpah'"),
        (ADD, (1, 2, 3), {}, "add() takes 2 positional arguments but 3 were given"),
        (
            "f(Tensor x) -> Tensor",
            (1, 2),
            {},
            "f() takes 1 positional argument but 2 were given",
        ),
        (
            SUM,
            (1, 2, 3, 4),
            {},
            "sum() takes from 2 to 3 positional arguments but 4 were given",
        ),
        ("f() -> Tensor", (1,), {}, "f() takes 0 positional arguments but 1 was given"),
        (ADD, (1,), {}, 'add() missing 1 required positional argument: "other"'),
        (ADD, (), {}, 'add() missing 2 required positional arguments: "self", "other"'),
        (ADD, (1, 2), {"other": 3}, "add() got multiple values for argument 'other'"),
        (ADD, (1,), {"self": 3}, "add() got multiple values for argument 'self'"),
    ],
)
def test_bind_errors(schema, args, kwargs, message):
    with pytest.raises(TypeError) as info:
        bind(s(schema), args, kwargs)
    assert str(info.value) == message


def test_bind_error_uses_fname():
    with pytest.raises(TypeError, match=r"^Tensor\.add\(\) got an unexpected keyword argument"):
        bind(s(ADD), (1, 2), {"beta": 1}, fname="Tensor.add")


def test_normalize_drops_trailing_positional_defaults():
    t = np.zeros(3)
    args, kwargs = normalize_for_dispatch(s(SUM), [t, [0], False, None])
    assert args[0] is t and args[1:] == ([0],) and len(args) == 2
    assert kwargs == {}
    args, kwargs = normalize_for_dispatch(s(SUM), [t, [0], True, None])
    assert args[1:] == ([0], True) and kwargs == {}
    # Only the right-most run is dropped: a default in the middle stays.
    clamp = s("clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor")
    assert normalize_for_dispatch(clamp, [t, None, 1.0])[0][1:] == (None, 1.0)
    assert len(normalize_for_dispatch(clamp, [t, None, None])[0]) == 1


def test_normalize_kwarg_only():
    t, o = np.zeros(2), np.ones(2)
    args, kwargs = normalize_for_dispatch(s(ADD), [t, o, 2])
    assert len(args) == 2 and kwargs == {"alpha": 2}
    assert normalize_for_dispatch(s(ADD), [t, o, 1])[1] == {}
    # IValue equality is typed, as in PyTorch: alpha=1.0 differs from the int default 1
    assert normalize_for_dispatch(s(ADD), [t, o, 1.0])[1] == {"alpha": 1.0}
    sum_dim = s(SUM)
    assert normalize_for_dispatch(sum_dim, [t, 1, False, None])[0][1:] == ([1],)
    assert normalize_for_dispatch(sum_dim, [t, (0, 1), True, None])[0][1:] == ([0, 1], True)
    pool = s("max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0) -> Tensor")
    assert normalize_for_dispatch(pool, [t, 2, [], 0])[0][1:] == ([2, 2],)
    rand = s(f"rand(SymInt[] size, {FACTORY}) -> Tensor")
    args, kwargs = normalize_for_dispatch(rand, [[2, 3], None, None, "cpu", False])
    assert args == ([2, 3],)
    assert kwargs == {"device": "cpu", "pin_memory": False}
    out = np.empty(2)
    args, kwargs = normalize_for_dispatch(s(ADD_OUT), [t, o, 1, out])
    assert list(kwargs) == ["out"] and kwargs["out"] is out
    div = s("div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor")
    assert normalize_for_dispatch(div, [t, o, None])[1] == {"rounding_mode": None}


def test_normalize_never_compares_arrays_with_defaults():
    schema = s("f(Tensor x, Tensor? w=None, int[1] dim=[], Scalar a=1, bool k=False) -> Tensor")
    w, dim, a = np.zeros(1), np.array([0]), np.ones(())
    args, kwargs = normalize_for_dispatch(schema, [np.zeros(2), w, dim, a, False])
    assert args[1] is w and args[2] is dim and args[3] is a and len(args) == 4
    assert kwargs == {}
    # bool and int are distinct even though 0 == False in Python.
    assert len(normalize_for_dispatch(schema, [1, None, [], 1, 0])[0]) == 5
    assert len(normalize_for_dispatch(schema, [1, None, [], True, False])[0]) == 4
    assert len(normalize_for_dispatch(schema, [1, None, (), 1, False])[0]) == 1
    nan = s("f(Tensor x, float p=nan) -> Tensor")
    assert normalize_for_dispatch(nan, [1, math.nan])[0] == (1,)
    ident = s("f(Tensor x, str r='mean', int reduction=Mean) -> Tensor")
    assert normalize_for_dispatch(ident, [1, "mean", "Mean"])[0] == (1,)
    assert normalize_for_dispatch(ident, [1, "mean", 1])[0] == (1, "mean", 1)


def test_normalize_rejects_wrong_length():
    with pytest.raises(ValueError, match="expected 3 values for add"):
        normalize_for_dispatch(s(ADD), [1, 2])


def test_bind_then_normalize_round_trip():
    t, o = np.zeros(2), np.ones(2)
    schema = s(ADD)
    args, kwargs = normalize_for_dispatch(schema, bind(schema, (t, o), {"alpha": 5}))
    values = bind(schema, args, kwargs)
    assert values[0] is t and values[1] is o and values[2] == 5


def test_parse_speed_is_import_friendly():
    texts = (CANONICAL * 11)[:400]
    start = time.perf_counter()
    for text in texts:
        parse_schema(text)
    # The budget is 20 ms; a 10x margin keeps this stable on loaded machines.
    assert time.perf_counter() - start < 0.2
