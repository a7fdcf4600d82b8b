"""HTTP sessions for the blob store: one per configured endpoint, kept for the process."""
import functools

import requests
from requests.adapters import HTTPAdapter

POOL_SIZE = 10


@functools.cache
def session_for(endpoint: str) -> requests.Session:
    """The process-wide session for ``endpoint``; built on the first call, then returned as is."""
    session = requests.Session()
    session.mount(endpoint, HTTPAdapter(pool_connections=1, pool_maxsize=POOL_SIZE))
    session.headers["Accept"] = "application/octet-stream"
    return session
