"""Uploaded files."""
import csv
import io

import boto3

_s3 = boto3.client("s3")


def read_csv(key: str) -> list[dict]:
    body = _s3.get_object(Bucket="price-uploads", Key=key)["Body"].read().decode("utf-8")
    return list(csv.DictReader(io.StringIO(body)))
