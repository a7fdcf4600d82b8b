"""BND201 fix, msgspec: `Annotated[X, Meta(max_length=N)]`, merged into an existing Meta."""
from typing import Annotated, Optional

import msgspec


class RunBatch(msgspec.Struct, forbid_unknown_fields=True):
    runs: Annotated[list[str], msgspec.Meta(max_length=100)]  # error: BND201 col 5
    tags: Annotated[frozenset[str], msgspec.Meta(max_length=100)] = frozenset()  # error: BND201 col 5
    labels: Optional[Annotated[list[str], msgspec.Meta(max_length=100)]] = None  # error: BND201 col 5
    described: Annotated[list[str], msgspec.Meta(description="ids", max_length=100)] = []  # error: BND201 col 5
    capped: Annotated[list[str], msgspec.Meta(max_length=20)] = []
