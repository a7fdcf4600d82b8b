# Incident: rishabh0510rishabh/EnvForage #438 - DiagnosticReportSchema accepted unbounded gpus
# lists from the request body ("no max_length / max_items constraint").
# Hazard: gpus has no cap; controllers.py takes DiagnosticReport as the POST body and advisor.py
# runs one compatibility query per GPU entry.
"""Request models (attrs)."""
import attrs


@attrs.define
class GpuInfo:
    name: str = attrs.field(validator=attrs.validators.max_len(128))
    driver: str = attrs.field(validator=attrs.validators.max_len(32))
    memory_mb: int = 0


@attrs.define
class DiagnosticReport:
    hostname: str = attrs.field(validator=attrs.validators.max_len(255))
    os_release: str = attrs.field(validator=attrs.validators.max_len(255))
    gpus: list[GpuInfo] = attrs.field(factory=list)  # expect: REQUEST-SHAPE
    env: dict[str, str] = attrs.field(factory=dict)
