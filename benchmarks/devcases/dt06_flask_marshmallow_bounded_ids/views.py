"""Profile routes."""
from flask import Blueprint, jsonify
from flask_login import current_user, login_required
from webargs.flaskparser import use_args

from .schemas import DeleteProfilesSchema
from .service import delete_profiles

bp = Blueprint("profiles", __name__, url_prefix="/api/profiles")


@bp.post("/bulk-delete")
@login_required
@use_args(DeleteProfilesSchema(), location="json")
def bulk_delete(args: dict):
    deleted = delete_profiles(current_user.org_id, args["profile_ids"], args["reason"])
    return jsonify({"deleted": deleted})
