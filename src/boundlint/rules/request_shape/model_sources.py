"""BND201: where the data a model is filled from comes from (the request, another service's answer, a file).

Also which models a module builds itself (it sends or keeps them) and which
endpoint parameters a dependency computes.
"""
from __future__ import annotations

import re
from typing import Iterator

import libcst as cst

from boundlint import tables

from boundlint.analysis import models as m
from boundlint.analysis.context import Context

# Class methods that build a model instance from data: ``Model.model_validate(data)``.
_CONSTRUCTORS = frozenset({
    "model_validate", "model_validate_json", "model_validate_strings", "model_construct",
    "parse_obj", "parse_raw", "construct", "from_dict", "from_json",
})
# Instance methods that serialise a model: a model dumped where it is built is sent or stored.
_DUMPS = frozenset(tables.TABLES["serialisers"].entries)
# Functions that fill a type given as an argument from data.
_DECODERS = frozenset({
    "decode", "convert", "validate_python", "validate_json", "parse_obj_as", "structure", "from_dict", "cast",
})
# Methods of an HTTP client whose result is another service's answer, and words that name such a client.
_HTTP_VERBS = frozenset({"get", "post", "put", "patch", "delete", "head", "request", "send", "fetch", "stream"})
_CLIENT_WORDS = frozenset({"client", "session", "http", "https", "httpx", "requests", "api", "upstream", "stub"})
# Reading a file: configuration or fixtures the process loads, not a request.
_FILE = "<file>"
_FILE_READERS = frozenset({"open", "read_text", "read_bytes", "safe_load", "full_load"})
_FILE_MODULES = ("yaml.", "tomllib.", "tomli.", "toml.", "configparser.")
# Calls whose result is their argument's data, parsed.
_PARSERS = frozenset({
    "loads", "load", "decode", "parse", "parse_raw", "dict", "literal_eval",
    "validate_python", "validate_json", "model_validate", "model_validate_json", "convert", "parse_obj", "structure",
})
# Identifier words that name another service's answer (``response.json()``, ``resp_data``).
_RESPONSE_WORDS = frozenset({"response", "resp", "reply"})
_REQUEST_WORDS = frozenset({"request", "req"})
# Parameter markers whose argument is a callable that computes the value (FastAPI, Django Ninja, Litestar).
_DEPENDENCY_MARKERS = frozenset({"Depends", "Security", "Provide", "Dependency", "Inject"})
_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def _constructed(call: cst.Call, ctx: Context) -> str | None:
    """The same-module class *call* builds an instance of (``Model(...)``, ``Model.model_validate(...)``), or None."""
    func = call.func
    if type(func) is cst.Attribute and func.attr.value in _CONSTRUCTORS:
        func = func.value
    if type(func) is cst.Name and func.value in ctx.index.classes:
        return func.value
    return None


def _fills_from_data(call: cst.Call) -> bool:
    """``Model.model_validate(data)`` or ``Model(**data)``: the model is filled from a mapping, not put together
    from values (``Pair(request, telemetry)``)."""
    return type(call.func) is cst.Attribute or any(a.star == "**" for a in call.args)


def _built_here(call: cst.Call) -> bool:
    """The call fills the model from keywords or a dict literal: the module makes the data, nobody sends it in."""
    if not call.args:
        return False
    first = call.args[0]
    if first.keyword is not None:
        return True
    value = first.value
    if type(value) is cst.Call and type(value.func) is cst.Name and value.func.value == "dict":
        return bool(value.args) and all(a.keyword is not None for a in value.args)
    return type(value) is cst.Dict


def _words(identifier: str) -> set[str]:
    """Lower-case words of a snake_case or camelCase identifier."""
    return {w.lower() for w in _WORD.findall(identifier)}


def _data_source(call: cst.Call, ctx: Context) -> str | None:
    """``"response"`` when the decoded data is named as another service's answer (``response.json()``,
    ``resp_data``), ``"request"`` when named as the request being served (``await request.body()``), else None."""
    for arg in call.args:
        source = _data_source_of(arg.value, ctx)
        if source is not None:
            return source
    return None


def _data_source_of(expr: cst.BaseExpression, ctx: Context | None = None) -> str | None:
    """:func:`_data_source` for one expression."""
    for name in _data_roots(expr, ctx):
        if name == _FILE:
            return "file"
        words = _words(name)
        if words & _REQUEST_WORDS:
            return "request"
        if words & _RESPONSE_WORDS:
            return "response"
    return None


