# Incident: hushh-labs/hushh-research #1360 - segment_ids Query list had no upper bound; one request
# triggered a decryption loop over 10,000+ segments (fixed with Query(max_length=50)).
# Hazard: segment_ids is unbounded here; loader.load_segments (loader.py) start_soon()s one vault
# fetch + KMS decrypt (vault.py) per id with no limiter.
"""Domain data routes."""
from fastapi import APIRouter, Depends, Query

from .auth import current_user
from .loader import load_segments
from .vault import Vault, get_vault

router = APIRouter(prefix="/api/pkm")


@router.get("/domain-data/{user_id}/{domain}")
async def get_domain_data(
    user_id: str,
    domain: str,
    segment_ids: list[str] = Query(default=[]),  # expect: REQUEST-SHAPE
    vault: Vault = Depends(get_vault),
    _user=Depends(current_user),
) -> dict:
    segments = await load_segments(vault, user_id, domain, segment_ids)
    return {"domain": domain, "segments": segments}
