"""Publishes job messages to the render exchange."""
from __future__ import annotations

import json

import pika

from .config import EXCHANGE, QUEUE, RABBIT_HOST, RABBIT_PASSWORD, RABBIT_USER


def publish_job(job: dict) -> None:
    params = pika.ConnectionParameters(
        host=RABBIT_HOST, credentials=pika.PlainCredentials(RABBIT_USER, RABBIT_PASSWORD), heartbeat=30
    )
    connection = pika.BlockingConnection(params)  # expect: CONN-PER-ITEM
    try:
        channel = connection.channel()
        channel.exchange_declare(exchange=EXCHANGE, exchange_type="direct", durable=True)
        channel.queue_declare(queue=QUEUE, durable=True, arguments={"x-max-priority": 10})
        channel.queue_bind(queue=QUEUE, exchange=EXCHANGE, routing_key=QUEUE)
        channel.basic_publish(
            exchange=EXCHANGE,
            routing_key=QUEUE,
            body=json.dumps(job).encode(),
            properties=pika.BasicProperties(delivery_mode=2, priority=job.get("priority", 0)),
        )
    finally:
        connection.close()
