"""The start-up part of a long-lived service's body runs once per start.

A function that opens a task group (``async with anyio.create_task_group()
as tg:``, ``asyncio.TaskGroup()``, ``trio.open_nursery()``) and starts in it
a task that runs until cancelled (``analysis.facts.runs_forever``: a ``while True:``
poll loop) never returns on its own: it is the body of a long-lived service.
Whoever starts it starts it once per service lifetime, and it cannot sit on
a request path that expects an answer.  So what it does in that group
outside any loop of its own that repeats (the per-item loops that start one
puller per configured store, say) happens once per start, not per request or
per message.

``service_start(chain, project)`` reads the ancestors of a reported node
(``analysis.facts.placement``) and names the never-ending task when all of this holds,
else returns None:

- the node sits in a module-level function or a method of a module-level
  class (not in a nested def: a closure may be started on every pass of its
  maker), which takes nothing but ``self`` / ``cls`` and parameters with
  defaults (a body started per connection or per topic receives it: that one
  is started per request);
- no ``while`` loop, ``async for`` or async comprehension of that function
  encloses it (those repeat: a stream's messages, a poll's passes);
- an enclosing ``async with`` of a task group or nursery holds it, and that
  group is given a task whose function runs until cancelled, as it is called
  there: ``tg.start_soon(f, ...)``, ``tg.start(f, ...)``,
  ``tg.create_task(f(...))``, also through ``functools.partial(f, ...)``
  (whose keywords count as the call's); *f* a function of the module, a method
  of ``self``, or another module's function (``index.service``, asked of
  *project*).

Pure reading of LibCST nodes, and the project index through *project*.
"""
from __future__ import annotations

import libcst as cst

from boundlint.analysis.names import dotted, partial_target
from boundlint.analysis.spawns import group_factory
from boundlint.analysis.facts.flag_args import passed
from boundlint.analysis.facts.runs_forever import runs_forever
from boundlint.analysis.facts.walk import own_nodes

_STARTS = frozenset({"start_soon", "start"})  # anyio / trio: the function, then its positional arguments


def _required(func: cst.FunctionDef, method: bool) -> bool:
    """True when *func* takes a parameter without a default besides a method's ``self`` / ``cls``."""
    p = func.params
    params = [*p.posonly_params, *p.params]
    if method and params and not any(dotted(d.decorator) == "staticmethod" for d in func.decorators):
        params = params[1:]
    return isinstance(p.star_arg, cst.Param) or any(a.default is None for a in (*params, *p.kwonly_params))


def _group_names(node: cst.With) -> set[str]:
    """The ``as`` names of *node*'s items that are task groups or nurseries."""
    out = set()
    for item in node.items:
        expr = item.item
        made = dotted(expr.func) if isinstance(expr, cst.Call) else None
        if made and group_factory(made) \
                and item.asname is not None and isinstance(item.asname.name, cst.Name):
            out.add(item.asname.name.value)
    return out


def _started(call: cst.Call) -> tuple[cst.BaseExpression, cst.Call] | None:
    """``(function, the call it is given as)`` of a spawn on a task group: ``tg.start_soon(f, a)`` is
    ``f(a)``, ``tg.create_task(f(a))`` is ``f(a)``, ``partial(f, a, k=v)`` adds ``a, k=v``."""
    method = call.func.attr.value
    args = [a for a in call.args if not a.star]
    if method == "create_task":
        first = args[0].value if args and args[0].keyword is None else None
        if not isinstance(first, cst.Call):
            return None
        target, made = first.func, first
    else:
        if not args or args[0].keyword is not None:
            return None
        target = args[0].value
        made = cst.Call(func=target, args=[a for a in args[1:] if a.keyword is None])
    if partial_target(target) is not None:
        inner = target.args
        made = cst.Call(func=inner[0].value, args=[*inner[1:], *made.args])
        target = inner[0].value
    return target, made


def _method(cls: cst.ClassDef | None, name: str) -> cst.FunctionDef | None:
    if cls is None or not isinstance(cls.body, cst.IndentedBlock):
        return None
    return next((s for s in cls.body.body if isinstance(s, cst.FunctionDef) and s.name.value == name), None)


def _forever(target: cst.BaseExpression, made: cst.Call, module: cst.Module, cls: cst.ClassDef | None,
             project) -> str | None:
    """How the function *target* names is shown to run until cancelled as *made* calls it, else None."""
    name = dotted(target)
    if name is None:
        return None
    if name.startswith("self.") and name.count(".") == 1:
        found = _method(cls, name[5:])
        if found is not None and runs_forever(found, made, 1, cls):
            return f"`{found.name.value}()`"
        return None
    if "." not in name:
        found = next((s for s in module.body if isinstance(s, cst.FunctionDef) and s.name.value == name), None)
        if found is not None:
            return f"`{name}()`" if runs_forever(found, made, 0) else None
    if not project:
        return None
    root, _, rest = name.partition(".")
    imported = (project.entry.summary.get("imports") or {}).get(root)
    if not isinstance(imported, str):
        return None
    return project.ask("runs_forever", f"{imported}.{rest}" if rest else imported, passed(made))


def _never_ending(group: cst.With, names: set[str], module: cst.Module, cls: cst.ClassDef | None,
                  project) -> str | None:
    """The first task started on the group *names* in *group*'s block whose function runs until cancelled."""
    for node in own_nodes(group.body):
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) \
                and isinstance(node.func.value, cst.Name) and node.func.value.value in names \
                and node.func.attr.value in (*_STARTS, "create_task"):
            started = _started(node)
            found = _forever(*started, module, cls, project) if started else None
            if found:
                return found
    return None


def service_start(chain: list[cst.CSTNode], project) -> str | None:
    """Why the code at the end of *chain* (``chain[0]`` the module) runs once per start of a long-lived
    service (see the module doc), e.g. ``"runs once per start: its task group runs `poll()` until
    cancelled, so `run()` is a long-lived service's body"``; else None."""
    if not chain or not isinstance(chain[0], cst.Module):
        return None
    funcs = [n for n in chain if isinstance(n, (cst.FunctionDef, cst.Lambda))]
    if len(funcs) != 1 or not isinstance(funcs[0], cst.FunctionDef) or funcs[0].asynchronous is None:
        return None
    func = funcs[0]
    at = chain.index(func)
    classes = [n for n in chain[:at] if isinstance(n, cst.ClassDef)]
    if len(classes) > 1 or _required(func, bool(classes)):
        return None
    below = chain[at:]
    if any(isinstance(n, cst.While) or isinstance(n, (cst.For, cst.CompFor)) and n.asynchronous is not None
           for n in below):
        return None
    cls = classes[0] if classes else None
    for i in range(len(below) - 1, -1, -1):
        node = below[i]
        if not (isinstance(node, cst.With) and node.asynchronous is not None and i + 1 < len(below)
                and below[i + 1] is node.body):
            continue
        names = _group_names(node)
        found = _never_ending(node, names, chain[0], cls, project) if names else None
        if found:
            return (f"runs once per start: its task group runs {found} until cancelled, "
                    f"so `{func.name.value}()` is a long-lived service's body")
    return None
