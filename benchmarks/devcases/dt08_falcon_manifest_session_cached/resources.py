# Pattern: proxystore/proxystore #289 - endpoint client functions opened a new connection per
# request until ports ran out; the fix shape is one reused session. Not a hazard: each key still
# goes through a functools.partial of blobs.get_blob, but get_blob takes its session from
# sessions.session_for (sessions.py), cached per endpoint, and the endpoint is fixed in app.py.
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
