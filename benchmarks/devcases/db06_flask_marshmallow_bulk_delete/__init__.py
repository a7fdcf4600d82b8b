"""Profile store: bulk delete by ids, Flask + webargs/marshmallow (case db06)."""
