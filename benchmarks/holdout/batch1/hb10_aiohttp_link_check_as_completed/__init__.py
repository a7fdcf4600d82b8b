"""Link-check microservice on aiohttp.web (case hb10)."""
