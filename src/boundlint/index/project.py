"""The project index: every module's summary, and the link step that resolves names across modules.

A file's *project root* is the nearest directory above it that holds
``pyproject.toml``, ``setup.cfg``, ``setup.py`` or ``.git``, or that is the
parent of the outermost package on the way up (``src/`` of a src layout, or
the folder holding a package); a file with neither is a project of its own
folder's modules.  Each module is known by its package name
(``app.schemas``, from the ``__init__.py`` chain) and by its path below the
root (``src.app.schemas``, ``ns.app.schemas`` for a namespace package).

``ProjectIndex.resolve(ref)`` follows re-exports (``from .schemas import
Lookup`` in ``__init__``) and import cycles to the module that defines a
name.  Summaries are cached by content (``SummaryCache``).
"""
from __future__ import annotations

import os
from functools import lru_cache

from boundlint.files import remembered
from boundlint.index.launchers import launcher_names
from boundlint.records import Record

_MARKERS = ("pyproject.toml", "setup.cfg", "setup.py", ".git")
_MAX_HOPS = 12


def resolve_import_from(module: str, is_package: bool, level: int, name: str | None) -> str | None:
    """The absolute module an ``from <level dots><name> import ...`` names, or None when it climbs too high."""
    if not level:
        return name or ""
    parts = module.split(".")
    if not is_package:
        parts = parts[:-1]
    if level - 1 > len(parts):
        return None
    base = parts[: len(parts) - (level - 1)] if level > 1 else parts
    return ".".join([*base, name] if name else base)


def is_package(directory: str) -> bool:
    """True when the folder *directory* (absolute) holds ``__init__.py`` or ``__init__.pyi``: asked once per run
    (``files.Snapshot``), as naming each module asks it of every folder above the module."""
    return remembered("package", directory, lambda: os.path.isfile(os.path.join(directory, "__init__.py"))
                      or os.path.isfile(os.path.join(directory, "__init__.pyi")))


def find_root(path: str) -> tuple[str, bool]:
    """``(root, recursive)`` for the file *path*: its project root, and whether the project is the tree below it.

    Walking up from the file to the first folder with a marker
    (``pyproject.toml``, ``setup.cfg``, ``setup.py``, ``.git``): the outermost
    folder on the way that holds a package but is none (a ``src/`` folder, an
    unpacked distribution) is the root; else the marker's folder; else the
    file's own folder, not recursively.  Never raises; a path that does not
    exist is placed by its name alone.
    """
    return _root_of(os.path.dirname(os.path.abspath(path)))


@lru_cache(maxsize=4096)
def _root_of(directory: str) -> tuple[str, bool]:
    child_is_package = False
    outermost = None
    current = directory
    while True:
        here = is_package(current)
        if child_is_package and not here:
            outermost = current
        if any(os.path.exists(os.path.join(current, m)) for m in _MARKERS):
            return (outermost or current), True
        child_is_package = here
        parent = os.path.dirname(current)
        if parent == current:
            return (outermost, True) if outermost else (directory, False)
        current = parent


def _defines(summary: dict, name: str) -> bool:
    """True when a module summary defines or imports *name* by name."""
    return any(name in summary.get(part, ()) for part in ("functions", "classes", "instances", "constants", "imports",
                                                          "aliases"))


