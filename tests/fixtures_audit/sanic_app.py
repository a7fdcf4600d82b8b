import asyncio

from sanic import Sanic
from sanic.response import json

app = Sanic("notify")


async def send(user):
    await asyncio.sleep(0)


@app.post("/notify")
async def notify(request):
    for user in request.json["users"]:
        asyncio.ensure_future(send(user))
    return json({"sent": True})
