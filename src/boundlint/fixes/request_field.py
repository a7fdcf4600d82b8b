"""BND201 ``request-field``: the model framework's own size cap on an uncapped request collection.

Forms (the part of the fix kind after ``:``, the model kind the rule judged):
- ``pydantic``: ``max_length=N`` (v1 ``max_items=N``) added to the field's ``Field(...)``, to a
  ``conlist`` / ``conset`` in its type, or to a ``Field`` in its ``Annotated[...]``; else the field
  gets ``= Field(max_length=N)`` (no default) or its type ``Annotated[..., Field(max_length=N)]``
  (a default kept as written); a ``RootModel[list[X]]`` base becomes ``RootModel[Annotated[list[X],
  Field(max_length=N)]]``.  pydantic v1 has no cap on a mapping: not fixable.
- ``msgspec``: ``Annotated[list[X], Meta(max_length=N)]``, merged into an existing ``Meta``.
- ``typeddict``: ``Annotated[list[X], Field(max_length=N)]`` (pydantic, as FastAPI validates it).
- ``attrs``: ``validators.max_len(N)`` added to the field's ``validator=``.
- ``marshmallow``: ``validate.Length(max=N)`` added to ``validate=``.
- ``drf``: ``max_length=N`` on a ``ListField``, ``ListSerializer`` or nested serializer (``many=True``);
  ``DictField`` and related fields take no cap: not fixable.
- ``dataclass``: ``__post_init__`` rejects a longer value (``rejects.py``).
Every form is ``unsafe``: a cap makes the server reject a request it used to accept.
"""
from __future__ import annotations

import libcst as cst

from boundlint.fixes import nodes as n
from boundlint.fixes.imports import reference
from boundlint.fixes.model import Plan
from boundlint.fixes.site import Site

_TYPING = ("typing", "typing_extensions")
_CON = ("conlist", "conset", "confrozenset")
_MAPPINGS = ("dict", "Dict", "Mapping", "MutableMapping", "DefaultDict", "OrderedDict", "Json")
_WRAPPERS = ("NotRequired", "Required", "ReadOnly")


def plan(site: Site) -> Plan | None:
    """The ``Plan`` capping the field at the finding's span; None when its form cannot be capped."""
    form = site.form
    stmt = site.first(cst.AnnAssign, cst.Assign)
    if stmt is None:
        if form == "pydantic" and site.nodes and isinstance(site.module.parent(site.nodes[-1]), cst.Index):
            return _root_model(site, site.nodes[-1])  # RootModel[list[X]]: the type in the base
        return None
    line = site.enclosing(stmt, cst.SimpleStatementLine)
    if line is None:
        return None
    if form == "dataclass":
        from boundlint.fixes.rejects import dataclass_plan

        return dataclass_plan(site, stmt)
    found = _FORMS.get(form)
    made = found(site, stmt) if found else None
    if made is None:
        return None
    title, node, fn, imports = made
    chosen = site.numbers.max_items_chosen
    return Plan(title, {id(node): fn, id(line): lambda updated: n.noted(updated, chosen)}, imports)


def _name(stmt) -> str:
    target = stmt.target if isinstance(stmt, cst.AnnAssign) else stmt.targets[0].target
    return n.dotted(target) or "field"


def _ref(site: Site, sources: tuple[str, ...], name: str, imports: list) -> str | None:
    found = reference(site.module.node, sources, name)
    if found is None:
        return None
    if found[1] is not None:
        imports.append(found[1])
    return found[0]


_V2_ONLY = ("field_validator", "model_validator", "ConfigDict", "RootModel", "model_config", "model_dump",
            "model_validate", "AfterValidator", "BeforeValidator", "TypeAdapter", "computed_field")
_V1_ONLY = ("max_items=", "min_items=", "orm_mode", "root_validator", "import validator", ", validator",
            "__root__", "class Config:", "parse_obj")


def _pydantic_v1(site: Site) -> bool:
    """The module is written for pydantic 1.x: it imports ``pydantic.v1``, or uses what only v1 has and
    nothing only v2 has (a v2 module may keep a deprecated v1 spelling)."""
    text = site.module.text
    if "pydantic.v1" in text:
        return True
    return not any(word in text for word in _V2_ONLY) and any(word in text for word in _V1_ONLY)


