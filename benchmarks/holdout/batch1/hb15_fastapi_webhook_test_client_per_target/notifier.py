"""Delivers one notification to one target."""
from __future__ import annotations

import hashlib
import hmac
import json

import httpx

from .schemas import Target


async def deliver(target: Target, title: str, message: str) -> int:
    body = json.dumps({"title": title, "text": message}).encode()
    headers = {"Content-Type": "application/json"}
    if target.secret:
        headers["X-Signature"] = hmac.new(target.secret.encode(), body, hashlib.sha256).hexdigest()
    async with httpx.AsyncClient(timeout=10.0, follow_redirects=False) as client:  # expect: CONN-PER-ITEM
        response = await client.post(str(target.url), content=body, headers=headers)
    return response.status_code
