"""Long-lived AMQP publisher shared by the request threads."""
from __future__ import annotations

import json
import threading

import pika

EXCHANGE = "render"
QUEUE = "render.jobs"


class Publisher:
    def __init__(self, url: str) -> None:
        self._params = pika.URLParameters(url)
        self._lock = threading.Lock()
        self._connection = pika.BlockingConnection(self._params)
        self._channel = self._open_channel()

    def _open_channel(self):
        channel = self._connection.channel()
        channel.exchange_declare(exchange=EXCHANGE, exchange_type="direct", durable=True)
        channel.queue_declare(queue=QUEUE, durable=True, arguments={"x-max-priority": 10})
        channel.queue_bind(queue=QUEUE, exchange=EXCHANGE, routing_key=QUEUE)
        channel.confirm_delivery()
        return channel

    def publish(self, job: dict) -> None:
        body = json.dumps(job).encode()
        with self._lock:
            self._connection.process_data_events(time_limit=0)
            self._channel.basic_publish(
                exchange=EXCHANGE,
                routing_key=QUEUE,
                body=body,
                properties=pika.BasicProperties(delivery_mode=2, priority=job.get("priority", 0)),
            )

    def close(self) -> None:
        with self._lock:
            self._connection.close()
