"""Supplier price-list import as an RQ job (case db10)."""
