"""Publishes order events to Kafka."""
from .producer import current_producer


class OrderEventPublisher:
    def __init__(self, topic: str) -> None:
        self.topic = topic

    def publish(self, order: dict) -> None:
        current_producer().send(self.topic, key=str(order["id"]).encode(), value=order)

    def flush(self) -> None:
        current_producer().flush(timeout=30)
