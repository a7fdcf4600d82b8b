"""Archive restore service on aiohttp.web (case db03)."""
