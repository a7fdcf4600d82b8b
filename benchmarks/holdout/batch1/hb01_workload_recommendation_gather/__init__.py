"""Resource recommender: hourly scan of every cluster workload (case hb01)."""
