# Pattern: dpkp/kafka-python #689 - a KafkaProducer built and closed per batch leaked file
# handles; the fix shape is one long-lived producer. Not a hazard: the task loops over changed
# orders (repo.py), but publish (events.py) reuses the process's producer, opened once by the
# worker_process_init handler in producer.py.
"""Celery tasks."""
from celery import Task, shared_task

from .events import OrderEventPublisher
from .repo import changed_orders, save_checkpoint


class PublishingTask(Task):
    _publisher: OrderEventPublisher | None = None

    @property
    def publisher(self) -> OrderEventPublisher:
        if self._publisher is None:
            self._publisher = OrderEventPublisher(topic="orders.changed")
        return self._publisher


@shared_task(bind=True, base=PublishingTask, acks_late=True)
def publish_changed_orders(self, since_id: int) -> int:
    last_id = since_id
    for order in changed_orders(since_id):
        self.publisher.publish(order)
        last_id = order["id"]
    self.publisher.flush()
    save_checkpoint("orders.changed", last_id)
    return last_id
