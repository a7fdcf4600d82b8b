# Incident: nbwoodward/django-async-threading #2 - a background thread per API request exhausted
# memory; nesquena/hermes-webui #5210 - unbounded worker threads, "can't start new thread".
# Hazard: one thread per invoice row of the period (a DB query), started through
# run_in_background (background.py, imported via the package __init__); each renders and uploads.
"""Renders every invoice of a billing period to PDF and stores it."""
import boto3
import requests
from django.conf import settings

from . import run_in_background
from .models import Invoice

_renderer = requests.Session()
_s3 = boto3.client("s3")


def render_and_upload(invoice_id: int) -> None:
    html = Invoice.objects.get(pk=invoice_id).render_html()
    pdf = _renderer.post(f"{settings.GOTENBERG_URL}/forms/chromium/convert/html", files={"index.html": html}, timeout=60)
    pdf.raise_for_status()
    _s3.put_object(Bucket=settings.INVOICE_BUCKET, Key=f"invoices/{invoice_id}.pdf", Body=pdf.content)


def start_period_export(period: str) -> int:
    count = 0
    for invoice_id in Invoice.objects.filter(period=period).values_list("id", flat=True).iterator():
        run_in_background(render_and_upload, invoice_id)
        count += 1
    return count
