"""Forwards one NATS message to Kafka and acks or naks it."""
import logging

from aiokafka import AIOKafkaProducer
from aiokafka.errors import KafkaError

from .logs import throttled

log = throttled(logging.getLogger(__name__), interval_s=30.0)


class Forwarder:
    def __init__(self, producer: AIOKafkaProducer, topic: str) -> None:
        self._producer = producer
        self._topic = topic

    async def forward(self, msg) -> None:
        try:
            await self._producer.send_and_wait(self._topic, msg.data, key=msg.subject.encode())
        except KafkaError as exc:
            log.warning("could not forward %s to kafka: %s", msg.subject, exc)
            await msg.nak(delay=5)
            return
        await msg.ack()
