"""Campaign broadcast on RQ: web-push to every subscriber (case hb12).

``jobs.broadcast`` maps ``push.send_push`` over all subscribers of a campaign on
a fixed pool of 8 threads (so the fan-out itself is bounded), but ``send_push``
logs one warning per subscriber whose push fails.
"""
