"""Effective settings: rule selection and the analysis options of each family.

``Settings`` is frozen and hashable (its ``fingerprint`` keys caches).
Selection follows ruff/flake8: ``select`` / ``ignore`` take codes or
prefixes (``BND1``, ``BND101``, ``BND``); the longest matching prefix wins,
and on a tie ``ignore`` wins.  Codes under an ``OPT_IN`` prefix (none
today) run only when a selected prefix names them explicitly, never through
the bare ``BND``.

``load_config`` reads ``[tool.boundlint]`` from the nearest
``pyproject.toml`` (or a file given with ``--config``), checks every key and
type, and raises ``ConfigError`` with one line naming the file, the key and
a "did you mean" when something is wrong.
"""
from __future__ import annotations

import json
import os
import sys
from collections import namedtuple
from collections.abc import Iterable, Mapping

from boundlint.codes import known_prefixes

DEFAULT_SELECT = ("BND",)
# Codes under these prefixes are off unless a select entry names the prefix itself.
# None today: BND900 (malformed noqa) is on by default since a malformed code suppresses nothing.
OPT_IN: tuple[str, ...] = ()


# A named tuple, not a dataclass: ``dataclasses`` imports inspect, ast and tokenize, too much for a
# run served from the cache.  Fields in this order, with these defaults (positional construction works).
_SETTINGS_DEFAULTS = (
    ("select", DEFAULT_SELECT),  # tuple[str, ...]
    ("ignore", ()),
    ("extend_select", ()),
    ("extend_ignore", ()),
    ("per_file_ignores", ()),  # tuple[tuple[str, tuple[str, ...]], ...]
    ("exclude", ()),
    ("extend_exclude", ()),
    ("respect_gitignore", True),
    ("timeout", 60.0),
    ("min_severity", "medium"),  # the lowest severity reported (analysis.severity): low, medium or high
    ("extra", ()),  # tuple[tuple[str, object], ...]
)


_SettingsTuple = namedtuple("Settings", [n for n, _ in _SETTINGS_DEFAULTS], defaults=[d for _, d in _SETTINGS_DEFAULTS])


class Settings(_SettingsTuple):
    """Everything that changes what a run reports (immutable and hashable; ``_replace`` makes a changed copy).

    ``select`` / ``ignore`` / ``extend_select`` / ``extend_ignore``: code
    prefixes.  ``per_file_ignores``: ``(glob, codes)`` pairs.  ``exclude``
    / ``extend_exclude``: gitignore-style patterns of paths not to check.
    ``timeout``: seconds one file may take before it is reported and skipped.
    ``min_severity``: the lowest severity reported.
    ``extra``: the family analysis options that were configured, as
    ``(kebab-case name, value)`` pairs (lists become tuples).
    """

    __slots__ = ()

    def enabled(self, code: str) -> bool:
        """True when *code* is selected and not ignored (longest prefix decides).

        A code under an ``OPT_IN`` prefix counts as selected only through a
        select entry at least as specific as that prefix.
        """
        select = self.select + self.extend_select
        ignore = self.ignore + self.extend_ignore
        floor = max((len(p) for p in OPT_IN if code.startswith(p)), default=0)
        sel = max((len(p) for p in select if code.startswith(p) and len(p) >= floor), default=-1)
        ign = max((len(p) for p in ignore if code.startswith(p)), default=-1)
        return sel >= 0 and sel > ign

    def option(self, name: str, default: object = None) -> object:
        """A family analysis option by name (``request-model-patterns`` ...)."""
        for key, value in self.extra:
            if key == name:
                return value
        return default

    def fingerprint(self) -> str:
        """A stable hash of every setting that changes findings."""
        from boundlint.hashes import blake2b

        # the fields in order, as dataclasses.asdict gave them when Settings was a dataclass: same cache keys;
        # the fix options change no finding
        fields = self._asdict()
        fields["extra"] = tuple(item for item in self.extra if item[0] not in FIX_OPTIONS)
        data = json.dumps(fields, sort_keys=True, default=str)
        return blake2b(data.encode(), digest_size=8).hexdigest()


# -- the schema of [tool.boundlint] -------------------------------------------------------

