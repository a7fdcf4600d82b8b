"""Creates an invitation row and queues the invitation email."""
from __future__ import annotations

from .models import Invitation
from .tasks import send_invitation_email


def invite(team, inviter, email: str, role: str, message: str = "") -> Invitation:
    invitation, _ = Invitation.objects.update_or_create(
        team=team, email=email.lower(), defaults={"role": role, "invited_by": inviter, "message": message}
    )
    send_invitation_email.delay(invitation.pk)
    return invitation
