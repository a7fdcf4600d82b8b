# Rebuilt from Auriti-Labs/geo-optimizer-skill issue #122 (a new HTTP session on every call, no
# connection reuse) in an alerting service's "send test notification" endpoint. Hazard: any
# signed-in user posts TestNotification.targets (schemas.py), which is unbounded, and deliver()
# (notifier.py) opens a new httpx.AsyncClient, pool and TLS handshake included, for every target.
"""Notification routes."""
from __future__ import annotations

from fastapi import APIRouter, Depends

from .auth import current_user
from .notifier import deliver
from .schemas import TestNotification

router = APIRouter(prefix="/api/notifications", dependencies=[Depends(current_user)])


@router.post("/test")
async def send_test(body: TestNotification) -> dict[str, list[dict]]:
    results = []
    for target in body.targets:
        status = await deliver(target, body.title, body.message)
        results.append({"url": str(target.url), "status": status})
    return {"results": results}