def _members(ann: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The types of a union (``X | None``, ``Optional[X]``, ``Union[X, None]``), else ``[ann]``."""
    if isinstance(ann, cst.BinaryOperation) and isinstance(ann.operator, cst.BitOr):
        return _members(ann.left) + _members(ann.right)
    if isinstance(ann, cst.Subscript) and n.short(ann.value) in ("Optional", "Union"):
        return [m for el in ann.slice if isinstance(el.slice, cst.Index) for m in _members(el.slice.value)]
    return [ann]


def _collection(ann: cst.BaseExpression) -> cst.BaseExpression | None:
    """The one collection type in *ann* once ``None`` is set aside (``list[X]`` of ``list[X] | None``)."""
    found = [m for m in _members(ann) if not (isinstance(m, cst.Name) and m.value == "None")]
    return found[0] if len(found) == 1 else None


def _head(node: cst.BaseExpression | None) -> str:
    if isinstance(node, cst.Subscript):
        return n.short(node.value)
    if isinstance(node, cst.Call):
        return n.short(node.func)
    return n.short(node)


def _metadata_call(ann: cst.Subscript, name: str) -> cst.Call | None:
    for el in list(ann.slice)[1:]:
        value = el.slice.value if isinstance(el.slice, cst.Index) else None
        if isinstance(value, cst.Call) and n.short(value.func) == name:
            return value
    return None


def _wrap(site: Site, ann: cst.BaseExpression, meta_code: str, meta_name: str, cap: str, imports: list):
    """``(node, fn)`` putting ``meta_code`` on the collection of *ann*: merged into an ``Annotated``
    metadata call named *meta_name*, appended to an ``Annotated``, or a new ``Annotated`` around the
    collection; None when the module cannot name ``Annotated``."""
    if isinstance(ann, cst.Subscript) and n.short(ann.value) == "Annotated":
        call = _metadata_call(ann, meta_name)
        if call is not None:
            return call, lambda updated: n.with_kwarg(updated, cap, n.expr(str(site.numbers.max_items)))
        return ann, lambda updated: n.with_element(updated, n.expr(meta_code))
    target = _collection(ann)
    if target is None:
        return None
    annotated = _ref(site, _TYPING, "Annotated", imports)
    if annotated is None:
        return None
    return target, lambda updated: n.annotated(updated, n.expr(meta_code), annotated)


def _pydantic(site: Site, stmt):
    if not isinstance(stmt, cst.AnnAssign):
        return None
    v1 = _pydantic_v1(site)
    cap = "max_items" if v1 else "max_length"
    ann, value, count = stmt.annotation.annotation, stmt.value, site.numbers.max_items
    target = _collection(ann)
    if v1 and _head(target) in _MAPPINGS or "Json" in n.code(ann):
        return None  # pydantic 1.x caps no mapping; Json[...] validates the decoded value elsewhere
    title = f"Cap `{_name(stmt)}` at {count} items: `{cap}={count}`"
    imports: list = []
    if isinstance(target, cst.Call) and n.short(target.func) in _CON:
        return title, target, lambda updated: n.with_kwarg(updated, cap, n.expr(str(count))), imports
    if isinstance(value, cst.Call) and n.short(value.func) == "Field":
        return title, value, lambda updated: n.with_kwarg(updated, cap, n.expr(str(count))), imports
    source = ("pydantic.v1", "pydantic") if "pydantic.v1" in site.module.text else ("pydantic",)
    field = _ref(site, source, "Field", imports)
    if field is None:
        return None
    meta = f"{field}({cap}={count})"
    if value is None and not (isinstance(ann, cst.Subscript) and n.short(ann.value) == "Annotated"):
        return title, stmt, lambda updated: updated.with_changes(
            value=n.expr(meta), equal=cst.AssignEqual()), imports
    wrapped = _wrap(site, ann, meta, "Field", cap, imports)
    return None if wrapped is None else (title, *wrapped, imports)


def _root_model(site: Site, node: cst.BaseExpression) -> Plan | None:
    imports: list = []
    v1 = _pydantic_v1(site)
    if v1 or _head(node) in ("Json",):
        return None
    count = site.numbers.max_items
    field = _ref(site, ("pydantic",), "Field", imports)
    if field is None:
        return None
    wrapped = _wrap(site, node, f"{field}(max_length={count})", "Field", "max_length", imports)
    if wrapped is None:
        return None
    return Plan(f"Cap the root at {count} items: `Field(max_length={count})`", {id(wrapped[0]): wrapped[1]}, imports)


def _msgspec(site: Site, stmt):
    if not isinstance(stmt, cst.AnnAssign):
        return None
    imports: list = []
    meta = _ref(site, ("msgspec",), "Meta", imports)
    if meta is None:
        return None
    count = site.numbers.max_items
    wrapped = _wrap(site, stmt.annotation.annotation, f"{meta}(max_length={count})", "Meta", "max_length", imports)
    if wrapped is None:
        return None
    return f"Cap `{_name(stmt)}` at {count} items: `Meta(max_length={count})`", *wrapped, imports


def _typeddict(site: Site, stmt):
    if not isinstance(stmt, cst.AnnAssign):
        return None
    imports: list = []
    ann = stmt.annotation.annotation
    while isinstance(ann, cst.Subscript) and n.short(ann.value) in _WRAPPERS and len(ann.slice) == 1 \
            and isinstance(ann.slice[0].slice, cst.Index):
        ann = ann.slice[0].slice.value  # NotRequired[list[X]]: the cap goes inside
    field = _ref(site, ("pydantic",), "Field", imports)
    if field is None:
        return None
    count = site.numbers.max_items
    wrapped = _wrap(site, ann, f"{field}(max_length={count})", "Field", "max_length", imports)
    if wrapped is None:
        return None
    return f"Cap `{_name(stmt)}` at {count} items: `Field(max_length={count})`", *wrapped, imports


def _validator_added(call: cst.Call, keyword: str, new: cst.BaseExpression) -> cst.Call:
    """*call* with *new* among its ``keyword=`` validators: the keyword added, appended to its list, or
    the single validator made a list of two."""
    arg = n.kwarg(call, keyword)
    if arg is None:
        return n.with_kwarg(call, keyword, new)
    if isinstance(arg.value, cst.List):
        elements = list(arg.value.elements)
        if elements and elements[-1].comma == cst.MaybeSentinel.DEFAULT:
            elements[-1] = elements[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        return n.with_kwarg(call, keyword, arg.value.with_changes(elements=[*elements, cst.Element(new)]))
    both = cst.List([cst.Element(arg.value, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))), cst.Element(new)])
    return n.with_kwarg(call, keyword, both)


def _attrs(site: Site, stmt):
    imports: list = []
    count = site.numbers.max_items
    cls = site.enclosing(stmt, cst.ClassDef)
    legacy = cls is not None and any(
        n.dotted(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator) in
        ("attr.s", "attr.attrs", "attrs", "s") for d in cls.decorators)
    validators = _ref(site, ("attr", "attrs") if legacy else ("attrs", "attr"), "validators", imports)
    if validators is None:
        return None
    check = n.expr(f"{validators}.max_len({count})")
    title = f"Cap `{_name(stmt)}` at {count} items: `validators.max_len({count})`"
    value = stmt.value
    if isinstance(value, cst.Call) and n.short(value.func) in ("field", "ib", "attrib"):
        return title, value, lambda updated: _validator_added(updated, "validator", check), imports
    if not isinstance(stmt, cst.AnnAssign):
        return None
    maker = _ref(site, ("attr",), "ib", imports) if legacy else _ref(site, ("attrs",), "field", imports)
    if maker is None:
        return None
    if value is None:
        return title, stmt, lambda updated: updated.with_changes(
            value=n.expr(f"{maker}(validator={n.code(check)})"), equal=cst.AssignEqual()), imports
    return title, value, lambda updated: n.with_kwarg(
        n.with_kwarg(cst.Call(n.expr(maker)), "default", updated), "validator", check), imports


def _marshmallow(site: Site, stmt):
    value = stmt.value
    if not isinstance(value, cst.Call):
        return None
    imports: list = []
    validate = _ref(site, ("marshmallow",), "validate", imports)
    if validate is None:
        return None
    count = site.numbers.max_items
    check = n.expr(f"{validate}.Length(max={count})")
    return (f"Cap `{_name(stmt)}` at {count} items: `validate.Length(max={count})`", value,
            lambda updated: _validator_added(updated, "validate", check), imports)


def _drf(site: Site, stmt):
    value = stmt.value
    if not isinstance(value, cst.Call):
        return None
    head = n.short(value.func)
    many = n.kwarg(value, "many")
    nested = head.endswith("Serializer") and many is not None and n.dotted(many.value) == "True"
    if head not in ("ListField", "ListSerializer") and not nested:
        return None  # DictField and related fields (many=True) take no max_length
    count = site.numbers.max_items
    return (f"Cap `{_name(stmt)}` at {count} items: `max_length={count}`", value,
            lambda updated: n.with_kwarg(updated, "max_length", n.expr(str(count))), [])


_FORMS = {"pydantic": _pydantic, "msgspec": _msgspec, "typeddict": _typeddict, "attrs": _attrs,
          "marshmallow": _marshmallow, "drf": _drf}
