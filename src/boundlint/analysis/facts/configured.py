"""Configured sources as the volume reader sees them (``analysis.facts.volume``): what configuration, the
installation, set-up or the code's schemas fix.

- names: an attribute chain that names configuration (``settings.repos``, ``caps.resolved_callbacks``:
  a last part that is, or ends with ``_`` and, a ``bounded-names`` entry), a getter called on a
  configuration object (``Config.get(...)``), a read of a registry of a configured kind
  (``callback_manager.get_loggers()``, the ``registry-words`` table);
- set-up: ``self`` state assigned only while the object is set up (``built_once``);
- the installation: entry points, and the results of a signal's ``send(...)`` (one per connected
  receiver: the installed plugins; the ``signal-classes`` table);
- schemas: the keys of a dict a schema validated (``validated_data`` of a serializer's ``create``,
  ``update`` or ``validate``, ``model.model_dump()``): the declared fields.
"""
from __future__ import annotations

import re

import libcst as cst

from boundlint import tables
from boundlint.analysis.names import dotted
from boundlint.analysis.facts.walk import kids

# A call of one of these on an object named as configuration reads it (`await Config.get("urls")`).
_CONFIG_GETTERS = frozenset({"get", "get_value", "getlist", "get_list", "get_config", "value"})
# What the installation fixes: plugins and entry points found at start-up.
INSTALLED = frozenset({"importlib.metadata.entry_points", "importlib_metadata.entry_points",
                        "pkg_resources.iter_entry_points", "entry_points", "iter_entry_points"})
_CONFIG_ROOTS = frozenset({"settings", "config", "conf", "cfg", "options", "opts", "app_settings", "self", "cls"})


_LOOPS = (cst.For, cst.While, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)
_FILLS = frozenset({"append", "extend", "add", "update", "insert", "setdefault", "appendleft"})


def _self_attr(expr: cst.CSTNode, attr: str) -> bool:
    return (type(expr) is cst.Attribute and expr.attr.value == attr and type(expr.value) is cst.Name
            and expr.value.value in ("self", "cls"))


def _names_in(expr: cst.CSTNode) -> set[str]:
    out, stack = set(), [expr]
    while stack:
        node = stack.pop()
        if type(node) is cst.Name:
            out.add(node.value)
        stack.extend(kids(node))
    return out


def _param_names(func: cst.FunctionDef) -> set[str]:
    params = func.params
    return {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)} - {"self", "cls"}


def _fields_of(node: cst.CSTNode):
    """*node*'s syntactic children read from its fields (``node.children`` rebuilds them: far slower)."""
    from boundlint.analysis.walk.walker import children  # the checker has it loaded; the index never needs it

    return children(node)


def _setup_methods(methods: list[cst.FunctionDef], settings) -> set[str]:
    """Names of the methods that set the object up before it works: those the ``setup-methods`` table
    names (``__init__``, ``start``, ``before_run`` ...), and those called (``self.m()``) only from
    set-up methods and never inside a loop there."""
    roots = tables.table("setup-methods", settings)
    callers: dict[str, list[tuple[str, bool]]] = {}  # method -> (calling method, in a loop)
    for method in methods:
        stack: list[tuple[cst.CSTNode, bool]] = [(method.body, False)]
        while stack:
            node, looped = stack.pop()
            if (type(node) is cst.Call and type(node.func) is cst.Attribute
                    and type(node.func.value) is cst.Name and node.func.value.value == "self"):
                callers.setdefault(node.func.attr.value, []).append((method.name.value, looped))
            inner = looped or isinstance(node, _LOOPS)
            stack.extend((child, inner) for child in _fields_of(node)
                         if not isinstance(child, (cst.FunctionDef, cst.Lambda, cst.ClassDef)))
    out = {m.name.value for m in methods if m.name.value in roots}
    grew = True
    while grew:
        grew = False
        for method in methods:
            name = method.name.value
            calls_of = callers.get(name)
            if name not in out and calls_of and all(c in out and not looped for c, looped in calls_of):
                out.add(name)
                grew = True
    return out


