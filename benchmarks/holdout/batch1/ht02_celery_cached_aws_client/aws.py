"""AWS helpers: one client per service per process."""
from __future__ import annotations

import functools

import boto3
from botocore.config import Config

from .settings import AWS_ENDPOINT_URL, AWS_REGION

RETRY_CONFIG = Config(retries={"max_attempts": 5, "mode": "standard"}, max_pool_connections=20)


@functools.cache
def get_aws_client(service: str):
    return boto3.session.Session().client(service, region_name=AWS_REGION, endpoint_url=AWS_ENDPOINT_URL, config=RETRY_CONFIG)
