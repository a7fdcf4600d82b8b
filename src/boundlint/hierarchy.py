"""Which configuration judges which file: hierarchical ``[tool.boundlint]``, as ruff does it.

Each file is judged with the ``[tool.boundlint]`` table of the nearest
``pyproject.toml`` that has one, from the file's own directory upward to the
repository root (the first directory holding ``.git``).  A file with no such
table above it gets the defaults.  ``exclude`` and ``per-file-ignores``
patterns are relative to the directory of the config that holds them (the
current directory for the defaults).  Command-line flags apply on top of every
config; ``--config FILE`` replaces every discovered config and ``--isolated``
ignores them all.

``ConfigTree`` answers these questions for one run and remembers each
directory's answer, so a monorepo's files cost one upward search per
directory, and each config file is read once.
"""
from __future__ import annotations

import os
import sys
from collections import namedtuple
from collections.abc import Iterable, Mapping

from boundlint import memo
from boundlint.patterns import PerFileIgnores
from boundlint.config import (
    FAMILY_TABLES, FIX_OPTIONS, TOP_LEVEL, Config, ConfigError, Settings, _boundlint_table, _display,
    _load_toml, load_config, merge_cli, toml_value,
)

# The command-line flags that override a config (argparse dest names = Settings fields).
OVERRIDES = ("select", "ignore", "extend_select", "extend_ignore", "exclude", "extend_exclude",
             "respect_gitignore", "timeout", "min_severity")


# Named tuples, not dataclasses: both are made on every run's start-up, and defining a dataclass costs more.
Resolved = namedtuple("Resolved", "settings path root keys cli", defaults=(frozenset(), frozenset()))
Resolved.__doc__ = """The effective configuration of one directory.

``settings``: the config's settings with the command-line flags applied.
``path``: the config file (absolute), or None for the defaults.
``root``: the directory ``exclude`` / ``per-file-ignores`` are relative to.
``keys``: Settings fields the file set; ``cli``: fields the command line set.
"""

# What discovery needs in one directory: the exclude spec (its match_file, ``patterns.spec``; None when
# nothing is excluded), its anchor, gitignore on or off.
DirRules = namedtuple("DirRules", "spec anchor respect_gitignore")


class ConfigTree:
    """The per-directory configuration of one run.

    *overrides*: command-line values by Settings field (None: not given).
    *config_file* (``--config``) applies to every file; *isolated* ignores
    every file.  Methods raise ``ConfigError`` (one line naming the file and
    the key) when a config they reach is broken; a broken config that no
    checked file reaches is never read.
    """

    def __init__(self, overrides: Mapping[str, object] | None = None, config_file: str | None = None,
                 isolated: bool = False) -> None:
        self.overrides = {k: v for k, v in (overrides or {}).items() if v is not None}
        self.cwd = os.getcwd()
        self._dirs: dict[str, Resolved] = {}
        self._paths: dict[str, Resolved] = {}
        self._loaded: dict[str | None, Resolved] = {}
        self._rules: dict[str | None, DirRules] = {}
        self._ignores: dict[str | None, PerFileIgnores] = {}
        self.fixed: Resolved | None = None
        if isolated:
            self.fixed = self._resolve(Config(Settings(), None, self.cwd))
        elif config_file is not None:
            self.fixed = self._resolve(load_config(config_file=config_file))

    def _resolve(self, config: Config) -> Resolved:
        hit = self._loaded.get(config.path)
        if hit is None:
            settings = merge_cli(config.settings, **self.overrides)
            hit = Resolved(settings, config.path, config.root, config.keys, frozenset(self.overrides))
            self._loaded[config.path] = hit
        return hit

    def for_path(self, path: str) -> Resolved:
        """The configuration that judges *path* (a file: its directory's; a directory: its own)."""
        if self.fixed is not None:
            return self.fixed
        hit = self._paths.get(path)
        if hit is None:  # asked once per file by discovery, the checks and the report: one stat
            full = os.path.abspath(path)
            hit = self.for_dir(full if os.path.isdir(full) else os.path.dirname(full))
            self._paths[path] = hit
        return hit

    def for_dir(self, directory: str) -> Resolved:
        """The configuration of the files directly in *directory* (which need not exist)."""
        if self.fixed is not None:
            return self.fixed
        here = os.path.abspath(directory)
        hit = self._dirs.get(here)
        if hit is not None:
            return hit
        chain = []
        while not os.path.isdir(here) and os.path.dirname(here) != here:
            chain.append(here)
            here = os.path.dirname(here)
        while True:
            found = self._dirs.get(here)
            if found is not None:
                break
            chain.append(here)
            candidate = os.path.join(here, "pyproject.toml")
            config = _config_of(candidate) if os.path.isfile(candidate) else None
            if config is not None:
                found = self._resolve(config)
                break
            parent = os.path.dirname(here)
            if os.path.exists(os.path.join(here, ".git")) or parent == here:
                found = self._resolve(Config(Settings(), None, self.cwd))
                break
            here = parent
        for d in chain:
            self._dirs[d] = found
        return found

    def dir_rules(self, directory: str) -> DirRules:
        """Exclude patterns and gitignore use for the entries of *directory* (for ``files.discover``)."""
        resolved = self.for_dir(directory)
        rules = self._rules.get(resolved.path)
        if rules is None:
            patterns = list(resolved.settings.exclude + resolved.settings.extend_exclude)
            spec = None
            if patterns:
                from boundlint.patterns import spec as gitignore_spec

                spec = gitignore_spec(patterns)
            rules = DirRules(spec, os.path.abspath(resolved.root), resolved.settings.respect_gitignore)
            self._rules[resolved.path] = rules
        return rules

    def discover(self, paths: Iterable[str]) -> list[str]:
        """The files a run over *paths* checks, sorted; raises files.PathError and ConfigError."""
        from boundlint.files import discover

        return discover(paths, rules_for=self.dir_rules)

    def excluded_by(self, path: str) -> str | None:
        """What excludes the file *path* when it is named: ``the `extend-exclude` pattern 'migrations/' of
        pyproject.toml`` (or ``--exclude`` on the command line); None when nothing does."""
        from boundlint.files import excluded

        resolved = self.for_path(path)
        for key in ("exclude", "extend_exclude"):
            for pattern in getattr(resolved.settings, key):
                if excluded(path, [pattern], resolved.root):
                    where = "the command line" if key in resolved.cli else _shown(resolved.path) or "the defaults"
                    flag = key.replace("_", "-")
                    return f"the `{flag}` pattern {pattern!r} of {where}"
        return None

    def ignored(self, path: str, code: str) -> bool:
        """True when the ``per-file-ignores`` of *path*'s config ignore *code* there."""
        resolved = self.for_path(path)
        if not resolved.settings.per_file_ignores:
            return False
        pfi = self._ignores.get(resolved.path)
        if pfi is None:
            pfi = PerFileIgnores(resolved.settings.per_file_ignores, resolved.root)
            self._ignores[resolved.path] = pfi
        return pfi.ignored(path, code)


