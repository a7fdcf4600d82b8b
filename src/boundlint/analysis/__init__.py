"""The judgement over one module's CST, with the project index behind it: every rule family asks here.

- ``context``, ``walk``, ``names``, ``locate``: the traversal, its scopes and where a node is;
- ``facts``: where code runs, whether work reaches a dependency, where a collection's volume comes from;
- ``limits``, ``enums``, ``pauses``, ``pacing``, ``storms``, ``spawns``, ``clients``, ``workers``: what
  bounds a loop or fan-out, what waits, what spawns or connects, what runs per item;
- ``severity``: a finding's severity from the evidence its rule gives.

Below it: ``index`` (the project's summaries and the queries over them), ``kinds`` (what names mean),
``tables``, ``verdicts`` (the typed answers) and ``config``.  Above it: ``rules``, which report.
"""
