"""Per-method caps on repeated request fields."""
REPEATED_FIELD_LIMITS: dict[str, dict[str, int]] = {
    "/featurestore.v1.FeatureService/GetFeatures": {"entity_ids": 500, "features": 100},
    "/featurestore.v1.FeatureService/GetFeatureStats": {"features": 100},
}