def module_names(path: str, root: str) -> list[str]:
    """The dotted names a file is imported by: its package-chain name and its name below *root*."""
    full = os.path.abspath(path)
    stem = os.path.splitext(os.path.basename(full))[0]
    parts = [] if stem == "__init__" else [stem]
    directory = os.path.dirname(full)
    short = None  # the name below the innermost folder that is no package, kept as a second name
    # a folder without __init__.py inside a package is a namespace sub-package: `pkg/routers/x.py` is
    # `pkg.routers.x`, not `x` (which names every `x.py` of such folders alike)
    while is_package(directory) or (os.path.basename(directory).isidentifier()
                                      and is_package(os.path.dirname(directory))):
        if not is_package(directory) and short is None:
            short = ".".join(parts)
        parts.insert(0, os.path.basename(directory))
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    names = [".".join(parts)] if parts else []
    rel = os.path.relpath(os.path.splitext(full)[0], root)
    if not rel.startswith(".."):
        pieces = rel.replace(os.sep, "/").split("/")
        if pieces[-1] == "__init__":
            pieces = pieces[:-1]
        name = ".".join(pieces)
        if name and name not in names and all(p.isidentifier() for p in pieces):
            names.append(name)
        if pieces and pieces[0] == "src" and len(pieces) > 1:
            name = ".".join(pieces[1:])
            if name not in names:
                names.append(name)
    if short and short not in names:
        names.append(short)
    names += [n for n in launcher_names(full, root) if n not in names]  # below a `manage.py`'s folder
    names = [n for n in names if n]
    if names and "." not in names[0] and stem != "__init__" and not is_package(os.path.dirname(full)):
        # a bare stem (`x`, in folders no package chain names) names other modules alike: the name
        # below the root (`pkg.types.hooks.x`) is the one its own refs must use
        dotted = [n for n in names[1:] if "." in n]
        preferred = [n for n in dotted if not n.startswith("src.")] or dotted
        if preferred:
            names.remove(preferred[0])
            names.insert(0, preferred[0])
    return names


class ModuleEntry(Record):
    """One module of the project: its path (as discovered), names and summary."""

    _FIELDS = ("path", "names", "summary", "is_package")

    def __init__(self, path: str, names: list[str], summary: dict, is_package: bool = False) -> None:
        self.path = path
        self.names = names
        self.summary = summary
        self.is_package = is_package


