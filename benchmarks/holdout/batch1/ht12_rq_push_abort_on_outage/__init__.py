# Bounded: push.send_push logs a transport failure and re-raises it as PushServiceDown, which jobs.broadcast does not catch, so an outage ends the job after one line (RQ retries it later per enqueue.py).
"""Campaign broadcast on RQ, aborting on push-service outage (trap ht12)."""
