# Bounded: get_aws_client() in aws.py is wrapped in functools.cache, so each worker process builds one client per service and every judgment reuses it.
"""Case-law publishing with cached AWS clients (trap ht02)."""
