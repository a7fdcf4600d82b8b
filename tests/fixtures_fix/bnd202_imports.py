"""BND202 fix, FastAPI: Body and Annotated imported once for parameters with no marker."""
from fastapi import FastAPI

app = FastAPI()


@app.post("/tags")
async def set_tags(tags: list[str]):  # error: BND202 col 20
    return tags


@app.post("/owners")
async def set_owners(owners: list[int]):  # error: BND202 col 22
    return owners