# Default class-name patterns of a request model (issue 3); the option replaces them.
REQUEST_MODEL_PATTERNS = (
    "*Request", "*Req", "*Params", "*Query", "*Body", "*Payload", "*Input", "*Command", "*Batch",
    "*Create", "*Update", "*Form",
)

CODES, STRINGS, BOOL, NUMBER, CODE_TABLE, LEVEL, COUNT = "codes", "strings", "bool", "number", "code-table", "level", "count"
MAX_TIMEOUT = 86400.0  # seconds: the largest `timeout` taken (a day); more is a typo or an attack
MAX_COUNT = 1_000_000_000  # the largest count a key takes (`fix-max-items`, `fix-concurrency`)
SEVERITIES = ("low", "medium", "high")
_TYPE_TEXT = {
    CODES: "a list of rule codes or prefixes",
    STRINGS: "a list of strings",
    BOOL: "true or false",
    NUMBER: "a positive number",
    CODE_TABLE: "a table of glob = [codes]",
    LEVEL: "one of \"low\", \"medium\", \"high\"",
    COUNT: "a positive integer",
}

# key -> (kind, default, Settings field)
TOP_LEVEL: dict[str, tuple[str, object, str]] = {
    "select": (CODES, DEFAULT_SELECT, "select"),
    "ignore": (CODES, (), "ignore"),
    "extend-select": (CODES, (), "extend_select"),
    "extend-ignore": (CODES, (), "extend_ignore"),
    "per-file-ignores": (CODE_TABLE, (), "per_file_ignores"),
    "exclude": (STRINGS, (), "exclude"),
    "extend-exclude": (STRINGS, (), "extend_exclude"),
    "respect-gitignore": (BOOL, True, "respect_gitignore"),
    "timeout": (NUMBER, 60.0, "timeout"),
    "min-severity": (LEVEL, "medium", "min_severity"),
}

# Fix options (boundlint.fixes): the numbers fixes write, and the codes whose fixes count as safe / unsafe
# (as ruff's).  Top-level keys kept in ``Settings.extra``, outside the fingerprint.  key -> (kind, default)
FIX_OPTIONS: dict[str, tuple[str, object]] = {"fix-max-items": (COUNT, 1000), "fix-concurrency": (COUNT, 16),
                                              "extend-safe-fixes": (CODES, ()), "extend-unsafe-fixes": (CODES, ())}

# family table -> {option -> (kind, default)}; rules read them with ctx.settings.option(name, default)
FAMILY_TABLES: dict[str, dict[str, tuple[str, object]]] = {
    "limits": {"bounded-names": (STRINGS, ())},
    "fanout": {"limiter-helpers": (STRINGS, ())},
    "request-shape": {
        "request-model-patterns": (STRINGS, REQUEST_MODEL_PATTERNS),
        "extra-model-bases": (STRINGS, ()),
        "extra-endpoint-decorators": (STRINGS, ()),
    },
    "amplification": {"logger-names": (STRINGS, ()), "rate-limited-loggers": (STRINGS, ())},
    "churn": {"client-factories": (STRINGS, ())},
    "audit": {"handler-decorators": (STRINGS, ()), "handler-bases": (STRINGS, ())},
}


def documented_keys() -> dict[str, str]:
    """Every configuration key (``select``, ``fanout.limiter-helpers`` ...) -> its default as TOML."""
    out = {key: "{}" if kind == CODE_TABLE else toml_value(default) for key, (kind, default, _) in TOP_LEVEL.items()}
    out.update((key, toml_value(default)) for key, (_, default) in FIX_OPTIONS.items())
    for table, options in FAMILY_TABLES.items():
        for key, (_, default) in options.items():
            out[f"{table}.{key}"] = toml_value(default)
    return out


def toml_value(value: object) -> str:
    """*value* written as TOML (``true``, ``60``, ``["BND"]``, ``{}`` for an empty table)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, tuple) and value and isinstance(value[0], tuple):
        return "{" + ", ".join(f"{json.dumps(k)} = {toml_value(v)}" for k, v in value) + "}"
    return "[" + ", ".join(toml_value(v) for v in value) + "]"


# -- loading ---------------------------------------------------------------------------

class ConfigError(Exception):
    """A configuration file or value is wrong; ``str()`` is the one-line message."""


# A named tuple, not a dataclass: made on every run's start-up, and defining a dataclass costs more.
Config = namedtuple("Config", "settings path root keys", defaults=(frozenset(),))
Config.__doc__ = """A loaded configuration: the settings, the file they came from and its directory.

