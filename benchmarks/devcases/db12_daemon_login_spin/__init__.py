"""Home-alarm event bridge daemon (case db12)."""
