# Bounded: see resources.py; blobs.get_blob asks sessions.session_for (sessions.py) for its
# session, and session_for is functools.cache'd on the endpoint, which comes from BLOB_URL in
# app.py: one requests.Session per process, reused for every key of every manifest.
"""Blob manifest verifier on Falcon, with a cached blob session (trap dt08)."""