def built_once(owner: cst.ClassDef, attr: str, settings=None, memo: dict | None = None) -> tuple | None:
    """See ``_Reader.built_once``: None when the attribute is not state fixed at set-up, else
    ``(params, values)``: the ``__init__`` parameters its value is made from (empty when none) and
    ``(method, value)`` for each value a set-up method assigns."""
    assigned_at_build = False
    handed: set[str] = set()
    values: list[tuple[cst.FunctionDef, cst.BaseExpression]] = []
    methods = [s for s in (owner.body.body if type(owner.body) is cst.IndentedBlock else ())
               if type(s) is cst.FunctionDef]
    if memo is None:
        memo = {}
    setup = memo.get(id(owner))  # the same for every attribute of the class: one walk of its methods
    if setup is None:
        setup = memo[id(owner)] = _setup_methods(methods, settings)
    for stmt in methods:
        builder = stmt.name.value in setup
        stack: list[cst.CSTNode] = [stmt.body]
        while stack:
            node = stack.pop()
            stack.extend(_fields_of(node))
            targets: list[cst.CSTNode] = []
            if type(node) is cst.Assign:
                targets = [t.target for t in node.targets]
            elif isinstance(node, (cst.AnnAssign, cst.AugAssign)):
                targets = [node.target]
            for target in targets:
                if _self_attr(target, attr):
                    if not builder:
                        return None
                    value = getattr(node, "value", None)
                    used = _names_in(value) & _param_names(stmt) if value is not None else set()
                    if used and stmt.name.value != "__init__":
                        return None  # handed in by whoever calls it: as large as the caller's collection
                    handed |= used  # handed in by whoever builds it: judged by how the project builds it
                    if value is not None:
                        values.append((stmt, value))
                    assigned_at_build = True
                if type(target) is cst.Subscript and _self_attr(target.value, attr) and not builder:
                    return None  # self.attr[key] = value per call
            if (not builder and type(node) is cst.Call and type(node.func) is cst.Attribute
                    and node.func.attr.value in _FILLS and _self_attr(node.func.value, attr)):
                return None  # filled as the object works
    return (frozenset(handed), values) if assigned_at_build else None


def bounded_name(name: str, settings) -> bool:
    """True when *name* (its last dotted part, leading underscores and case aside) is a ``bounded-names``
    entry or ends with ``_`` and one (``resolved_callbacks``, ``_peer_servers``)."""
    last = name.rsplit(".", 1)[-1].lstrip("_").lower()
    return any(last == n or last.endswith("_" + n) for n in tables.table("bounded-names", settings))


def configured_chain(text: str, settings) -> str:
    """How the attribute chain *text* names configuration: ``"root"`` (``settings.repos``,
    ``self.config.regions``: a configuration object), ``"name"`` (``x.replicas``: a ``bounded-names``
    entry), ``"suffix"`` (``caps.resolved_callbacks``: ends with ``_`` and one); else ``""``."""
    parts = text.split(".")
    if parts[0] in _CONFIG_ROOTS - {"self", "cls"} or any("settings" in p or "config" in p for p in parts):
        return "root"
    if parts[-1] in tables.table("bounded-names", settings):
        return "name"
    return "suffix" if len(parts) > 1 and bounded_name(parts[-1], settings) else ""


def config_read(func: cst.BaseExpression) -> bool:
    """``Config.get(...)``, ``settings.get_value(...)``: a getter called on an object named as configuration."""
    if not (type(func) is cst.Attribute and func.attr.value in _CONFIG_GETTERS):
        return False
    receiver = func.value.attr.value if type(func.value) is cst.Attribute else (
        func.value.value if type(func.value) is cst.Name else "")
    word = receiver.lower().strip("_")
    return word in _CONFIG_ROOTS - {"self", "cls", "options", "opts"} or word.endswith(("config", "settings"))




# Methods a registry reads itself with (`manager.get_loggers()`, `registry.all()`): no fills, no removals.
_READS = ("get", "list", "all", "iter", "enabled", "active", "registered", "values", "items", "keys")
# The methods a serializer framework hands the validated data to, and their data parameter.
_SCHEMA_METHODS = {"create": "validated_data", "update": "validated_data", "validate": "attrs"}
# Keywords only a model's `.dict(...)` takes (a pydantic model's fields, not any mapping's copy).
_DUMP_KEYWORDS = frozenset({"exclude_unset", "exclude_none", "exclude_defaults", "by_alias", "include", "exclude"})


def _registry_kind(words: list[str], settings) -> str:
    """The configured kind a name's *words* make it the registry of (``["callback", "manager"]``:
    ``"callback"``), else ``""``."""
    if len(words) < 2 or words[-1] not in tables.table("registry-words", settings):
        return ""
    bounded = tables.table("bounded-names", settings)
    if not any(words[-2] + end in bounded for end in ("s", "es")) and words[-2] not in bounded:
        return ""
    return words[-2]


