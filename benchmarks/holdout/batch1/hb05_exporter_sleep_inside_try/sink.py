"""InfluxDB writer for UPS points."""
from __future__ import annotations

from influxdb import InfluxDBClient

NUMERIC = ("LINEV", "LOADPCT", "BCHARGE", "TIMELEFT", "BATTV", "NOMPOWER")


class UpsSink:
    def __init__(self, client: InfluxDBClient, ups_name: str) -> None:
        self._client = client
        self._ups_name = ups_name

    def write(self, status: dict[str, str]) -> None:
        fields = {}
        for key in NUMERIC:
            if key in status:
                fields[key.lower()] = float(status[key].split()[0])
        self._client.write_points([{"measurement": "apcupsd", "tags": {"ups": self._ups_name}, "fields": fields}])
