"""Fetches one rate from the FX provider and caches it."""
from __future__ import annotations

import requests

from .currencies import BASE, Currency

PROVIDER_URL = "https://fx.example.com/v2/latest"


def fetch_rate(session: requests.Session, cache, currency: Currency) -> float:
    response = session.get(PROVIDER_URL, params={"base": BASE, "symbol": currency.value}, timeout=5)
    response.raise_for_status()
    rate = float(response.json()["rate"])
    cache.set(f"fx:{BASE}:{currency.value}", rate, timeout=900)
    return rate
