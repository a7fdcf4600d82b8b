"""BND201 fix, dataclasses: `__post_init__` rejects a longer collection, added or extended."""
from dataclasses import dataclass, field
from typing import Optional

from fastapi import APIRouter

router = APIRouter()


@dataclass
class Recipient:
    address: str
    cc: list[str] = field(default_factory=list)  # error: BND201 col 5

    def __post_init__(self):
        if len(self.cc) > 100:
            raise ValueError("cc: at most 100 items")


@dataclass(frozen=True)
class BulkSend:
    recipients: list[Recipient]  # error: BND201 col 5
    labels: Optional[list[str]] = None  # error: BND201 col 5

    def __post_init__(self):
        """Checks the subject."""
        if self.labels is not None and len(self.labels) > 100:
            raise ValueError("labels: at most 100 items")
        if len(self.recipients) > 100:
            raise ValueError("recipients: at most 100 items")
        if not self.recipients:
            raise ValueError("no recipients")


@router.post("/send")
async def send(body: BulkSend):
    return body
