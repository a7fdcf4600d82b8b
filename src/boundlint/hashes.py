"""BLAKE2b for the cache keys, without ``hashlib``'s start-up cost.

``import hashlib`` loads OpenSSL's bindings at once (about 2 ms of every run,
a noticeable share of a warm one); its ``blake2b`` is CPython's own
``_blake2.blake2b``, imported here directly.  Same digests either way.
"""
from __future__ import annotations

try:
    from _blake2 import blake2b
except ImportError:  # a Python without the module: the same function through hashlib
    from hashlib import blake2b

__all__ = ["blake2b"]
