"""Sends one web-push notification."""
from __future__ import annotations

import json
import logging

import requests
from pywebpush import WebPushException, webpush

from .settings import VAPID_CLAIMS, VAPID_PRIVATE_KEY

logger = logging.getLogger(__name__)

GONE = (404, 410)


class PushServiceDown(RuntimeError):
    """The push service itself failed; the rest of the batch would fail the same way."""


def send_push(subscription: dict, payload: dict) -> bool:
    try:
        webpush(
            subscription_info=subscription,
            data=json.dumps(payload),
            vapid_private_key=VAPID_PRIVATE_KEY,
            vapid_claims=dict(VAPID_CLAIMS),
            timeout=10,
        )
    except WebPushException as exc:
        status = exc.response.status_code if exc.response is not None else None
        if status in GONE:
            return False
        logger.error("push service failed (status=%s); aborting broadcast: %s", status, exc)
        raise PushServiceDown(str(exc)) from exc
    except requests.RequestException as exc:
        logger.error("push service unreachable; aborting broadcast: %s", exc)
        raise PushServiceDown(str(exc)) from exc
    return True
