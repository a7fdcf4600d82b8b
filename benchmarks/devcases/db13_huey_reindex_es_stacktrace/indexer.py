"""Writes single documents to the search index."""
import logging

from elastic_transport import ConnectionError as TransportConnectionError

log = logging.getLogger(__name__)


class DocIndexer:
    def __init__(self, es, index: str) -> None:
        self._es = es
        self._index = index

    def index_doc(self, doc: dict) -> bool:
        try:
            self._es.index(index=self._index, id=doc["_id"], document=doc)
        except TransportConnectionError:
            log.exception("could not index %s", doc["_id"])  # expect: LOG-IN-LOOP
            return False
        return True
