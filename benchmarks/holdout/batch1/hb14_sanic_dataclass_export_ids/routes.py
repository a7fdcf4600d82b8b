# Rebuilt from HKUDS/LightRAG PR #3544 ("bound request bodies": unbounded list and string fields on
# the request models let one call tie up the server) applied to a per-user analytics export, a
# common Sanic + sanic-ext shape. Hazard: ExportRequest.user_ids (models.py) has no length check
# and each id costs a ClickHouse scan and an object-storage upload (exporter.py).
"""Export routes."""
from __future__ import annotations

from sanic import Blueprint, Request
from sanic.response import json
from sanic_ext import validate

from .exporter import EventExporter
from .models import ExportRequest

bp = Blueprint("exports", url_prefix="/api/teams/<team_id:int>/exports")


@bp.post("/")
@validate(json=ExportRequest)
async def create_export(request: Request, team_id: int, body: ExportRequest):
    exporter: EventExporter = request.app.ctx.exporter
    keys = []
    for user_id in body.user_ids:
        keys.append(await exporter.export_user(team_id, user_id, body))
    return json({"files": keys}, status=201)
