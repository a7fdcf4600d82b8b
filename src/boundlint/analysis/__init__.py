"""Shared judgement used by every rule family: names, limits, the traversal context."""
