# Look-alike of PostHog's organization-invite bulk action (capped at 20 invites per call). Not
# unbounded: BulkInviteSerializer (serializers.py) mixes in CappedListMixin (mixins.py), which
# raises a ValidationError before nested validation when invites holds more than 20 entries.
"""Team invitation viewset."""
from __future__ import annotations

from rest_framework import permissions, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from .invitations import invite
from .models import Team
from .serializers import BulkInviteSerializer


class TeamViewSet(viewsets.GenericViewSet):
    queryset = Team.objects.all()
    permission_classes = [permissions.IsAuthenticated]

    def get_queryset(self):
        return super().get_queryset().filter(memberships__user=self.request.user)

    @action(methods=["POST"], detail=True, url_path="invites/bulk")
    def bulk_invite(self, request, pk=None):
        team = self.get_object()
        body = BulkInviteSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        created = []
        for item in body.validated_data["invites"]:
            invitation = invite(team, request.user, item["email"], item["role"], body.validated_data.get("message", ""))
            created.append(invitation.email)
        return Response({"invited": created}, status=status.HTTP_201_CREATED)