def _shown(path: str | None) -> str | None:
    """*path* relative to the working directory when it is below it (as paths are printed), else as it is."""
    if not path:
        return path
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


def _config_of(path: str) -> Config | None:
    """The config in the ``pyproject.toml`` *path*; None when it has no ``[tool.boundlint]``; raises ConfigError.

    With a ``memo`` both answers are remembered by the file's content key
    (a config also by boundlint's code, which validates it), so a run whose
    configs did not change parses none.  An error is never remembered.
    """
    answers = memo.current()
    data = key = None
    if answers is not None:
        from boundlint import filekeys
        from boundlint.cache import code_id

        stamps = filekeys.for_dir(answers.cache_dir)
        try:
            data, content = stamps.lookup(path)  # data is None when the key was remembered, unread
            found = answers.get(f"pyproject\0{sys.version}\0{code_id()}\0{content}")
            if found is not None:
                return _remembered_config(found, path)
            if data is None:
                data, content = stamps.read(path)
            key = f"pyproject\0{sys.version}\0{code_id()}\0{content}"
        except OSError:
            data = key = None  # reported by the read below, as without a memo
    if not _has_table(path, data):
        if key is not None:
            answers.put(key, False)
        return None
    config = load_config(config_file=path, content=data)
    if key is not None:
        answers.put(key, (tuple(getattr(config.settings, f) for f in _SETTINGS_FIELDS), tuple(sorted(config.keys))))
    return config


_SETTINGS_FIELDS = Settings._fields


def _remembered_config(found, path: str) -> Config | None:
    """The Config remembered as *found* for the file *path*: False (no table) or (Settings fields, keys)."""
    if found is False:
        return None
    values, keys = found
    full = os.path.abspath(path)
    return Config(Settings(*values), full, os.path.dirname(full), frozenset(keys))


def _has_table(path: str, data: bytes | None = None) -> bool:
    """True when *path* (its bytes *data*, when read) has ``[tool.boundlint]``, or is broken TOML (so the
    error is reported, not skipped)."""
    try:
        return _boundlint_table(_load_toml(path, data)) is not None
    except ConfigError:
        return True


# -- --show-settings ------------------------------------------------------------------------

def describe(path: str, resolved: Resolved) -> str:
    """The effective settings of *path* as TOML lines, each with a comment saying where it came from.

    Origins: ``default``, the config file (shown relative to the current
    directory), ``command line``, or ``<file> + command line`` for an
    ``extend-*`` key both set.
    """
    from boundlint.schedule import SECONDS_PER_MB, time_limit

    source = _display(resolved.path) if resolved.path else None
    lines = [f"# Settings for {path}",
             f"# config: {source or 'none (defaults)'}; patterns are relative to {_display(resolved.root) or '.'}"]
    rows = []
    s = resolved.settings
    for key, (kind, _, attr) in TOP_LEVEL.items():
        value = getattr(s, attr)
        text = "{" + ", ".join(f"{toml_value(g)} = {toml_value(c)}" for g, c in value) + "}" \
            if kind == "code-table" else toml_value(value)
        rows.append((f"{key} = {text}", _origin(attr in resolved.keys, attr in resolved.cli, attr, source)))
    for name, (_, default) in FIX_OPTIONS.items():
        rows.append((f"{name} = {toml_value(s.option(name, default))}",
                     _origin(f"extra.{name}" in resolved.keys, False, name, source)))
    for table, options in FAMILY_TABLES.items():
        for name, (_, default) in options.items():
            value = s.option(name, default)
            rows.append((f"{table}.{name} = {toml_value(value)}",
                         _origin(f"extra.{name}" in resolved.keys, False, name, source)))
    width = max(len(left) for left, _ in rows if len(left) <= 48)  # a long default list does not widen every row
    lines += [f"{left.ljust(width)}  # {origin}" for left, origin in rows]
    if os.path.isfile(path) and s.timeout:
        try:
            size = os.path.getsize(path)
        except OSError:
            size = 0
        limit = time_limit(s.timeout, size)
        lines.append(f"# time limit for this file: {limit:.1f} s (timeout + {SECONDS_PER_MB:g} s per MB; "
                     f"the file is {size:,} bytes)")
    return "\n".join(lines) + "\n"


def _origin(in_file: bool, on_cli: bool, attr: str, source: str | None) -> str:
    if on_cli and in_file and attr.startswith("extend_"):
        return f"{source} + command line"
    if on_cli:
        return "command line"
    if in_file:
        return source or "default"
    return "default"
