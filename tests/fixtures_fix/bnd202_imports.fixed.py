"""BND202 fix, FastAPI: Body and Annotated imported once for parameters with no marker."""
from fastapi import FastAPI, Body
from typing import Annotated

app = FastAPI()


@app.post("/tags")
async def set_tags(tags: Annotated[list[str], Body(max_length=100)]):  # error: BND202 col 20
    return tags


@app.post("/owners")
async def set_owners(owners: Annotated[list[int], Body(max_length=100)]):  # error: BND202 col 22
    return owners
