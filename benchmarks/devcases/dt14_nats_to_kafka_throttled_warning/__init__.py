# Bounded: see consumer.py and forwarder.py; the forwarder's log is throttled(...) from logs.py,
# a wrapper that emits each distinct message template at most once per 30 s (counting the rest
# and reporting the count with the next line), so a Kafka outage logs one warning per 30 s, not
# one per fetched message.
"""Telemetry bridge: NATS JetStream pull consumer forwarding to Kafka (trap dt14)."""
