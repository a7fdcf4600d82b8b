# Rebuilt from laravel-notification-channels/webpush issue #146 ("How to turn off warning
# messages": one "Notification failed to sent for subscription" warning per subscription polluted
# the logs of a large sender), here in a Python RQ job. Hazard: when the push service fails,
# send_push (push.py) logs once per subscriber, and a campaign reaches every active subscription.
"""RQ jobs for campaign delivery."""
from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor

from .models import Campaign, Subscription
from .push import send_push

log = logging.getLogger(__name__)

PUSH_THREADS = 8


def broadcast(campaign_id: int) -> dict[str, int]:
    campaign = Campaign.objects.get(pk=campaign_id)
    payload = {"title": campaign.title, "body": campaign.body, "url": campaign.url}
    subscriptions = list(Subscription.objects.filter(active=True).values_list("info", flat=True))
    with ThreadPoolExecutor(max_workers=PUSH_THREADS) as pool:
        results = list(pool.map(lambda info: send_push(info, payload), subscriptions))
    sent = sum(results)
    log.info("campaign %s: %d sent, %d failed", campaign_id, sent, len(results) - sent)
    return {"sent": sent, "failed": len(results) - sent}
