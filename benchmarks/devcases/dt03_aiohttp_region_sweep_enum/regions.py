"""Regions the service is deployed in."""
from enum import Enum


class Region(str, Enum):
    US_EAST_1 = "us-east-1"
    EU_WEST_1 = "eu-west-1"
    EU_CENTRAL_1 = "eu-central-1"
    AP_SOUTHEAST_2 = "ap-southeast-2"
