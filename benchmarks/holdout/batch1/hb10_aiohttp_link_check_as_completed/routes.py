# Rebuilt from aio-libs/aiohttp issue #4067 (ClientConnectorError "Too many open files": gather
# over 20000 URLs with TCPConnector(limit=0)), in a site link-checker service. Hazard: the URL
# list is every outbound link crawled on the site (pages.py), as_completed starts one probe per
# link at once, and the shared session in app.py has limit=0, so nothing caps the sockets.
"""Link-check routes."""
from __future__ import annotations

import asyncio

from aiohttp import web

from .probe import probe

routes = web.RouteTableDef()


@routes.post("/v1/sites/{site_id}/check")
async def check_links(request: web.Request) -> web.Response:
    site_id = int(request.match_info["site_id"])
    urls = await request.app["pages"].outbound_links(site_id)
    session = request.app["http"]
    broken = []
    for finished in asyncio.as_completed([probe(session, url) for url in urls]):  # expect: FANOUT
        result = await finished
        if not result["ok"]:
            broken.append(result)
    return web.json_response({"checked": len(urls), "broken": broken})
