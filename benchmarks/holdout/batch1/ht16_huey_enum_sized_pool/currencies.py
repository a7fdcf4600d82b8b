"""Currencies the pricing service quotes in."""
from enum import Enum


class Currency(str, Enum):
    EUR = "EUR"
    GBP = "GBP"
    JPY = "JPY"
    CHF = "CHF"
    CAD = "CAD"
    AUD = "AUD"


BASE = "USD"
