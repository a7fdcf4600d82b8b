# Rebuilt from dpkp/kafka-python issue "KafkaConsumer stuck in infinite loop on connection error"
# (a consumer filled ~1 TB of logs in 3 days) and the same storm one level up in indexers: when
# the downstream store is down, every consumed message logs its own error. Hazard: run() feeds
# every message of every poll batch to index_event (indexer.py), which logs once per failed write.
"""Kafka consumer loop of the search indexer."""
from __future__ import annotations

import logging

from confluent_kafka import Consumer

from .indexer import EventIndexer

log = logging.getLogger(__name__)


def run(consumer: Consumer, indexer: EventIndexer, topics: list[str]) -> None:
    consumer.subscribe(topics)
    try:
        while True:
            messages = consumer.consume(num_messages=500, timeout=1.0)
            for message in messages:
                if message.error():
                    continue
                indexer.index_event(message.value())
            if messages:
                consumer.commit(asynchronous=True)
    finally:
        consumer.close()
