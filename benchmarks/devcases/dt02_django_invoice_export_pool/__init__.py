# Bounded: see exports.py; run_in_background (background.py) submits to one module-level
# ThreadPoolExecutor with max_workers=EXPORT_WORKERS (4), so at most 4 renders run at once.
"""Billing: period export of invoice PDFs on a fixed worker pool (trap dt02)."""
from .background import run_in_background  # re-exported for exports.py

__all__ = ["run_in_background"]
