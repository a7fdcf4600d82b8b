"""Vulnerability database: batch package lookup over gRPC (case hb02)."""
