"""Flux-site mirror: arq job that copies every site archive of a snapshot (case db01)."""
