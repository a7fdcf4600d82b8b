"""``--statistics``: the number of findings per code, with the rule's name, most frequent first."""
from __future__ import annotations

import json
from collections import Counter
from typing import Iterable, Mapping

from boundlint.finding import Finding


def format_statistics(findings: Iterable[Finding], names: Mapping[str, str], as_json: bool = False) -> str:
    """``count  CODE  name`` lines (or a JSON array of ``{code, name, count}``), by count then code."""
    counts = Counter(f.code for f in findings)
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    if as_json:
        return json.dumps([{"code": c, "name": names.get(c, ""), "count": n} for c, n in rows], indent=2) + "\n"
    width = max((len(str(n)) for _, n in rows), default=1)
    return "".join(f"{n:>{width}}  {c}  {names.get(c, '')}\n" for c, n in rows)
