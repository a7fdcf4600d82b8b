# Look-alike of HKUDS/LightRAG PR #3544 ("bound request bodies") in its fixed form. Not unbounded:
# ExportRequest (models.py) checks user_ids in __post_init__ through require_max_items
# (validators.py, at most 25); sanic-ext builds the dataclass during @validate, so a longer list
# is answered with 400 before any ClickHouse scan.
"""Export routes."""
from __future__ import annotations

from sanic import Blueprint, Request
from sanic.response import json
from sanic_ext import validate

from .models import ExportRequest

bp = Blueprint("exports", url_prefix="/api/teams/<team_id:int>/exports")


@bp.post("/")
@validate(json=ExportRequest)
async def create_export(request: Request, team_id: int, body: ExportRequest):
    exporter = request.app.ctx.exporter
    keys = []
    for user_id in body.user_ids:
        keys.append(await exporter.export_user(team_id, user_id, body))
    return json({"files": keys}, status=201)
