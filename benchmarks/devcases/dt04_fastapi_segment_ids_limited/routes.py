# Pattern: hushh-labs/hushh-research #1360 fix - segment_ids capped with Query(max_length=50).
# Not a hazard: the list is capped (constants.py) and SegmentLoader (loader.py) runs each load
# under a CapacityLimiter (limits.py).
"""Domain data routes."""
from typing import Annotated

from fastapi import APIRouter, Depends, Query

from .auth import current_user
from .constants import MAX_SEGMENTS
from .loader import SegmentLoader, get_loader

router = APIRouter(prefix="/api/pkm")


@router.get("/domain-data/{user_id}/{domain}")
async def get_domain_data(
    user_id: str,
    domain: str,
    segment_ids: Annotated[list[str], Query(max_length=MAX_SEGMENTS)] = [],
    loader: SegmentLoader = Depends(get_loader),
    _user=Depends(current_user),
) -> dict:
    return {"domain": domain, "segments": await loader.load(user_id, domain, segment_ids)}
