# Pattern: scitran/core #371 - a full stack trace per Elasticsearch connection error flooded the
# log while ES was down. Not a hazard: the loop below still calls index_doc per changed row
# (repo.py), but the CircuitBreaker (breaker.py) that index_doc (indexer.py) reports to raises
# SearchUnavailable on the third consecutive failure, which ends the loop.
"""Huey tasks."""
import logging

from elasticsearch import Elasticsearch
from huey import crontab
from huey.contrib.djhuey import db_periodic_task

from .breaker import CircuitBreaker, SearchUnavailable
from .indexer import DocIndexer
from .repo import changed_since, load_checkpoint, store_checkpoint

log = logging.getLogger(__name__)

indexer = DocIndexer(Elasticsearch("http://search:9200", request_timeout=10), index="acquisitions", breaker=CircuitBreaker())


@db_periodic_task(crontab(minute="*/5"))
def reindex_changed() -> None:
    checkpoint = load_checkpoint()
    newest = checkpoint
    try:
        for doc in changed_since(checkpoint):
            indexer.index_doc(doc)
            newest = max(newest, doc["modified"])
    except SearchUnavailable as exc:
        log.warning("reindex stopped at %s: %s", newest, exc)
    store_checkpoint(newest)
