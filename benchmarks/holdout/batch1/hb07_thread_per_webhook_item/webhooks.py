"""Webhook delivery to the configured endpoints."""
from __future__ import annotations

import logging
import threading

import requests

from .config import WEBHOOK_URLS, WEBHOOK_TIMEOUT_S

log = logging.getLogger(__name__)


def _post(payload: dict) -> None:
    for url in WEBHOOK_URLS:
        try:
            requests.post(url, json=payload, timeout=WEBHOOK_TIMEOUT_S)
        except requests.RequestException:
            pass


def send_to_webhook(message_type: str, message: dict) -> None:
    if not WEBHOOK_URLS:
        return
    payload = {"type": message_type, "message": message}
    threading.Thread(target=_post, args=(payload,), daemon=True).start()  # expect: FANOUT
