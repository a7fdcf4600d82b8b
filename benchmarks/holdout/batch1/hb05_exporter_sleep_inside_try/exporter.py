# Rebuilt from atribe/apcupsd-influxdb-exporter PR "Reconnect to InfluxDB on connection error":
# the interval sleep sat inside the try, so any exception skipped it and the loop spun at 100%
# CPU, logging each failure. Hazard: when the UPS daemon (ups.py) or InfluxDB (sink.py) is
# unreachable the except path loops straight back with no pause and one error line per spin.
"""Exporter main loop."""
from __future__ import annotations

import logging
import time

from influxdb.exceptions import InfluxDBServerError
from requests.exceptions import ConnectionError as HTTPConnectionError
from requests.exceptions import HTTPError

from .sink import UpsSink
from .ups import UpsReader

log = logging.getLogger(__name__)


def run(reader: UpsReader, sink: UpsSink, interval_s: float = 10.0) -> None:
    while True:  # expect: LOG-IN-LOOP
        try:
            status = reader.read_status()
            sink.write(status)
            time.sleep(interval_s)
        except (HTTPError, HTTPConnectionError, InfluxDBServerError) as exc:
            log.error("export failed: %s", exc)  # expect: LOG-IN-LOOP
