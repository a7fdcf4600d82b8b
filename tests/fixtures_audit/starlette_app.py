import asyncio

from starlette.applications import Starlette
from starlette.endpoints import HTTPEndpoint
from starlette.responses import JSONResponse
from starlette.routing import Route


async def process(item):
    await asyncio.sleep(0)


async def homepage(request):
    return JSONResponse({"ok": True})


class Jobs(HTTPEndpoint):
    async def post(self, request):
        data = await request.json()
        for item in data["items"]:
            asyncio.create_task(process(item))
        return JSONResponse({"queued": True})


app = Starlette(routes=[Route("/", homepage), Route("/jobs", Jobs)])
