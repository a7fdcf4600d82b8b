"""Order change feed: Celery task that publishes changed orders to Kafka (case db09)."""
