# Bounded: the reconnect path of worker.pull_loop awaits retry.Backoff.pause() (retry.py: jittered exponential sleep, 0.2 s doubling to 30 s), and an idle fetch already waits up to 5 s server-side (source.py).
"""Audit-log sink: NATS JetStream pull consumer (trap ht05)."""
