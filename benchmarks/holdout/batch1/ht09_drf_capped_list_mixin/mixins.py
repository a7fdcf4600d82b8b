"""Reusable serializer behaviour."""
from __future__ import annotations

from rest_framework import serializers


class CappedListMixin:
    """Declare ``capped_fields = {"name": limit}`` to cap list fields of a serializer."""

    capped_fields: dict[str, int] = {}

    def to_internal_value(self, data):
        for name, limit in self.capped_fields.items():
            value = data.get(name) if hasattr(data, "get") else None
            if isinstance(value, (list, tuple)) and len(value) > limit:
                raise serializers.ValidationError({name: [f"At most {limit} items per request."]})
        return super().to_internal_value(data)
