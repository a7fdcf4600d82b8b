"""WSGI entry point."""
import os

import falcon
import requests

from .index import ManifestIndex
from .resources import VerifyManifestResource


def create_app() -> falcon.App:
    app = falcon.App()
    index = ManifestIndex(os.environ["INDEX_URL"], requests.Session())
    app.add_route("/manifests/{manifest_id}/verify", VerifyManifestResource(index, os.environ["BLOB_URL"]))
    return app
