"""BND201 fix, pydantic v2: a cap added to the field, merged into its Field or Annotated."""
from typing import Annotated, Optional

from annotated_types import MinLen
from pydantic import BaseModel, Field, RootModel, conlist


class LookupRequest(BaseModel):
    uris: list[str] = Field(max_length=100)  # error: BND201 col 5
    tags: Annotated[list[str], Field(max_length=100)] = []  # error: BND201 col 5
    owners: Optional[Annotated[list[int], Field(max_length=100)]] = None  # error: BND201 col 5
    labels: Annotated[set[str], Field(max_length=100)] | None = None  # error: BND201 col 5
    ids: list[int] = Field(default_factory=list, description="ids to look up", max_length=100)  # error: BND201 col 5
    notes: Annotated[list[str], Field(description="free text", max_length=100)] = []  # error: BND201 col 5
    names: Annotated[list[str], MinLen(1), Field(max_length=100)]  # error: BND201 col 5
    extra: Annotated[dict[str, str], Field(max_length=100)] = {}  # error: BND201 col 5
    refs: conlist(str, min_length=1, max_length=100)  # error: BND201 col 5
    watchers: list[str] = Field(  # error: BND201 col 5
        default_factory=list,
        description="who is told",
        max_length=100,
    )
    capped: list[str] = Field(default_factory=list, max_length=50)


class IdsBatch(RootModel[Annotated[list[int], Field(max_length=100)]]):  # error: BND201 col 26
    pass
