"""Enqueues broadcasts with a paced retry policy."""
from __future__ import annotations

from redis import Redis
from rq import Queue, Retry

from .jobs import broadcast


def schedule_broadcast(redis: Redis, campaign_id: int):
    queue = Queue("push", connection=redis)
    return queue.enqueue(broadcast, campaign_id, retry=Retry(max=5, interval=[60, 300, 900, 1800, 3600]), job_timeout=3600)
