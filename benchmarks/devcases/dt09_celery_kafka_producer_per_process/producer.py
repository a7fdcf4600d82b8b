"""One Kafka producer per Celery worker process, opened and closed by worker signals."""
import json

from celery import current_app
from celery.signals import worker_process_init, worker_process_shutdown
from kafka import KafkaProducer

_producer: KafkaProducer | None = None


@worker_process_init.connect
def _open_producer(**_kwargs) -> None:
    global _producer
    _producer = KafkaProducer(
        bootstrap_servers=current_app.conf.kafka_servers,
        value_serializer=lambda v: json.dumps(v).encode(),
        linger_ms=20,
    )


@worker_process_shutdown.connect
def _close_producer(**_kwargs) -> None:
    global _producer
    if _producer is not None:
        _producer.close(timeout=5)
        _producer = None


def current_producer() -> KafkaProducer:
    if _producer is None:
        raise RuntimeError("Kafka producer not open: tasks must run in a prefork worker process")
    return _producer
