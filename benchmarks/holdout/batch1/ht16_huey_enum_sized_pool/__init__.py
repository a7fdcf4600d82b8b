# Bounded: the pool in tasks.refresh_rates is sized len(Currency), and Currency (currencies.py) is an Enum of six quote currencies fixed in code.
"""FX rate cache refreshed by a Huey periodic task (trap ht16)."""