class ProjectIndex(Record):
    """Summaries of a project's modules by name, with the lookups the link step needs.

    ``modules``: dotted name -> ModuleEntry (a module may have several names).
    ``by_path``: absolute path -> ModuleEntry.  ``memo``: whole-project answers
    (queries), dropped when a module is added.
    """

    _FIELDS = ("root", "modules", "by_path", "_reverse", "memo")

    def __init__(self, root: str, modules: dict[str, ModuleEntry] | None = None,
                 by_path: dict[str, ModuleEntry] | None = None, _reverse: dict | None = None,
                 memo: dict | None = None) -> None:
        self.root = root
        self.modules = {} if modules is None else modules
        self.by_path = {} if by_path is None else by_path
        self._reverse = _reverse
        self.memo = {} if memo is None else memo

    def add(self, entry: ModuleEntry) -> None:
        """Register *entry* under every name it has (the first registration of a name wins)."""
        self.by_path[os.path.abspath(entry.path)] = entry
        for name in entry.names:
            self.modules.setdefault(name, entry)
        self._reverse = None
        self.memo.clear()

    def entry_for(self, path: str) -> ModuleEntry | None:
        """The module at *path*, or None when it is not part of the project."""
        return self.by_path.get(os.path.abspath(path))

    def canonical(self, entry: ModuleEntry) -> str:
        """The name a module's own refs use (its first name)."""
        return entry.names[0] if entry.names else ""

    def _split(self, ref: str) -> tuple[ModuleEntry, str] | None:
        """The longest module prefix of *ref* and the rest (``""`` for the module itself)."""
        parts = ref.split(".")
        for cut in range(len(parts), 0, -1):
            entry = self.modules.get(".".join(parts[:cut]))
            if entry is not None:
                return entry, ".".join(parts[cut:])
        return None

    def resolve(self, ref: str | None) -> tuple[str, ModuleEntry, str] | None:
        """``(kind, module, name)`` defining *ref*: kind is function, class, instance, constant, alias or module.

        Follows imports and re-exports through ``__init__`` modules; an import
        cycle or a name the project does not define gives None.
        """
        seen: set[str] = set()
        while ref and ref not in seen and len(seen) < _MAX_HOPS:
            seen.add(ref)
            if "()." in ref:  # `pkg.mod.make_mailer().send`: a method of the class the function gives back
                head, _, tail = ref.partition("().")
                made = self.function(head)
                given = made[2].get("gives") if made is not None else None
                if not given:
                    return None
                ref = f"{given}.{tail}"
                continue
            found = self._split(ref)
            if found is None:
                return None
            entry, rest = found
            if not rest:
                return "module", entry, ""
            head, _, tail = rest.partition(".")
            summary = entry.summary
            if rest in summary["functions"]:
                return "function", entry, rest
            if head in summary["classes"]:
                if tail and f"{head}.{tail}" in summary["functions"]:
                    return "function", entry, rest
                if tail and "." not in tail:  # a method the class inherits: look it up in its first base
                    bases = summary["classes"][head].get("bases") or ()
                    if bases and isinstance(bases[0], str):
                        ref = f"{bases[0]}.{tail}"
                        continue
                return ("class", entry, head) if not tail else None
            if head in summary["instances"]:
                return "instance", entry, rest
            if head in summary.get("constants", {}):
                return "constant", entry, rest
            if head in summary.get("aliases", {}):
                return ("alias", entry, head) if not tail else None
            target = summary["imports"].get(head)
            if isinstance(target, str):
                ref = f"{target}.{tail}" if tail else target
                continue
            stars = [s for s in summary["imports"].get("*", ()) if s in self.modules]
            # the star-imported module that defines the name, else the first (it may star-import it in turn)
            defining = [s for s in stars if _defines(self.modules[s].summary, head)]
            if not (defining or stars):
                return None
            ref = f"{(defining or stars)[0]}.{rest}"
        return None

    def function(self, ref: str | None) -> tuple[ModuleEntry, str, dict] | None:
        """``(module, qualname, facts)`` of the project function *ref* names, else None."""
        found = self.resolve(ref)
        if found is None or found[0] != "function":
            return None
        _, entry, name = found
        return entry, name, entry.summary["functions"][name]

    def where(self, entry: ModuleEntry, line: int) -> str:
        """``path:line`` for evidence, the path relative to the working directory when below it."""
        path = entry.path
        try:
            path = os.path.relpath(path)
        except ValueError:  # another drive
            pass
        return f"{path.replace(os.sep, '/')}:{line}"

    # -- reverse maps: who calls a function, which endpoints take a class ------------------
    def reverse(self) -> dict:
        """``{"callers": {ref: [(entry, func, call)]}, "inputs": {ref: [(entry, func, param)]}, "outputs": {...}, "built": {...}, "filled": {...}}``.

        Keys are resolved definition refs (``module.name``), built once per index.
        """
        if self._reverse is not None:
            return self._reverse
        callers: dict[str, list] = {}
        inputs: dict[str, list] = {}
        outputs: dict[str, set] = {}
        built: dict[str, set] = {}
        filled: dict[str, set] = {}  # classes filled from keywords or a dict literal the code writes
        keys: dict[str | None, str | None] = {}  # the same refs recur across the project: resolve each once

        def key_of(ref: str | None) -> str | None:
            if ref not in keys:
                keys[ref] = self.key(ref)
            return keys[ref]

        for entry in {id(e): e for e in self.modules.values()}.values():
            summary = entry.summary
            for qual, facts in summary["functions"].items():
                for call in facts["calls"]:
                    key = key_of(call["ref"])
                    if key is not None:
                        callers.setdefault(key, []).append((entry, qual, call))
                for param, refs in facts["inputs"]:
                    for r in refs:
                        key = key_of(r)
                        if key is not None:
                            inputs.setdefault(key, []).append((entry, qual, param))
                for r in facts["outputs"]:
                    key = key_of(r)
                    if key is not None:
                        outputs.setdefault(key, set()).add(self.canonical(entry))
            for r in summary.get("built", ()):
                key = key_of(r)
                if key is not None:
                    built.setdefault(key, set()).add(self.canonical(entry))
            for r in summary.get("filled", ()):
                key = key_of(r)
                if key is not None:
                    filled.setdefault(key, set()).add(self.canonical(entry))
        self._reverse = {"callers": callers, "inputs": inputs, "outputs": outputs, "built": built, "filled": filled}
        return self._reverse

    def key(self, ref: str | None) -> str | None:
        """The definition key (``module.name``) of *ref*, or None outside the project."""
        found = self.resolve(ref)
        if found is None or found[0] == "module":
            return None
        kind, entry, name = found
        return f"{self.canonical(entry)}.{name}"
