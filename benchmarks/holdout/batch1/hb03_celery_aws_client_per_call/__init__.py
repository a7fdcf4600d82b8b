"""Case-law publishing: bulk publication of judgments (case hb03).

``api_client.CaseLawAPIClient`` builds a fresh boto3 client inside every method
that touches AWS; ``tasks.publish_batch`` calls those methods once per judgment.
"""
