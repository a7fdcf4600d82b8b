"""Search indexer: Kafka change events to Elasticsearch (case hb04).

``consumer.run`` polls batches and hands each message to ``indexer.index_event``,
which logs one error line per message when the cluster rejects or drops the write.
"""
