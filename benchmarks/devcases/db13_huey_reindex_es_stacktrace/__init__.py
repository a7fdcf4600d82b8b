"""Search reindexer: Huey periodic task feeding Elasticsearch (case db13)."""
