# Rebuilt from pika/pika issue #1169 ("Problem with publish in BlockingConnection": a web app that
# opened a BlockingConnection, declared, published and closed for every user task) and
# dfoderick/fullcycle issue "Abusing rabbitmq connection". Hazard: every POST opens a new AMQP
# connection in publish_job (broker.py); under load RabbitMQ spends its CPU on connection churn.
"""Render-job endpoints."""
from __future__ import annotations

import uuid

from flask import jsonify, request
from flask.views import MethodView

from .broker import publish_job


class RenderJobView(MethodView):
    def post(self):
        body = request.get_json(force=True)
        job = {
            "id": uuid.uuid4().hex,
            "scene": str(body["scene"]),
            "frames": [int(body.get("start", 1)), int(body.get("end", 1))],
            "priority": min(int(body.get("priority", 0)), 10),
        }
        publish_job(job)
        return jsonify({"id": job["id"], "status": "queued"}), 202


def register(app) -> None:
    app.add_url_rule("/api/render-jobs", view_func=RenderJobView.as_view("render_jobs"))
