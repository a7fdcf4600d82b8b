"""What one call is, from its names alone: a dependency call, local work, or unknown.

Shared by the CST facts (``analysis.facts.dependency``) and the project index's
``ast`` reader, so both sides classify a call the same way.  Pure string
logic over the tables; imports neither LibCST nor ``ast``.
"""
from __future__ import annotations

import builtins
import re
import sys

from boundlint import tables

DEPENDENCY, LOCAL, UNKNOWN = "dependency", "local", "unknown"

_BUILTINS = frozenset(dir(builtins))
# Top-level modules of the standard library (the project index shares it).
STDLIB = frozenset(getattr(sys, "stdlib_module_names", ())) - {"test"}
_WORDS = re.compile(r"[a-z0-9]+")
# Methods of str, bytes, list, dict, set, datetime and friends: in-process work.
LOCAL_METHODS = frozenset({
    "append", "extend", "insert", "pop", "popleft", "appendleft", "remove", "discard", "clear", "copy", "sort",
    "reverse", "index", "count", "get", "items", "keys", "values", "update", "setdefault", "add", "union",
    "intersection", "difference", "issubset", "issuperset", "split", "rsplit", "splitlines", "strip", "lstrip",
    "rstrip", "join", "format", "format_map", "lower", "upper", "title", "capitalize", "casefold", "replace",
    "startswith", "endswith", "encode", "decode", "isdigit", "isalpha", "isalnum", "isidentifier", "zfill",
    "partition", "rpartition", "ljust", "rjust", "center", "removeprefix", "removesuffix", "hex", "isoformat",
    "strftime", "timestamp", "total_seconds", "date", "time", "astimezone", "group", "groups", "groupdict",
    "match", "fullmatch", "search", "findall", "finditer", "sub", "subn", "model_dump", "model_dump_json",
    "model_validate", "model_validate_json", "model_copy", "dict", "json", "parse_obj", "parse_raw", "to_dict",
    "from_dict", "as_dict", "dumps", "loads", "render", "exception", "debug", "info", "warning", "warn",
    "error", "critical", "log", "is_set", "set_result", "set_exception", "result", "done", "cancel", "cancelled",
    "add_done_callback", "put_nowait", "get_nowait", "qsize", "empty", "full", "labels", "inc", "observe",
    "most_common", "elements", "isoformat", "hexdigest", "digest", "bit_length", "to_bytes", "from_bytes",
})

# Methods no client, driver or session has (unlike `get`, `keys`, `copy`, `count`, `index`): a container's
# or an in-process queue's.
_CONTAINER_ONLY = frozenset({
    "items", "values", "setdefault", "popitem", "splitlines", "strip", "lstrip", "rstrip", "startswith",
    "endswith", "lower", "upper", "format", "format_map", "join", "removeprefix", "removesuffix",
    "put_nowait", "get_nowait", "qsize",  # an in-process queue's (`asyncio.Queue`, `queue.Queue`), no broker's
})


def _word_list(name: str) -> list[str]:
    """``self._httpClient`` -> ["http", "client"]: the words of a name in order, lowercased."""
    return _WORDS.findall(re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower())


def receiver_reaches(receiver: str, settings: object = None) -> bool:
    """True when the receiver's name says it is a dependency's handle (``self.http_client``, ``upstream``).

    *receiver* is dotted text; only its last part names the object.  A product
    word (the ``dependency-receivers`` table: ``redis``, ``s3``, ``db`` ...)
    counts anywhere in that part; a role word (``dependency-receiver-roles``:
    ``client``, ``session``, ``upstream``, ``queue`` ...) only as its head noun,
    the last word: ``group.upstream_group_ids`` is a set of ids, not an upstream.
    An UPPER_CASE name says what it is by its last word alone (``DB_CLIENT``,
    not ``API_ROUTES``).
    """
    last = receiver.rsplit(".", 1)[-1]
    words = _word_list(last)
    if not words:
        return False
    if last.isupper():
        words = words[-1:]
    return bool(set(words) & tables.table("dependency-receivers", settings)) or \
        words[-1] in tables.table("dependency-receiver-roles", settings)


def _in_modules(qualname: str, modules: frozenset[str]) -> bool:
    parts = qualname.split(".")
    return any(".".join(parts[:i]) in modules for i in range(1, len(parts) + 1))


def classify(qualname: str | None, receiver: str | None, method: str | None, settings: object = None,
             name: str | None = None, verbs: bool = True) -> str:
    """DEPENDENCY, LOCAL or UNKNOWN for one call.

    *qualname*: the import-resolved dotted name of the callee (``httpx.get``),
    or None; *receiver*: the dotted text of the object a method is called on
    (``self.http_client``), or None; *method*: the attribute called, or None;
    *name*: the callee as written, for a name nothing resolves (the
    ``dependency-verbs`` table is the last resort for code out of sight,
    skipped when *verbs* is false).
    """
    if qualname is not None:
        if method is not None and server_context(qualname.rpartition(".")[0], settings):
            return LOCAL  # `context.abort(...)` of a servicer context answers the caller
        if _in_modules(qualname, tables.table("dependency-modules", settings)):
            return DEPENDENCY
        root = qualname.split(".", 1)[0]
        if root in STDLIB or (root in _BUILTINS and "." not in qualname):
            return LOCAL
    if method is not None:
        if method in tables.table("dependency-methods", settings):
            return DEPENDENCY
        if method in _CONTAINER_ONLY:
            return LOCAL  # `client_kwargs.items()`: whatever the name says, only a container has these
        if receiver is not None and receiver_reaches(receiver, settings):
            return DEPENDENCY
        if method in LOCAL_METHODS:
            return LOCAL
    last = (qualname or name or method or "").rsplit(".", 1)[-1]
    if last[:1].isupper() or last.lstrip("_")[:1].isupper():
        return UNKNOWN  # a class or a constant (`HTTPException(...)`), not a call named for what it does
    words = _WORDS.findall(last.lstrip("_").lower())
    if verbs and words and words[0] in tables.table("dependency-verbs", settings):
        return DEPENDENCY
    return UNKNOWN


def server_context(qualname: str, settings: object = None) -> bool:
    """True when *qualname* is a class of the ``server-contexts`` table (``grpc.ServicerContext``): the
    server's own side of the call it serves, whose methods answer the caller rather than reach a dependency."""
    return qualname in tables.table("server-contexts", settings)


def classify_call(qualname: str | None, receiver: str | None, method: str | None, settings: object = None,
                  name: str | None = None, verbs: bool = True) -> str:
    """``classify`` for a call of *qualname* itself: building a class of a dependency package that is
    no client constructor (``value_class``) is UNKNOWN, not a dependency call."""
    if qualname is not None and value_class(qualname, settings) and \
            _in_modules(qualname, tables.table("dependency-modules", settings)):
        return UNKNOWN
    return classify(qualname, receiver, method, settings, name=name, verbs=verbs)


def value_class(qualname: str, settings: object = None) -> bool:
    """``httpx.Timeout``, ``aiohttp.ClientTimeout``, ``redis.exceptions.ConnectionError``: a class of a
    dependency package that is no client constructor.  Building one (a timeout, a connector's
    settings, an exception) does no I/O, so it shows no dependency call."""
    last = qualname.rsplit(".", 1)[-1]
    return last.lstrip("_")[:1].isupper() and qualname not in tables.table("client-constructors", settings)


def builtin_name(name: str) -> bool:
    """A call of the builtin *name* (``len``, ``int``, ``isinstance``): local work."""
    return name in _BUILTINS
