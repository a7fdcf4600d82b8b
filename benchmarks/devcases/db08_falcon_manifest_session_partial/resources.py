# Incident: proxystore/proxystore #289 - endpoint client functions issued every request on a new
# connection; 4 workers x 1000 queries exhausted ports ("[Errno 99] Cannot assign requested address").
# Hazard: the manifest's keys come from the index at run time (index.py); each key goes through a
# functools.partial of blobs.get_blob, which opens a new requests.Session per call (blobs.py).
"""Falcon resources."""
import functools
import hashlib

import falcon

from . import blobs
from .index import ManifestIndex


class VerifyManifestResource:
    def __init__(self, index: ManifestIndex, blob_endpoint: str) -> None:
        self._index = index
        self._endpoint = blob_endpoint

    def on_post(self, req: falcon.Request, resp: falcon.Response, manifest_id: str) -> None:
        manifest = self._index.load(manifest_id)
        fetch = functools.partial(blobs.get_blob, self._endpoint)
        mismatched = []
        for entry in manifest["entries"]:
            if hashlib.sha256(fetch(entry["key"])).hexdigest() != entry["sha256"]:
                mismatched.append(entry["key"])
        resp.media = {"manifest": manifest_id, "checked": len(manifest["entries"]), "mismatched": mismatched}
