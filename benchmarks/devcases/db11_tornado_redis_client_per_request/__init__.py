"""Listing cache in front of the catalog, on Tornado (case db11)."""