def registry_read(func: cst.BaseExpression, settings, owner: str | None = None) -> str:
    """``"`m.get_x()`, a read of `m`, the registry of configured callbacks"`` when *func* is a read method
    (``get_*``, ``list_*``, ``all``, ...) of an object named as the registry of a configured kind: its
    last word a ``registry-words`` entry and the word before a ``bounded-names`` entry in the singular
    (``logging_callback_manager``, ``plugin_registry``). Inside such a class (*owner*, its name:
    ``ServerManager``) a read of the registry itself on ``self`` (``self.get_registry()``,
    ``self.list_servers()``, ``self.all()``) counts too; not another read of it (``self.get_jobs()``).
    Else ``""``."""
    if type(func) is not cst.Attribute:
        return ""
    method = func.attr.value.lstrip("_")
    if not any(method == r or method.startswith(r + "_") for r in _READS):
        return ""
    receiver = func.value.attr.value if type(func.value) is cst.Attribute else (
        func.value.value if type(func.value) is cst.Name else "")
    if receiver in ("self", "cls") and type(func.value) is cst.Name:
        kind = _registry_kind(_camel_words(owner or ""), settings)
        rest = method.lower().split("_")[1:]
        if not kind or (rest and rest[-1] not in {kind + "s", kind + "es", *tables.table("registry-words", settings)}):
            return ""
        return f"`{dotted(func) or method}()`, a read of the registry of configured {kind}s that `{owner}` keeps"
    kind = _registry_kind(receiver.strip("_").lower().split("_"), settings)
    if not kind:
        return ""
    return f"`{dotted(func) or method}()`, a read of `{receiver}`, the registry of configured {kind}s"


def _camel_words(name: str) -> list[str]:
    """``"MCPServerManager"`` -> ``["mcp", "server", "manager"]`` (``snake_case`` splits on ``_``)."""
    return [w.lower() for w in re.findall(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+", name)]


def signal_class(ref: str | None, settings) -> bool:
    """True when the class or the module *ref* names is a ``signal-classes`` entry."""
    if not ref:
        return False
    entries = tables.table("signal-classes", settings)
    return ref in entries or ref.rsplit(".", 1)[0] in entries


def signal_sent(call: cst.Call, ctx) -> str:
    """``"the results of `sig.send()`, one per receiver connected to signal `sig` (path:line)"`` when
    *call* sends a signal (``send`` / ``send_robust`` on an instance of a ``signal-classes`` class, or on
    a signal a module of that table defines): one result per connected receiver, i.e. per installed
    plugin; else ``""``."""
    func = call.func
    if not (type(func) is cst.Attribute and func.attr.value in ("send", "send_robust")):
        return ""
    receiver = func.value
    if not isinstance(receiver, (cst.Name, cst.Attribute)):
        return ""
    text = dotted(func) or func.attr.value
    if signal_class(ctx.qualname(receiver), ctx.settings):  # post_save, imported from the framework
        return f"the results of `{text}()`, one per receiver connected to the signal"
    ref = ctx.project_ref(receiver)
    found = ctx.project.ask("signal", ref) if ref else None
    return f"the results of `{text}()`, one per receiver connected to {found}" if found else ""


def schema_class(owner: cst.ClassDef, ctx) -> bool:
    """True when *owner* is a serializer: a base a ``serializer-bases`` entry or named ``...Serializer``."""
    for base in owner.bases:
        text = dotted(base.value) or ""
        if (ctx.qualname(base.value) or text) in tables.table("serializer-bases", ctx.settings) or (
                text.rsplit(".", 1)[-1].endswith("Serializer")):
            return True
    return False


def schema_data(name: str, chain: list[cst.CSTNode], ctx) -> str:
    """``"the fields declared by serializer `S`"`` when *name* is the validated-data parameter of
    ``create`` / ``update`` / ``validate`` of a serializer class (the framework hands it the data its
    fields validated: one key per declared field); else ``""``."""
    for i in range(len(chain) - 1, 0, -1):
        func = chain[i]
        if type(func) is not cst.FunctionDef:
            continue
        owner = next((n for n in reversed(chain[:i]) if isinstance(n, (cst.ClassDef, cst.FunctionDef))), None)
        params = [p.name.value for p in (*func.params.posonly_params, *func.params.params)]
        if (type(owner) is cst.ClassDef and _SCHEMA_METHODS.get(func.name.value) == name
                and params[-1:] == [name] and schema_class(owner, ctx)):
            return f"the fields declared by serializer `{owner.name.value}`"
        return ""
    return ""


def model_dump(call: cst.Call) -> str:
    """``"the fields of the model (`x.model_dump()`)"`` when *call* dumps a pydantic model to a dict
    (``model_dump(...)``, or ``dict(...)`` with a keyword only a model's takes); else ``""``."""
    func = call.func
    if type(func) is not cst.Attribute:
        return ""
    method = func.attr.value
    if method == "model_dump" or (method == "dict" and any(
            a.keyword is not None and a.keyword.value in _DUMP_KEYWORDS for a in call.args)):
        return f"the fields of the model (`{dotted(func) or method}()`)"
    return ""
