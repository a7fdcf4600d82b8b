"""Writes one change event into the search index."""
from __future__ import annotations

import logging

from elasticsearch import Elasticsearch

from . import codec

logger = logging.getLogger(__name__)


class EventIndexer:
    def __init__(self, es: Elasticsearch, index: str) -> None:
        self._es = es
        self._index = index
        self.skipped = 0

    def index_event(self, raw: bytes, offset: int) -> bool:
        try:
            event = codec.decode(raw)
        except codec.DecodeError as exc:
            self.skipped += 1
            logger.warning("skipping undecodable event at offset %d: %s", offset, exc)
            return False
        doc_id = f"{event.table}:{event.pk}"
        if event.op == "delete":
            self._es.delete(index=self._index, id=doc_id, ignore=[404])
        else:
            self._es.index(index=self._index, id=doc_id, document=event.after)
        return True