``path`` is None when no file was found (defaults apply); ``root`` is the
directory that ``exclude`` and ``per-file-ignores`` patterns are relative
to (the config file's directory, else the current directory).  ``keys``:
the Settings fields the file set (family options as ``extra.<name>``).
"""


def _display(path: str) -> str:
    try:
        rel = os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return path
    return path if rel.startswith("..") else rel


def _load_toml(path: str, data: bytes | None = None) -> dict:
    """The TOML file *path* (its bytes *data* when already read); ConfigError when unreadable or invalid."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.10 only
        import tomli as tomllib
    try:
        if data is None:
            from boundlint.safe_read import CONFIG_CAP, read_regular

            data = read_regular(path, CONFIG_CAP)
        return tomllib.loads(data.decode())
    except OSError as exc:
        raise ConfigError(f"{_display(path)}: cannot read: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{_display(path)}: invalid TOML: {exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{_display(path)}: invalid TOML: not UTF-8 ({exc.reason})") from None


def _boundlint_table(data: dict) -> dict | None:
    tool = data.get("tool")
    if isinstance(tool, dict) and "boundlint" in tool:
        return tool["boundlint"]
    return None


def find_config(start: str) -> str | None:
    """The nearest ``pyproject.toml`` with a ``[tool.boundlint]`` table, from *start* upward.

    *start* is a file or directory (it need not exist: its nearest existing
    ancestor is used).  The search stops after the repository root (the
    first directory holding ``.git``) and at the filesystem root.  A
    pyproject.toml that is not valid TOML is returned so that the error is
    reported rather than the file silently skipped.
    """
    here = os.path.abspath(start)
    while not os.path.isdir(here):
        parent = os.path.dirname(here)
        if parent == here:
            break
        here = parent
    while True:
        candidate = os.path.join(here, "pyproject.toml")
        if os.path.isfile(candidate):
            try:
                data = _load_toml(candidate)
            except ConfigError:
                return candidate
            if _boundlint_table(data) is not None:
                return candidate
        if os.path.exists(os.path.join(here, ".git")):
            return None
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def load_config(paths: Iterable[str] = (), config_file: str | None = None, isolated: bool = False,
                content: bytes | None = None) -> Config:
    """The configuration for checking *paths* (*content*: the bytes of *config_file*, when already read).

    *config_file* (``--config``) wins; else the nearest pyproject.toml with
    ``[tool.boundlint]`` from the first path (or the current directory)
    upward; *isolated* ignores every file.  Raises ConfigError.  One config
    for all *paths*: the command line judges each file by its own config
    instead (``hierarchy.ConfigTree``).
    """
    cwd = os.getcwd()
    if isolated:
        return Config(Settings(), None, cwd)
    if config_file is None:
        paths = list(paths)
        config_file = find_config(paths[0] if paths else cwd)
        if config_file is None:
            return Config(Settings(), None, cwd)
    elif not os.path.isfile(config_file):
        from boundlint.safe_read import why_not_a_file

        raise ConfigError(f"{config_file}: {why_not_a_file(config_file, 'config file does not exist')}")
    data = _load_toml(config_file, content)
    table = _boundlint_table(data)
    where = "[tool.boundlint]"
    if table is None:
        if os.path.basename(config_file) == "pyproject.toml":
            table = {}
        else:  # a boundlint-only file: the keys sit at the top level
            table, where = data, "top level"
    settings = settings_from_table(table, _display(config_file), where)
    return Config(settings, os.path.abspath(config_file), os.path.dirname(os.path.abspath(config_file)),
                  _keys_set(table))


def _keys_set(table: Mapping[str, object]) -> frozenset:
    """The Settings fields a (validated) table sets: ``select`` ..., ``extra.<option>``."""
    keys = {TOP_LEVEL[k][2] for k in table if k in TOP_LEVEL}
    keys.update(f"extra.{k}" for k in table if k in FIX_OPTIONS)
    keys.update(f"extra.{n}" for k, v in table.items() if k in FAMILY_TABLES for n in v)
    return frozenset(keys)


def _suggest(word: str, choices: Iterable[str]) -> str:
    import difflib  # only for an error message: not on every run's start-up

    choices = list(choices)
    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.5)
    if close:
        return f"; did you mean {close[0]!r}?"
    return f"; expected one of: {', '.join(choices)}"


