# Incident: aio-libs/aiobotocore #451 - keys from list_objects_v2 pages were all fetched with one
# asyncio.gather(); S3 calls timed out once the prefix held thousands of objects.
# Hazard: on_page (registered with add_done_callback in lister.py) starts one restore task per key
# of every page; nothing caps the tasks, and the prefix size is whatever S3 returns.
"""Restores archived objects back to the standard storage class."""
import asyncio


class Restorer:
    def __init__(self, s3, bucket: str) -> None:
        self._s3 = s3
        self._bucket = bucket
        self.pending: set[asyncio.Task] = set()

    async def _restore(self, key: str) -> None:
        await self._s3.restore_object(Bucket=self._bucket, Key=key, RestoreRequest={"Days": 7})

    def on_page(self, page_future: asyncio.Future) -> None:
        if page_future.cancelled() or page_future.exception() is not None:
            return
        for obj in page_future.result().get("Contents", []):
            task = asyncio.ensure_future(self._restore(obj["Key"]))  # expect: FANOUT
            self.pending.add(task)
