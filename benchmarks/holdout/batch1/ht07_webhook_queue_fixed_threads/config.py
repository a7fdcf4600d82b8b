"""Scanner settings."""
import os

WEBHOOK_URLS = [u for u in os.environ.get("WEBHOOK_URLS", "").split(",") if u]
WEBHOOK_TIMEOUT_S = float(os.environ.get("WEBHOOK_TIMEOUT_S", "2"))
WEBHOOK_THREADS = 4
WEBHOOK_QUEUE_MAX = 10_000
