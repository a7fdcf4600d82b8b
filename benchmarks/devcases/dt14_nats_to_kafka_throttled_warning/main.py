"""Entry point: one producer for the process."""
import asyncio
import os

from aiokafka import AIOKafkaProducer

from .consumer import run
from .forwarder import Forwarder


async def main() -> None:
    producer = AIOKafkaProducer(bootstrap_servers=os.environ["KAFKA_BOOTSTRAP"])
    await producer.start()
    try:
        await run(os.environ["NATS_URL"], Forwarder(producer, "telemetry"))
    finally:
        await producer.stop()


if __name__ == "__main__":
    asyncio.run(main())
