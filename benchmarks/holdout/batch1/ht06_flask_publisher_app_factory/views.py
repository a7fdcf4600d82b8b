# Look-alike built from the fix for dfoderick/fullcycle issue #17 ("Abusing rabbitmq connection":
# reuse one connection instead of opening one per published message). Not churn: Publisher opens
# its BlockingConnection in __init__ (broker.py), and create_app() (app.py) builds it exactly once
# per process; each POST only publishes on the shared channel.
"""Render-job endpoints."""
from __future__ import annotations

import uuid

from flask import current_app, jsonify, request
from flask.views import MethodView


class RenderJobView(MethodView):
    def post(self):
        body = request.get_json(force=True)
        job = {
            "id": uuid.uuid4().hex,
            "scene": str(body["scene"]),
            "frames": [int(body.get("start", 1)), int(body.get("end", 1))],
            "priority": min(int(body.get("priority", 0)), 10),
        }
        current_app.extensions["publisher"].publish(job)
        return jsonify({"id": job["id"], "status": "queued"}), 202


def register(app) -> None:
    app.add_url_rule("/api/render-jobs", view_func=RenderJobView.as_view("render_jobs"))
