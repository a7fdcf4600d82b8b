# Bounded: see routes.py; download_station_file (fetch.py) is wrapped by @bounded(DOWNLOAD_SLOTS)
# from limits.py, an asyncio.Semaphore: at most 8 downloads (and open files) at once.
"""Air-quality station file cache on Quart (trap dt01)."""
