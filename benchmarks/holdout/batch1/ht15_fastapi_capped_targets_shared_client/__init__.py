# Bounded: TestNotification.targets carries AfterValidator(max_items(5)) from validators.py, and deliver() posts through the one httpx.AsyncClient created in the lifespan in app.py.
"""Alerting service: capped "send test notification" (trap ht15)."""
