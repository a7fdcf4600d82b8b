"""Writes one change event into the search index."""
from __future__ import annotations

import json
import logging

from elasticsearch import ConnectionError as ESConnectionError
from elasticsearch import Elasticsearch, TransportError

logger = logging.getLogger(__name__)


class EventIndexer:
    def __init__(self, es: Elasticsearch, index: str) -> None:
        self._es = es
        self._index = index
        self.failed = 0

    def index_event(self, raw: bytes) -> bool:
        event = json.loads(raw)
        doc_id = f"{event['table']}:{event['pk']}"
        try:
            if event["op"] == "delete":
                self._es.delete(index=self._index, id=doc_id, ignore=[404])
            else:
                self._es.index(index=self._index, id=doc_id, document=event["after"])
        except (ESConnectionError, TransportError) as exc:
            self.failed += 1
            logger.error("could not index %s: %s", doc_id, exc)  # expect: LOG-IN-LOOP
            return False
        return True
