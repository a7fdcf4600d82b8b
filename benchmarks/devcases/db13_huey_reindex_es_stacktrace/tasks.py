# Incident: scitran/core #371 - a full stack trace was logged for every Elasticsearch
# NewConnectionError, "since it'll happen a lot" while ES is down.
# Hazard: reindex_changed loops over the changed rows (repo.py) and calls indexer.index_doc
# (indexer.py), which logs an exception per document when Elasticsearch is unreachable.
"""Huey tasks."""
from elasticsearch import Elasticsearch
from huey import crontab
from huey.contrib.djhuey import db_periodic_task

from .indexer import DocIndexer
from .repo import changed_since, load_checkpoint, store_checkpoint

indexer = DocIndexer(Elasticsearch("http://search:9200", request_timeout=10), index="acquisitions")


@db_periodic_task(crontab(minute="*/5"))
def reindex_changed() -> None:
    checkpoint = load_checkpoint()
    newest = checkpoint
    for doc in changed_since(checkpoint):
        indexer.index_doc(doc)
        newest = max(newest, doc["modified"])
    store_checkpoint(newest)
