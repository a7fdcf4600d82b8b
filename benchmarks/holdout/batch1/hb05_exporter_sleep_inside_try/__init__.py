"""UPS metrics exporter: apcupsd status to InfluxDB (case hb05)."""
