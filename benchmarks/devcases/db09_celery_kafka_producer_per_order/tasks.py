# Incident: dpkp/kafka-python #689 - a new KafkaProducer was created and closed for every batch;
# file handles climbed until "[Errno 24] Too many open files".
# Hazard: the task loops over changed orders from the database (repo.py) and calls
# self.publisher.publish (events.py), which builds a KafkaProducer on every call.
"""Celery tasks."""
from celery import Task, shared_task

from .events import OrderEventPublisher
from .repo import changed_orders, save_checkpoint


class PublishingTask(Task):
    _publisher: OrderEventPublisher | None = None

    @property
    def publisher(self) -> OrderEventPublisher:
        if self._publisher is None:
            self._publisher = OrderEventPublisher(self.app.conf.kafka_servers, topic="orders.changed")
        return self._publisher


@shared_task(bind=True, base=PublishingTask, acks_late=True)
def publish_changed_orders(self, since_id: int) -> int:
    last_id = since_id
    for order in changed_orders(since_id):
        self.publisher.publish(order)
        last_id = order["id"]
    save_checkpoint("orders.changed", last_id)
    return last_id
