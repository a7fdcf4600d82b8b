"""Alerting service: "send test notification" to a list of targets (case hb15)."""
