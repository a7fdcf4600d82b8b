# Bounded: see tasks.py; OrderEventPublisher.publish (events.py) sends through current_producer()
# from producer.py, whose one KafkaProducer per worker process is built by a worker_process_init
# signal handler (start-up, once) and closed by worker_process_shutdown.
"""Order change feed: Celery task that publishes changed orders to Kafka (trap dt09)."""
