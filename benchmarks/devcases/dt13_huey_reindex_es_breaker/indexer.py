"""Writes single documents to the search index."""
import logging

from elastic_transport import ConnectionError as TransportConnectionError

from .breaker import CircuitBreaker

log = logging.getLogger(__name__)


class DocIndexer:
    def __init__(self, es, index: str, breaker: CircuitBreaker) -> None:
        self._es = es
        self._index = index
        self._breaker = breaker

    def index_doc(self, doc: dict) -> bool:
        self._breaker.check()
        try:
            self._es.index(index=self._index, id=doc["_id"], document=doc)
        except TransportConnectionError:
            log.exception("could not index %s", doc["_id"])
            self._breaker.record_failure()
            return False
        self._breaker.record_success()
        return True
