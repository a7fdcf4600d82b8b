"""Reads a snapshot manifest (one CSV row per site) from object storage."""
import csv
import io
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Site:
    site_id: str
    network: str
    download_url: str


async def read_snapshot(s3, key: str) -> list[Site]:
    obj = await s3.get_object(Bucket="flux-snapshots", Key=key)
    body = (await obj["Body"].read()).decode()
    reader = csv.DictReader(io.StringIO(body))
    return [Site(row["site_id"], row["network"], row["download_link"]) for row in reader]
