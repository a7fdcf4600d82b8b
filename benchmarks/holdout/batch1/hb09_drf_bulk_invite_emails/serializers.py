"""Bodies of the invitation endpoints."""
from __future__ import annotations

from rest_framework import serializers

ROLE_CHOICES = ("member", "admin", "viewer")


class InviteSerializer(serializers.Serializer):
    email = serializers.EmailField(max_length=254)
    role = serializers.ChoiceField(choices=ROLE_CHOICES, default="member")


class BulkInviteSerializer(serializers.Serializer):
    invites = InviteSerializer(many=True, allow_empty=False)  # expect: REQUEST-SHAPE
    message = serializers.CharField(max_length=1000, required=False, allow_blank=True)
