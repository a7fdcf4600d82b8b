"""Sends one web-push notification."""
from __future__ import annotations

import json
import logging

from pywebpush import WebPushException, webpush

from .settings import VAPID_CLAIMS, VAPID_PRIVATE_KEY

logger = logging.getLogger(__name__)


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
        logger.warning("push to %s failed (status=%s): %s", subscription.get("endpoint"), status, exc)  # expect: LOG-IN-LOOP
        return False
    return True
