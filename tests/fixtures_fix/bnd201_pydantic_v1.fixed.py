"""BND201 fix, pydantic 1.x (the pydantic.v1 namespace): `max_items`, merged into Field and conlist."""
from typing import Dict, List, Optional, Annotated

from pydantic.v1 import BaseModel, Field, conlist, conset


class SupportChatRequest(BaseModel):
    turns: Annotated[List[Dict[str, str]], Field(max_items=100)] = []  # error: BND201 col 5
    notes: List[str] = Field(max_items=100)  # error: BND201 col 5
    watchers: List[str] = Field(default_factory=list, max_items=100)  # error: BND201 col 5
    attachments: Optional[conlist(str, min_items=1, max_items=100)] = None  # error: BND201 col 5
    mentions: conset(str, max_items=100) = set()  # error: BND201 col 5
    meta: Dict[str, str] = {}  # error: BND201 col 5 (not fixable: pydantic 1.x caps no mapping)
    recipients: conlist(str, max_items=10) = []
