# Bounded: parse_map only enqueues; webhooks.start_webhook_workers() starts config.WEBHOOK_THREADS (4) threads once, from the scanner's startup in main.py.
"""Map scanner with a webhook queue (trap ht07)."""
