# Bounded: the Publisher that opens the pika.BlockingConnection is constructed once in create_app() (app.py) and stored in app.extensions; views only call its publish().
"""Render-job API with one long-lived AMQP connection (trap ht06)."""
