"""BND201 fix, msgspec: Meta and Annotated imported once, into the existing `from` imports."""
from typing import Optional, Annotated

from msgspec import Struct, Meta


class RunUpdate(Struct, kw_only=True):
    labels: Annotated[list[str], Meta(max_length=100)]  # error: BND201 col 5
    owners: Annotated[list[str], Meta(max_length=100)] = []  # error: BND201 col 5
