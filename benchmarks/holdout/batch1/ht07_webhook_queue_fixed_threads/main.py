"""Scanner entry point."""
from __future__ import annotations

from .search import run_search_workers
from .webhooks import start_webhook_workers


def main() -> None:
    start_webhook_workers()
    run_search_workers()


if __name__ == "__main__":
    main()
