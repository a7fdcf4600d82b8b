"""Render-job API: Flask views that queue jobs on RabbitMQ (case hb06)."""
