# Rebuilt from nationalarchives/ds-caselaw-custom-api-client PR "Cache aws clients": the client
# created a brand-new AWS client on every operation, and bulk ingestion leaked memory (boto3 is
# known to leak when creating many clients). Hazard: publish_batch walks every uri of the batch and
# each judgment builds two clients through create_aws_client() (aws.py, via api_client.py).
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
