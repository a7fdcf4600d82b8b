"""AWS helpers for the case-law API client."""
from __future__ import annotations

import boto3
from botocore.config import Config

from .settings import AWS_REGION, AWS_ENDPOINT_URL

RETRY_CONFIG = Config(retries={"max_attempts": 5, "mode": "standard"})


def create_aws_client(service: str):
    return boto3.session.Session().client(service, region_name=AWS_REGION, endpoint_url=AWS_ENDPOINT_URL, config=RETRY_CONFIG)  # expect: CONN-PER-ITEM
