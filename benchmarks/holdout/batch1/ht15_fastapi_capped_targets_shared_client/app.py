# Look-alike of Auriti-Labs/geo-optimizer-skill issue #122 (new HTTP session per call), in the
# fixed form. Not a hazard: the lifespan below builds one httpx.AsyncClient for the process, the
# route passes it to deliver(), and TestNotification.targets (schemas.py) is capped at five by the
# AfterValidator from validators.py.
"""Application, lifespan and notification route."""
from __future__ import annotations

import hashlib
import hmac
import json
from contextlib import asynccontextmanager

import httpx
from fastapi import FastAPI, Request

from .schemas import Target, TestNotification


@asynccontextmanager
async def lifespan(app: FastAPI):
    async with httpx.AsyncClient(timeout=10.0, follow_redirects=False) as client:
        app.state.http = client
        yield


app = FastAPI(lifespan=lifespan)


async def deliver(client: httpx.AsyncClient, target: Target, title: str, message: str) -> int:
    body = json.dumps({"title": title, "text": message}).encode()
    headers = {"Content-Type": "application/json"}
    if target.secret:
        headers["X-Signature"] = hmac.new(target.secret.encode(), body, hashlib.sha256).hexdigest()
    response = await client.post(str(target.url), content=body, headers=headers)
    return response.status_code


@app.post("/api/notifications/test")
async def send_test(body: TestNotification, request: Request) -> dict[str, list[dict]]:
    client: httpx.AsyncClient = request.app.state.http
    results = []
    for target in body.targets:
        results.append({"url": str(target.url), "status": await deliver(client, target, body.title, body.message)})
    return {"results": results}
