# Pattern: JohnPaton/airbase #47 - the fix for "too many open files" on large downloads put a
# semaphore around each download. Not a hazard: the gather below looks unbounded, but every
# coroutine it runs is the decorated download_station_file (fetch.py), limited in limits.py.
"""Dataset refresh route."""
import asyncio

from quart import Blueprint, current_app, jsonify

from .fetch import download_station_file, station_urls

bp = Blueprint("datasets", __name__)


@bp.post("/datasets/<country>/refresh")
async def refresh_country(country: str):
    client = current_app.config["HTTP_CLIENT"]
    urls = await station_urls(client, country)
    paths = await asyncio.gather(*(download_station_file(client, url, current_app.config["CACHE_DIR"]) for url in urls))
    return jsonify({"country": country, "files": len(paths)})
