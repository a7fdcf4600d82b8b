"""BND201 fix, pydantic 1.x (the pydantic.v1 namespace): `max_items`, merged into Field and conlist."""
from typing import Dict, List, Optional

from pydantic.v1 import BaseModel, Field, conlist, conset


class SupportChatRequest(BaseModel):
    turns: List[Dict[str, str]] = []  # error: BND201 col 5
    notes: List[str]  # error: BND201 col 5
    watchers: List[str] = Field(default_factory=list)  # error: BND201 col 5
    attachments: Optional[conlist(str, min_items=1)] = None  # error: BND201 col 5
    mentions: conset(str) = set()  # error: BND201 col 5
    meta: Dict[str, str] = {}  # error: BND201 col 5 (not fixable: pydantic 1.x caps no mapping)
    recipients: conlist(str, max_items=10) = []
