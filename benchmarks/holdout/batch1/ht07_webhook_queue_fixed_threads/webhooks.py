"""Webhook delivery: a bounded queue drained by a fixed set of threads."""
from __future__ import annotations

import queue
import threading

import requests

from .config import WEBHOOK_QUEUE_MAX, WEBHOOK_THREADS, WEBHOOK_TIMEOUT_S, WEBHOOK_URLS

webhook_queue: "queue.Queue[dict]" = queue.Queue(maxsize=WEBHOOK_QUEUE_MAX)
dropped = 0


def _worker(session: requests.Session) -> None:
    while True:
        payload = webhook_queue.get()
        try:
            for url in WEBHOOK_URLS:
                try:
                    session.post(url, json=payload, timeout=WEBHOOK_TIMEOUT_S)
                except requests.RequestException:
                    pass
        finally:
            webhook_queue.task_done()


def start_webhook_workers() -> list[threading.Thread]:
    threads = []
    for index in range(WEBHOOK_THREADS):
        thread = threading.Thread(target=_worker, args=(requests.Session(),), name=f"webhook-{index}", daemon=True)
        thread.start()
        threads.append(thread)
    return threads


def send_to_webhook(message_type: str, message: dict) -> None:
    global dropped
    if not WEBHOOK_URLS:
        return
    try:
        webhook_queue.put_nowait({"type": message_type, "message": message})
    except queue.Full:
        dropped += 1