def _data_roots(expr: cst.BaseExpression, ctx: Context | None = None, depth: int = 0) -> Iterator[str]:
    """Names whose data *expr* reads: ``request`` in ``await request.json()``, ``resp`` in
    ``json.loads(resp.text)``; attribute and method names are not data (``config.transform_request()``),
    nor are the arguments of a call that makes new data (``await call_vendor(request_data)``), nor a
    function's name (``get_request_base_url(...)``).

    With *ctx*, a local name is followed to what it was bound to (``data = await request.json()``),
    and a call of an HTTP client (``await client.get(url)``, ``requests.post(...)``) reads as
    ``"response"``: another service's answer.
    """
    if depth > 10:
        return
    while isinstance(expr, (cst.Await, cst.Attribute, cst.Subscript)):
        expr = expr.expression if type(expr) is cst.Await else expr.value
    if type(expr) is cst.Name:
        bound = ctx.lookup(expr.value) if ctx is not None else None
        if bound is not None and bound[0].kind == "function" and len(bound[1]) == 1 and bound[1][0] is not None:
            # a local says where its data came from, whatever its name: request_data = {...} is made here
            yield from _data_roots(bound[1][0], ctx, depth + 1)
            return
        yield expr.value
        if ctx is not None and expr.value in ctx.scope.with_targets:  # async with session.get(url) as resp
            yield from _data_roots(ctx.scope.with_targets[expr.value], ctx, depth + 1)
    elif type(expr) is cst.Call:
        if type(expr.func) is cst.Attribute:
            yield from _data_roots(expr.func, ctx, depth + 1)  # request.json(): the receiver's data
        callee = expr.func.attr.value if type(expr.func) is cst.Attribute else getattr(expr.func, "value", "")
        if callee in _PARSERS:  # json.loads(resp.text): the argument's data; other calls make new data
            for arg in expr.args:
                yield from _data_roots(arg.value, ctx, depth + 1)
        elif ctx is not None and _http_call(expr, ctx):
            yield "response"
        elif callee in _FILE_READERS or (ctx is not None and (ctx.qualname(expr.func) or "").startswith(_FILE_MODULES)):
            yield _FILE  # open(path), Path(p).read_text(), yaml.safe_load(f): a file, not a request
    elif type(expr) is cst.Dict:
        for el in expr.elements:
            yield from _data_roots(el.value, ctx, depth + 1)


def _http_call(call: cst.Call, ctx: Context) -> bool:
    """``client.get(url)``, ``session.post(...)``, ``requests.get(...)``, ``httpx.post(...)``, ``urlopen(...)``."""
    func = call.func
    q = ctx.qualname(func) or ""
    if q.startswith(("requests.", "httpx.", "aiohttp.", "urllib.request.")):
        return True
    if type(func) is not cst.Attribute or func.attr.value not in _HTTP_VERBS:
        return False
    receiver = func.value
    while isinstance(receiver, (cst.Attribute, cst.Call)):
        receiver = receiver.func if type(receiver) is cst.Call else receiver.attr
    return type(receiver) is cst.Name and bool(_words(receiver.value) & _CLIENT_WORDS)


def _decoded(call: cst.Call, ctx: Context) -> list[str]:
    """Same-module classes a decoding call fills from data: ``msgspec.json.decode(b, type=X)``,
    ``msgspec.convert(d, X)``, ``TypeAdapter(X).validate_python(d)``, ``cattrs.structure(d, X)``,
    ``dacite.from_dict(data_class=X, data=d)``."""
    func = call.func
    if not isinstance(func, (cst.Attribute, cst.Name)):
        return []
    name = func.attr.value if type(func) is cst.Attribute else func.value
    if name not in _DECODERS:
        return []
    candidates = [a.value for a in call.args]
    maker = func.value if type(func) is cst.Attribute else None
    if type(maker) is cst.Name:  # order_decoder = msgspec.json.Decoder(Order); order_decoder.decode(...)
        bound = ctx.lookup(maker.value)
        maker = bound[1][-1] if bound is not None and bound[1] else None
    if type(maker) is cst.Call:
        candidates.extend(a.value for a in maker.args)  # TypeAdapter(X).validate_python(...), Decoder(X).decode(...)
    out = []
    for value in candidates:
        for ref in m.type_refs(value) if isinstance(value, (cst.Subscript, cst.Name)) else ():
            if ref in ctx.index.classes:
                out.append(ref)
    return out


def _injected(param: cst.Param, ctx: Context) -> bool:
    """The endpoint parameter's value comes from a dependency function (``Depends(current_user)``), not the request.

    ``Depends()`` and ``Depends(SomeModel)`` build the model from the request's
    query parameters, so they stay request input.
    """
    calls = [param.default] if type(param.default) is cst.Call else []
    ann = param.annotation.annotation if param.annotation is not None else None
    if type(ann) is cst.Subscript and m.type_head(ann.value, ctx) == "Annotated":
        calls.extend(v for v in m.slice_values(ann)[1:] if type(v) is cst.Call)
    for call in calls:
        if m.short_name(call.func, ctx) not in _DEPENDENCY_MARKERS:
            continue
        args = m.positional(call)
        dependency = args[0] if args else m.kwarg(call, "dependency")
        if dependency is None or (type(dependency) is cst.Name and dependency.value in ctx.index.classes):
            return False
        return True
    return False


def _dumped_by_helper(call: cst.Call, helper: cst.FunctionDef, ctx: Context) -> set[str]:
    """Same-module classes *call* passes to parameters that *helper* builds and serialises (``model(**d).model_dump()``)."""
    params = [p.name.value for p in (*helper.params.posonly_params, *helper.params.params)]
    classes: dict[str, str] = {}
    for i, arg in enumerate(call.args):
        if arg.star or type(arg.value) is not cst.Name or arg.value.value not in ctx.index.classes:
            continue
        name = arg.keyword.value if arg.keyword is not None else (params[i] if i < len(params) else None)
        if name is not None:
            classes[name] = arg.value.value
    if not classes:
        return set()
    out = set()
    for node in m.iter_nodes(helper.body):
        if (type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value in _DUMPS
                and type(node.func.value) is cst.Call):
            inner = node.func.value.func
            if type(inner) is cst.Attribute and inner.attr.value in _CONSTRUCTORS:
                inner = inner.value
            if type(inner) is cst.Name and inner.value in classes:
                out.add(classes[inner.value])
    return out
