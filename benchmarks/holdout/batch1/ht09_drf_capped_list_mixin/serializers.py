"""Bodies of the invitation endpoints."""
from __future__ import annotations

from rest_framework import serializers

from .mixins import CappedListMixin

ROLE_CHOICES = ("member", "admin", "viewer")


class InviteSerializer(serializers.Serializer):
    email = serializers.EmailField(max_length=254)
    role = serializers.ChoiceField(choices=ROLE_CHOICES, default="member")


class BulkInviteSerializer(CappedListMixin, serializers.Serializer):
    capped_fields = {"invites": 20}

    invites = InviteSerializer(many=True, allow_empty=False)
    message = serializers.CharField(max_length=1000, required=False, allow_blank=True)
