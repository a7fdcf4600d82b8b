# Bounded: the asyncpg pool is created once in worker.startup() (worker.py, arq on_startup) and every job only acquires from ctx["pool"] through repository.py.
"""Billing worker on arq with a shared pool (trap ht11)."""
