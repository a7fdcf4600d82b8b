# Bounded: ExportRequest.__post_init__ calls validators.require_max_items(user_ids, MAX_EXPORT_USERS=25), and sanic-ext turns the ValueError into a 400 before the handler runs.
"""Analytics export API on Sanic with a per-request user cap (trap ht14)."""
