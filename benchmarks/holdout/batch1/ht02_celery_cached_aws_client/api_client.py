"""Judgment store client: S3 for assets, SNS for notifications."""
from __future__ import annotations

import json

from .aws import get_aws_client
from .settings import ASSET_BUCKET, PUBLISH_TOPIC_ARN


class CaseLawAPIClient:
    def __init__(self, marklogic) -> None:
        self._marklogic = marklogic

    def set_published(self, uri: str, published: bool) -> None:
        self._marklogic.set_property(uri, "published", "true" if published else "false")

    def publish_assets(self, uri: str) -> int:
        s3 = get_aws_client("s3")
        copied = 0
        for obj in s3.list_objects_v2(Bucket=ASSET_BUCKET, Prefix=uri.strip("/") + "/").get("Contents", []):
            s3.put_object_acl(Bucket=ASSET_BUCKET, Key=obj["Key"], ACL="public-read")
            copied += 1
        return copied

    def notify_published(self, uri: str) -> None:
        get_aws_client("sns").publish(TopicArn=PUBLISH_TOPIC_ARN, Message=json.dumps({"uri": uri, "status": "published"}))
