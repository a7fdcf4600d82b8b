"""Whether any other module of the project names a class at all (imports it, or the module that holds it)."""
from __future__ import annotations

from boundlint.index.project import ProjectIndex
from boundlint.index.shapes import test_module


def named_elsewhere(index: ProjectIndex, ref: str) -> str:
    """``yes`` when another module of the project imports the class *ref* (under any name, also
    inside a function or through a re-export), ``no`` when none does, ``unknown`` when it cannot
    be told: *ref* is no class of the project, its module is a loose one or test code, or some module imports the module defining it as a
    module (``from app import serializers``) or star-imports it, and may reach the class as an
    attribute.  Test modules count: code that names the class may use it.
    """
    found = index.resolve(ref)
    if found is None or found[0] != "class":
        return "unknown"
    key = index.key(ref)
    home = found[1]
    if not (home.is_package or any("." in name for name in home.names)) or any(test_module(n) for n in home.names):
        return "unknown"  # a loose module, or test code: the project around it is not in sight
    answer = "no"
    for entry in {id(e): e for e in index.modules.values()}.values():
        if entry is home:
            continue
        for local, target in entry.summary["imports"].items():
            targets = target if local == "*" else [target]
            for one in targets:
                if not isinstance(one, str):
                    continue
                resolved = index.resolve(one)
                if resolved is not None and resolved[0] == "module" and resolved[1] is home:
                    answer = "unknown"  # `module.Class`: the attribute use is not recorded
                elif index.key(one) == key:
                    return "yes"
    return answer