_FAMILIES = {"BND0": "unchecked files", "BND1": "fan-out", "BND2": "request shape", "BND3": "log storms and retries",
             "BND4": "connection churn", "BND9": "noqa"}


def check_code(code: str, where: str) -> str:
    """*code* upper-cased when it is a known code or prefix; else ConfigError naming *where*."""
    value = code.strip().upper()
    prefixes = known_prefixes()
    if value in prefixes:
        return value
    full = [p for p in prefixes if len(p) == 6]
    if value.startswith("BND") and len(value) > 3 and value[:4] not in prefixes:  # BND77: no such family
        families = ", ".join(f"{f} ({_FAMILIES.get(f, '')})" for f in prefixes if len(f) == 4)
        raise ConfigError(f"{where}: unknown rule code or prefix {code!r}: no family {value[:4]}; the families are "
                          f"{families}")
    # Prefer codes of the same family: BND199 should suggest BND101, not BND900.
    shared = max((len(os.path.commonprefix([value, p])) for p in full), default=0)
    near = [p for p in full if len(os.path.commonprefix([value, p])) == shared]
    import difflib

    best = difflib.get_close_matches(value, near, n=1, cutoff=0.0)
    hint = f"; did you mean {best[0]!r}?" if best and shared >= 3 else _suggest(value, full)
    raise ConfigError(f"{where}: unknown rule code or prefix {code!r}{hint}")


def _check_type(value: object, kind: str, file: str, key: str) -> object:
    """*value* converted to its Settings form, or ConfigError naming *file* and *key*."""
    def wrong() -> ConfigError:
        got = type(value).__name__
        names = {"str": "a string", "int": "an integer", "float": "a float", "bool": "a boolean",
                 "list": "a list", "dict": "a table"}
        return ConfigError(f"{file}: {key} must be {_TYPE_TEXT[kind]}, got {names.get(got, got)}: {_short(value)}")

    if kind == BOOL:
        if not isinstance(value, bool):
            raise wrong()
        return value
    if kind == LEVEL:
        if value not in SEVERITIES:
            raise wrong()
        return value
    if kind == NUMBER:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise wrong()
        if not 0 < value <= MAX_TIMEOUT:  # also nan, inf and integers too large for a float
            raise ConfigError(f"{file}: {key} must be a positive number of seconds up to {MAX_TIMEOUT:g}, "
                              f"got {value if isinstance(value, float) else _short(value)}")
        return float(value)
    if kind == COUNT:
        if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= MAX_COUNT:
            raise wrong()
        return value
    if kind in (STRINGS, CODES):
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise wrong()
        if kind == CODES:
            return tuple(check_code(v, f"{file}: {key}") for v in value)
        return tuple(value)
    if kind == CODE_TABLE:
        if not isinstance(value, dict):
            raise wrong()
        pairs = []
        for glob, codes in value.items():
            if not isinstance(codes, list) or not all(isinstance(c, str) for c in codes):
                raise ConfigError(f"{file}: {key}.{json.dumps(glob)} must be a list of rule codes or prefixes, "
                                  f"got {_short(codes)}")
            pairs.append((glob, tuple(check_code(c, f"{file}: {key}.{json.dumps(glob)}") for c in codes)))
        return tuple(pairs)
    raise AssertionError(kind)



