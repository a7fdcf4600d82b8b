# Bounded: see sweeper.py; the done-callback spawns one task per member of the Region enum
# defined in regions.py (four regions), never per listed object.
"""Multipart-upload sweeper on aiohttp.web (trap dt03)."""
