"""Billing worker on arq: invoice sync jobs (case hb11).

``jobs.sync_invoice`` runs once per queued invoice; it loads and stores rows
through ``repository.InvoiceRepository``, whose ``_connect`` opens a new
PostgreSQL connection every time.
"""
