"""BND201 fix, pydantic v2: a cap added to the field, merged into its Field or Annotated."""
from typing import Annotated, Optional

from annotated_types import MinLen
from pydantic import BaseModel, Field, RootModel, conlist


class LookupRequest(BaseModel):
    uris: list[str]  # error: BND201 col 5
    tags: list[str] = []  # error: BND201 col 5
    owners: Optional[list[int]] = None  # error: BND201 col 5
    labels: set[str] | None = None  # error: BND201 col 5
    ids: list[int] = Field(default_factory=list, description="ids to look up")  # error: BND201 col 5
    notes: Annotated[list[str], Field(description="free text")] = []  # error: BND201 col 5
    names: Annotated[list[str], MinLen(1)]  # error: BND201 col 5
    extra: dict[str, str] = {}  # error: BND201 col 5
    refs: conlist(str, min_length=1)  # error: BND201 col 5
    watchers: list[str] = Field(  # error: BND201 col 5
        default_factory=list,
        description="who is told",
    )
    capped: list[str] = Field(default_factory=list, max_length=50)


class IdsBatch(RootModel[list[int]]):  # error: BND201 col 26
    pass
