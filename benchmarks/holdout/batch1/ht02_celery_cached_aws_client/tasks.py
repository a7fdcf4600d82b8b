# Look-alike rebuilt from the fix in nationalarchives/ds-caselaw-custom-api-client PR #1750
# ("Cache aws clients"). Not connection churn: the per-uri loop reaches boto3 only through
# get_aws_client() (aws.py), which functools.cache memoises per service name.
"""Celery tasks for bulk publication."""
from __future__ import annotations

import logging

from celery import shared_task

from .api_client import CaseLawAPIClient
from .marklogic import get_marklogic

log = logging.getLogger(__name__)


@shared_task(bind=True, acks_late=True)
def publish_batch(self, uris: list[str]) -> dict[str, int]:
    client = CaseLawAPIClient(get_marklogic())
    assets = 0
    for uri in uris:
        client.set_published(uri, True)
        assets += client.publish_assets(uri)
        client.notify_published(uri)
    log.info("published %d judgments with %d assets", len(uris), assets)
    return {"judgments": len(uris), "assets": assets}
