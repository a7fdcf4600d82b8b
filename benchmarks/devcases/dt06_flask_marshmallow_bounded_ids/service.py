"""Deletes profiles from the database and from the search index."""
from .db import db
from .search import search_client


def delete_profiles(org_id: int, profile_ids: list[str], reason: str) -> int:
    deleted = 0
    for profile_id in profile_ids:
        result = db.session.execute(
            db.text("DELETE FROM profiles WHERE org_id = :org AND id = :id"), {"org": org_id, "id": profile_id}
        )
        if result.rowcount:
            search_client.delete(index="profiles", id=profile_id)
            deleted += 1
    db.session.execute(db.text("INSERT INTO audit (org_id, action, note) VALUES (:o, 'bulk_delete', :r)"), {"o": org_id, "r": reason})
    db.session.commit()
    return deleted
