"""BND201 fix, attrs: `validators.max_len(N)` added to the field's validators."""
import attr
from attrs import define, field, validators

from fastapi import FastAPI

app = FastAPI()


def _known(instance, attribute, value):
    if not value:
        raise ValueError("empty")


@define
class ImportJob:
    sources: list[str] = field(validator=validators.max_len(100))  # error: BND201 col 5
    mirrors: list[str] = field(factory=list, validator=validators.max_len(100))  # error: BND201 col 5
    regions: list[str] = field(factory=list, validator=[_known, validators.max_len(100)])  # error: BND201 col 5
    zones: list[str] = field(factory=list, validator=[validators.instance_of(list), _known, validators.max_len(100)])  # error: BND201 col 5


@attr.s
class LegacyJob:
    tags = attr.ib(factory=list, validator=validators.max_len(100))  # error: BND201 col 5


@app.post("/imports")
async def start_import(job: ImportJob, legacy: LegacyJob):
    return job
