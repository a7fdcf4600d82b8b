"""Personal knowledge store: encrypted domain segments (case db04)."""
