"""Every rule code and name, and every valid code prefix, without importing the rules (and so without LibCST).

Start-up paths that only need to know which codes exist (option validation,
``--statistics``, a warm run served from the cache) read this table instead of
``all_rules()``; tests/test_meta.py keeps it equal to the registry.
"""

CODES: dict[str, str] = {
    "BND001": "unparseable-file",
    "BND002": "internal-error",
    "BND101": "unbounded-gather",
    "BND102": "unbounded-task-spawn",
    "BND103": "thread-per-item",
    "BND104": "pool-sized-from-input",
    "BND201": "unbounded-request-collection",
    "BND202": "unbounded-endpoint-collection",
    "BND203": "unchecked-repeated-field",
    "BND301": "log-storm-in-loop",
    "BND302": "log-storm-in-worker",
    "BND303": "retry-without-backoff",
    "BND401": "client-per-item",
    "BND402": "sessionless-request-in-fan-out",
    "BND900": "unknown-noqa-code",
}


def known_prefixes() -> list[str]:
    """Every valid code prefix: ``BND``, ``BND1``, ``BND10``, ``BND101`` ... for the codes in ``CODES``."""
    out: dict[str, None] = {}
    for code in CODES:
        for end in range(3, len(code) + 1):
            out[code[:end]] = None
    return list(out)
