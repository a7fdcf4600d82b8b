"""Application factory."""
from __future__ import annotations

import atexit

from flask import Flask

from .broker import Publisher
from .views import register


def create_app() -> Flask:
    app = Flask(__name__)
    app.config.from_prefixed_env()
    publisher = Publisher(app.config.get("AMQP_URL", "amqp://guest:guest@rabbitmq:5672/%2F"))
    app.extensions["publisher"] = publisher
    atexit.register(publisher.close)
    register(app)
    return app
