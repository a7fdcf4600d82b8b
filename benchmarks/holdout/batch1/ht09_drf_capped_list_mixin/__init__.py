# Bounded: BulkInviteSerializer inherits CappedListMixin (mixins.py), whose validate() rejects any field in capped_fields longer than its cap (invites: 20).
"""Team management: bulk invitations with a cap (trap ht09)."""
