"""Formatters: findings in, text out.  No analysis happens here."""
