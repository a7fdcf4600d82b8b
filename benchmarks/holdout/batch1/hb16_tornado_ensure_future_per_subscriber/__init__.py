"""Build status hub on Tornado: notifies every subscribed callback (case hb16).

``handlers.BuildEventHandler.post`` stores the event and calls
``notify.Notifier.broadcast``, which schedules one delivery per subscription row.
"""
