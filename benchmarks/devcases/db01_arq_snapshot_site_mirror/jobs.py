# Incident: fluxnet/shuttle #140 - download() built one task per site of a snapshot (652 sites)
# and ran them all at once; "[Errno 24] Too many open files" half way through.
# Hazard: the site list is read from S3 at run time (listing.py); SiteMirror.mirror_all (mirror.py)
# hands one coroutine per site to TaskSpawner.spawn (spawner.py), which create_task()s it with no cap.
"""arq jobs for the site mirror."""
import httpx
from aiobotocore.session import get_session

from .listing import read_snapshot
from .mirror import SiteMirror


async def sync_snapshot(ctx: dict, snapshot_key: str) -> dict[str, int]:
    sites = await read_snapshot(ctx["s3"], snapshot_key)
    mirror = SiteMirror(ctx["http"], ctx["s3"], bucket=ctx["bucket"])
    copied = await mirror.mirror_all(sites)
    return {"sites": len(sites), "copied": copied}


async def startup(ctx: dict) -> None:
    ctx["http"] = httpx.AsyncClient(timeout=httpx.Timeout(60.0, connect=10.0))
    ctx["s3_cm"] = get_session().create_client("s3")
    ctx["s3"] = await ctx["s3_cm"].__aenter__()
    ctx["bucket"] = "flux-mirror"


async def shutdown(ctx: dict) -> None:
    await ctx["http"].aclose()
    await ctx["s3_cm"].__aexit__(None, None, None)


class WorkerSettings:
    functions = [sync_snapshot]
    on_startup = startup
    on_shutdown = shutdown
