# Rebuilt from cloudfoundry-attic/cf-abacus issue #757 (a batch path honouring neither BATCH_SIZE
# nor MAX_INFLIGHT) as a Tornado build hub with one fire-and-forget delivery per subscriber.
# Hazard: broadcast() (notify.py) calls ensure_future once per subscription row; the tasks pile up
# without limit, and fetches queued behind the HTTP client's slots hit request_timeout together.
"""Tornado request handlers."""
from __future__ import annotations

import json

import tornado.web

from .notify import Notifier


class BuildEventHandler(tornado.web.RequestHandler):
    def initialize(self, db, notifier: Notifier) -> None:
        self.db = db
        self.notifier = notifier

    async def post(self, project: str) -> None:
        event = json.loads(self.request.body)
        event = {"project": project, "build": int(event["build"]), "status": str(event["status"])[:32]}
        await self.db.execute(
            "INSERT INTO build_events (project, build, status) VALUES (%s, %s, %s)",
            project, event["build"], event["status"],
        )
        scheduled = await self.notifier.broadcast(project, event)
        self.set_status(202)
        self.finish({"notified": scheduled})


def make_app(db) -> tornado.web.Application:
    notifier = Notifier(db)
    return tornado.web.Application([(r"/api/projects/([\w.-]+)/events", BuildEventHandler, {"db": db, "notifier": notifier})])
