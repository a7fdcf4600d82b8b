"""Datastore access for affected-package lookups."""
from __future__ import annotations

from google.cloud import ndb

from .models import AffectedVersions, Bug


class VulnStore:
    def __init__(self, client: ndb.Client) -> None:
        self._client = client

    def affected(self, ecosystem: str, name: str, version: str) -> list[str]:
        with self._client.context():
            query = AffectedVersions.query(
                AffectedVersions.ecosystem == ecosystem,
                AffectedVersions.name == name,
                AffectedVersions.versions == version,
            )
            ids = [row.bug_id for row in query.fetch(projection=[AffectedVersions.bug_id])]
            bugs = ndb.get_multi([ndb.Key(Bug, bug_id) for bug_id in ids])
            return [bug.db_id for bug in bugs if bug is not None and bug.public]
