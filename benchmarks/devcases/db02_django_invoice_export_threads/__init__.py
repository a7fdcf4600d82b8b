"""Billing: period export of invoice PDFs (case db02)."""
from .background import run_in_background  # re-exported for exports.py

__all__ = ["run_in_background"]
