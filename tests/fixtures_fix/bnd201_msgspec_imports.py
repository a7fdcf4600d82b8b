"""BND201 fix, msgspec: Meta and Annotated imported once, into the existing `from` imports."""
from typing import Optional

from msgspec import Struct


class RunUpdate(Struct, kw_only=True):
    labels: list[str]  # error: BND201 col 5
    owners: list[str] = []  # error: BND201 col 5
