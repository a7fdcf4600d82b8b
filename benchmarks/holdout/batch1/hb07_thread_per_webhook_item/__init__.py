"""Map scanner: search workers parse map responses and push webhooks (case hb07).

``parser.parse_map`` calls ``webhooks.send_to_webhook`` once per spawn, stop and
gym found in a response; each call starts its own thread.
"""
