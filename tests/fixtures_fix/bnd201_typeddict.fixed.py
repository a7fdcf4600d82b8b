"""BND201 fix, TypedDict: `Annotated[X, Field(max_length=N)]`, which pydantic and FastAPI enforce."""
from typing import NotRequired, TypedDict, Annotated

from fastapi import FastAPI
from pydantic import Field

app = FastAPI()


class WebhookBody(TypedDict):
    event: str
    targets: Annotated[list[str], Field(max_length=100)]  # error: BND201 col 5
    headers: NotRequired[Annotated[dict[str, str], Field(max_length=100)]]  # error: BND201 col 5


@app.post("/webhooks")
async def register(body: WebhookBody):
    return body
