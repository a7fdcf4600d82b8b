"""Walks an S3 prefix page by page and hands every page to a callback."""
import asyncio
from collections.abc import Callable


class PrefixLister:
    def __init__(self, s3) -> None:
        self._s3 = s3

    async def walk(self, bucket: str, prefix: str, on_page: Callable[[asyncio.Future], None]) -> None:
        token = None
        while True:
            kwargs = {"Bucket": bucket, "Prefix": prefix, "MaxKeys": 1000}
            if token:
                kwargs["ContinuationToken"] = token
            page_future = asyncio.ensure_future(self._s3.list_objects_v2(**kwargs))
            page_future.add_done_callback(on_page)
            page = await page_future
            if not page.get("IsTruncated"):
                return
            token = page["NextContinuationToken"]
