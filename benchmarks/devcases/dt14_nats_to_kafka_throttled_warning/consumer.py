# Pattern: quixio/quix-streams #264 - every "all brokers down" error was logged, flooding logs
# while Kafka was unavailable; the fix was to stop logging each one. Not a hazard: each batch
# (up to 200 messages) still goes message by message to Forwarder.forward (forwarder.py), but
# its logger is the throttled wrapper from logs.py: one warning per 30 s during an outage.
"""Pull loop."""
import nats
from nats.errors import TimeoutError as NatsTimeout

from .forwarder import Forwarder


async def run(nats_url: str, forwarder: Forwarder) -> None:
    nc = await nats.connect(nats_url)
    js = nc.jetstream()
    sub = await js.pull_subscribe("telemetry.>", durable="kafka-bridge")
    while True:
        try:
            batch = await sub.fetch(200, timeout=5)
        except NatsTimeout:
            continue
        for msg in batch:
            await forwarder.forward(msg)
