"""Admin route that triggers a sweep."""
from aiohttp import web

from .sweeper import UploadSweeper

routes = web.RouteTableDef()


@routes.post("/admin/sweep-uploads")
async def sweep_uploads(request: web.Request) -> web.Response:
    sweeper = UploadSweeper(request.app["aws_session"], request.app["bucket_prefix"])
    aborted = await sweeper.run()
    return web.json_response({"aborted": aborted})
