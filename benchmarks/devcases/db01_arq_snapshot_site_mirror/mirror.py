"""Copies site archives from the data portal into the mirror bucket."""
from .listing import Site
from .spawner import TaskSpawner


class SiteMirror:
    def __init__(self, http, s3, bucket: str) -> None:
        self._http = http
        self._s3 = s3
        self._bucket = bucket
        self.spawner = TaskSpawner()

    async def _mirror_one(self, site: Site) -> bool:
        resp = await self._http.get(site.download_url, follow_redirects=True)
        resp.raise_for_status()
        await self._s3.put_object(Bucket=self._bucket, Key=f"{site.network}/{site.site_id}.zip", Body=resp.content)
        return True

    async def mirror_all(self, sites: list[Site]) -> int:
        for site in sites:
            self.spawner.spawn(self._mirror_one(site))
        results = await self.spawner.join()
        return sum(1 for r in results if r is True)
