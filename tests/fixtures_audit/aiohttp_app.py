from concurrent.futures import ThreadPoolExecutor

from aiohttp import web

routes = web.RouteTableDef()
executor = ThreadPoolExecutor(max_workers=8)


def resize(blob):
    return blob


@routes.get("/health")
async def health(request):
    return web.json_response({"ok": True})


async def upload(request):
    blobs = await request.json()
    return web.json_response(list(executor.map(resize, blobs)))


app = web.Application()
app.add_routes(routes)
app.router.add_post("/upload", upload)
