"""Telemetry bridge: NATS JetStream pull consumer forwarding to Kafka (case db14)."""
