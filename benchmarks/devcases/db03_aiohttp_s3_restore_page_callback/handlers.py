"""HTTP routes: restore every archived object under a prefix."""
import asyncio

from aiohttp import web

from .lister import PrefixLister
from .restorer import Restorer

routes = web.RouteTableDef()


@routes.post("/archives/{prefix}/restore")
async def restore_prefix(request: web.Request) -> web.Response:
    s3 = request.app["s3"]
    restorer = Restorer(s3, bucket=request.app["bucket"])
    await PrefixLister(s3).walk(request.app["bucket"], request.match_info["prefix"], restorer.on_page)
    results = await asyncio.gather(*restorer.pending, return_exceptions=True)
    failed = sum(1 for r in results if isinstance(r, BaseException))
    return web.json_response({"restored": len(results) - failed, "failed": failed})
