# Look-alike of laravel-notification-channels/webpush issue #146 (one warning per failed
# subscription). Not a log storm: expired subscriptions (404/410) return silently, and any other
# failure in send_push (push.py) logs once and raises PushServiceDown, which this loop does not
# catch; the job fails and RQ retries it on the schedule set in enqueue.py.
"""RQ job for campaign delivery."""
from __future__ import annotations

import logging

from .models import Campaign, Subscription
from .push import send_push

log = logging.getLogger(__name__)


def broadcast(campaign_id: int) -> dict[str, int]:
    campaign = Campaign.objects.get(pk=campaign_id)
    payload = {"title": campaign.title, "body": campaign.body, "url": campaign.url}
    sent = expired = 0
    for subscription in Subscription.objects.filter(active=True, campaign_sent__lt=campaign_id).iterator():
        if send_push(subscription.info, payload):
            sent += 1
        else:
            expired += 1
            subscription.active = False
        subscription.campaign_sent = campaign_id
        subscription.save(update_fields=["active", "campaign_sent"])
    log.info("campaign %s: %d sent, %d expired", campaign_id, sent, expired)
    return {"sent": sent, "expired": expired}
