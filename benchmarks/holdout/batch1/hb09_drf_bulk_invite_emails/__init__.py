"""Team management: bulk member invitations (case hb09)."""
