# Pattern: dynasticorpheus/gigasetelements-cli #27 - with the internet down the script spun at
# 100% CPU logging the same login error; the fix shape is a pause between attempts. Not a
# hazard: the except path below calls Backoff.wait (backoff.py), at least 2.5 s and doubling to
# 300 s, before the next attempt, so one error line per pause.
"""Daemon main loop."""
import logging

import requests

from .api import ElementsClient
from .backoff import Backoff
from .poller import EventPoller

log = logging.getLogger("bridge")


def run_forever(username: str, password: str, interval_s: float = 30.0) -> None:
    client = ElementsClient(username, password)
    poller = EventPoller(client, interval_s)
    backoff = Backoff()
    while True:
        try:
            client.login()
            backoff.reset()
            poller.run()
        except requests.RequestException as exc:
            log.error("connection to the cloud failed: %s; retrying in about %.0f s", exc, backoff.delay)
            backoff.wait()
