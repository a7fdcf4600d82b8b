# Look-alike of dpkp/kafka-python issue #1306 (a consumer that logged ~1 TB in three days). Not a
# log storm: index_event (indexer.py) logs only when codec.decode (codec.py, in-process msgspec)
# rejects a malformed payload, a per-message data fault; an Elasticsearch failure is not caught,
# so it propagates out of run() before the batch is committed and the pod restarts with backoff.
"""Kafka consumer loop of the search indexer."""
from __future__ import annotations

from confluent_kafka import Consumer

from .indexer import EventIndexer


def run(consumer: Consumer, indexer: EventIndexer, topics: list[str]) -> None:
    consumer.subscribe(topics)
    try:
        while True:
            messages = consumer.consume(num_messages=500, timeout=1.0)
            for message in messages:
                if message.error():
                    continue
                indexer.index_event(message.value(), message.offset())
            if messages:
                consumer.commit(asynchronous=False)
    finally:
        consumer.close()
