"""Publishes order events to Kafka."""
import json

from kafka import KafkaProducer


class OrderEventPublisher:
    def __init__(self, servers: list[str], topic: str) -> None:
        self.servers = servers
        self.topic = topic

    def publish(self, order: dict) -> None:
        producer = KafkaProducer(bootstrap_servers=self.servers, value_serializer=lambda v: json.dumps(v).encode())  # expect: CONN-PER-ITEM
        try:
            producer.send(self.topic, key=str(order["id"]).encode(), value=order)
            producer.flush()
        finally:
            producer.close(timeout=5)
