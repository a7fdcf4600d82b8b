"""Clinical risk scoring: bulk assessment endpoint (case hb08)."""
