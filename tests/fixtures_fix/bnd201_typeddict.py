"""BND201 fix, TypedDict: `Annotated[X, Field(max_length=N)]`, which pydantic and FastAPI enforce."""
from typing import NotRequired, TypedDict

from fastapi import FastAPI

app = FastAPI()


class WebhookBody(TypedDict):
    event: str
    targets: list[str]  # error: BND201 col 5
    headers: NotRequired[dict[str, str]]  # error: BND201 col 5


@app.post("/webhooks")
async def register(body: WebhookBody):
    return body
