"""BND3xx failure amplification: a log line per failed item, a retry with no pause.

In the incident every failed cache call was logged: millions of blocking log
writes per second turned a cache problem into a thread explosion, GC pauses
and OOM restarts.  These rules find the error handling that multiplies a
failure by the number of items (or by the speed of a spinning loop).  What
counts as a logger, a guard and a pause is decided in
``boundlint.analysis.logging_calls`` and ``boundlint.analysis.storms``; which functions run once per item of a
fan-out, in ``boundlint.analysis.workers``.

One module per rule; ``log_storms`` holds what BND301 and BND302 have in common.
"""
from boundlint.rules.amplification.log_storm_in_loop import LogStormInLoop
from boundlint.rules.amplification.log_storm_in_worker import LogStormInWorker
from boundlint.rules.amplification.retry_without_backoff import RetryWithoutBackoff, spinning_retry
from boundlint.rules.amplification.log_storms import loop_storms

__all__ = ["LogStormInLoop", "LogStormInWorker", "RetryWithoutBackoff", "loop_storms", "spinning_retry"]
