"""BND202 fix, FastAPI: `max_length=N` on the parameter's marker, or a Body marker where there is none."""
from typing import Annotated, List, Optional

import fastapi
from fastapi import Body, FastAPI, File, Query, UploadFile
from pydantic import BaseModel, Field

app = FastAPI()


class Post(BaseModel):
    title: str = Field(max_length=200)


@app.get("/posts")
async def get_posts(
    ids: list[str] = Query(default=[]),  # error: BND202 col 5
    tags: Annotated[Optional[List[str]], Query()] = None,  # error: BND202 col 5
    authors: Annotated[list[str], fastapi.Query(description="no cap")] = [],  # error: BND202 col 5
    capped: list[str] = Query(default=[], max_length=100),
):
    return ids


@app.post("/posts/bulk")
async def create_posts(posts: list[Post]):  # error: BND202 col 24
    return posts


@app.put("/posts/{post_id}/labels")
async def set_labels(post_id: int, labels: dict[str, str] = Body(...)):  # error: BND202 col 36
    return labels


@app.post("/upload")
async def upload(files: list[UploadFile] = File(...)):  # error: BND202 col 18
    return files