def _short(value: object, limit: int = 40) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def settings_from_table(table: Mapping[str, object], file: str = "pyproject.toml", where: str = "[tool.boundlint]") -> Settings:
    """Settings from a ``[tool.boundlint]`` mapping; raises ConfigError naming *file* and the key."""
    if not isinstance(table, Mapping):
        raise ConfigError(f"{file}: [tool.boundlint] must be a table, got {_short(table)}")
    kwargs: dict[str, object] = {}
    extra: list[tuple[str, object]] = []
    allowed = list(TOP_LEVEL) + list(FIX_OPTIONS) + list(FAMILY_TABLES) + ["tables"]
    prefix = "tool.boundlint." if where == "[tool.boundlint]" else ""
    for key, value in table.items():
        if key == "tables":
            extra.append(("tables", _tables(value, file, f"{prefix}tables")))
        elif key in TOP_LEVEL:
            kind, _, attr = TOP_LEVEL[key]
            kwargs[attr] = _check_type(value, kind, file, f"{prefix}{key}")
            if key in ("exclude", "extend-exclude"):
                from boundlint.patterns import pattern_error

                why = pattern_error(kwargs[attr])
                if why:
                    raise ConfigError(f"{file}: {prefix}{key}: {why}")
        elif key in FIX_OPTIONS:
            extra.append((key, _check_type(value, FIX_OPTIONS[key][0], file, f"{prefix}{key}")))
        elif key in FAMILY_TABLES:
            options = FAMILY_TABLES[key]
            if not isinstance(value, dict):
                raise ConfigError(f"{file}: {prefix}{key} must be a table, got {_short(value)}")
            for name, option in value.items():
                if name not in options:
                    raise ConfigError(f"{file}: unknown key {name!r} in [{prefix}{key}]{_suggest(name, options)}")
                extra.append((name, _check_type(option, options[name][0], file, f"{prefix}{key}.{name}")))
        else:
            options = {n: t for t, opts in FAMILY_TABLES.items() for n in opts}
            hint = _suggest(key, allowed)
            if key in options:  # a family option written at the top level
                hint = f"; it belongs in [{prefix}{options[key]}]"
            raise ConfigError(f"{file}: unknown key {key!r} in {where}{hint}")
    return Settings(**kwargs, extra=tuple(sorted(extra)))


def _tables(value: object, file: str, where: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """``[tool.boundlint.tables]``: ``NAME = [...]`` replaces a table, ``extend-NAME = [...]`` adds to it."""
    from boundlint.tables import names

    if not isinstance(value, dict):
        raise ConfigError(f"{file}: {where} must be a table, got {_short(value)}")
    known = names()
    out = []
    for key, entries in value.items():
        name = key[len("extend-"):] if key.startswith("extend-") else key
        if name not in known:
            forms = [*known, *(f"extend-{n}" for n in known)] if key.startswith("extend-") else known
            raise ConfigError(f"{file}: unknown table {key!r} in [{where}]{_suggest(key, forms)}; "
                              "`boundlint tables` lists them")
        out.append((key, _check_type(entries, STRINGS, file, f"{where}.{key}")))
    return tuple(sorted(out))


def merge_cli(settings: Settings, **overrides: object) -> Settings:
    """*settings* with command-line values applied: plain keys replace, ``extend_*`` keys add.

    ``None`` means "not given on the command line".
    """
    changes: dict[str, object] = {}
    for key, value in overrides.items():
        if value is None:
            continue
        if key.startswith("extend_"):
            changes[key] = tuple(getattr(settings, key)) + tuple(value)
        else:
            changes[key] = value
    return settings._replace(**changes) if changes else settings


def analysis_settings(path: str) -> Settings:
    """Default selection with the family analysis options of the config nearest *path*.

    For adapters (the flake8 plugin) that own rule selection and noqa
    themselves.  Results are cached per config file.  Raises ConfigError.
    """
    directory = os.path.dirname(os.path.abspath(path)) if not os.path.isdir(path) else os.path.abspath(path)
    if directory not in _FOUND_CACHE:  # flake8 asks once per file: look up each directory once
        _FOUND_CACHE[directory] = find_config(directory)
    found = _FOUND_CACHE[directory]
    if found is None:
        return Settings()
    cached = _ANALYSIS_CACHE.get(found)
    if cached is None:
        loaded = load_config(config_file=found).settings
        cached = Settings(timeout=loaded.timeout, extra=loaded.extra)
        _ANALYSIS_CACHE[found] = cached
    return cached


_ANALYSIS_CACHE: dict[str, Settings] = {}
_FOUND_CACHE: dict[str, str | None] = {}
