# Incident: dynasticorpheus/gigasetelements-cli #27 - with the internet down the script took
# 100% CPU and flooded its log with the same login error.
# Hazard: run_forever retries login + polling with no pause on failure; the only sleep is on the
# success path inside EventPoller.run (poller.py), and every failed attempt logs an error.
"""Daemon main loop."""
import logging

import requests

from .api import ElementsClient
from .poller import EventPoller

log = logging.getLogger("bridge")


def run_forever(username: str, password: str, interval_s: float = 30.0) -> None:
    client = ElementsClient(username, password)
    poller = EventPoller(client, interval_s)
    while True:  # expect: LOG-IN-LOOP
        try:
            client.login()
            poller.run()
        except requests.RequestException as exc:
            log.error("connection to the cloud failed: %s", exc)  # expect: LOG-IN-LOOP
