"""Polls for new alarm events and forwards them to the home automation bus."""
import time

from .api import ElementsClient
from .bus import publish_event


class EventPoller:
    def __init__(self, client: ElementsClient, interval_s: float) -> None:
        self._client = client
        self._interval = interval_s
        self._since = 0

    def run(self) -> None:
        while True:
            for event in self._client.events(self._since):
                publish_event(event)
                self._since = max(self._since, event["ts"])
            time.sleep(self._interval)
