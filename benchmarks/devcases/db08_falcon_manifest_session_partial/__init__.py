"""Blob manifest verifier on Falcon (case db08)."""
