# Pattern: look-alike of aio-libs/aiobotocore #451 (a task per listed S3 key). Not a hazard:
# the callback fans out over Region (regions.py), a fixed enum of 4; inside a region the stale
# uploads are aborted one after another.
"""Aborts stale multipart uploads in every region."""
import asyncio
import datetime as dt

from aiobotocore.session import AioSession

from .regions import Region

STALE_AFTER = dt.timedelta(days=2)


class UploadSweeper:
    def __init__(self, session: AioSession, bucket_prefix: str) -> None:
        self._session = session
        self._prefix = bucket_prefix
        self.tasks: list[asyncio.Task] = []

    async def _sweep_region(self, region: Region) -> int:
        aborted = 0
        cutoff = dt.datetime.now(dt.timezone.utc) - STALE_AFTER
        async with self._session.create_client("s3", region_name=region.value) as s3:
            bucket = f"{self._prefix}-{region.value}"
            page = await s3.list_multipart_uploads(Bucket=bucket)
            for upload in page.get("Uploads", []):
                if upload["Initiated"] < cutoff:
                    await s3.abort_multipart_upload(Bucket=bucket, Key=upload["Key"], UploadId=upload["UploadId"])
                    aborted += 1
        return aborted

    def _on_credentials(self, creds_future: asyncio.Future) -> None:
        if creds_future.cancelled() or creds_future.exception() is not None:
            return
        for region in Region:
            self.tasks.append(asyncio.ensure_future(self._sweep_region(region)))

    async def run(self) -> int:
        creds_future = asyncio.ensure_future(self._session.get_credentials())
        creds_future.add_done_callback(self._on_credentials)
        await creds_future
        results = await asyncio.gather(*self.tasks, return_exceptions=True)
        return sum(r for r in results if isinstance(r, int))
