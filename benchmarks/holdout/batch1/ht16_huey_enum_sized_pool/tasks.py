# Look-alike of the executor-sized-from-input hazard (max_workers=len(items)) seen in workflow
# engines. Not unbounded: the items here are the members of the Currency enum (currencies.py), six
# values fixed in code, so the pool never exceeds six threads and one provider call each.
"""Huey periodic task that refreshes cached FX rates."""
from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor

import requests
from django.core.cache import cache
from huey import crontab
from huey.contrib.djhuey import db_periodic_task

from .currencies import Currency
from .rates import fetch_rate

log = logging.getLogger(__name__)


@db_periodic_task(crontab(minute="*/10"))
def refresh_rates() -> dict[str, float]:
    currencies = list(Currency)
    with requests.Session() as session, ThreadPoolExecutor(max_workers=len(currencies)) as pool:
        rates = dict(zip((c.value for c in currencies), pool.map(lambda c: fetch_rate(session, cache, c), currencies)))
    log.info("refreshed %d FX rates", len(rates))
    return rates
