"""BND201 fix, dataclasses: `__post_init__` rejects a longer collection, added or extended."""
from dataclasses import dataclass, field
from typing import Optional

from fastapi import APIRouter

router = APIRouter()


@dataclass
class Recipient:
    address: str
    cc: list[str] = field(default_factory=list)  # error: BND201 col 5


@dataclass(frozen=True)
class BulkSend:
    recipients: list[Recipient]  # error: BND201 col 5
    labels: Optional[list[str]] = None  # error: BND201 col 5

    def __post_init__(self):
        """Checks the subject."""
        if not self.recipients:
            raise ValueError("no recipients")


@router.post("/send")
async def send(body: BulkSend):
    return body
