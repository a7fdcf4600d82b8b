# Look-alike of RocketMap issue #852 ("can't start new thread"), in the shape of the later fix: a
# webhook queue. Not a fan-out: send_to_webhook (webhooks.py) only put_nowait()s on a bounded
# queue; the threads that post are the fixed pool started once by start_webhook_workers().
"""Parses a map response into database rows and webhook events."""
from __future__ import annotations

from .models import Gym, Pokemon, Pokestop
from .webhooks import send_to_webhook


def parse_map(response: dict) -> dict[str, int]:
    counts = {"pokemon": 0, "pokestops": 0, "gyms": 0}
    for cell in response["responses"]["GET_MAP_OBJECTS"]["map_cells"]:
        for wild in cell.get("wild_pokemons", []):
            row = Pokemon.from_proto(wild)
            Pokemon.upsert(row)
            send_to_webhook("pokemon", row.as_webhook())
            counts["pokemon"] += 1
        for fort in cell.get("forts", []):
            model = Pokestop if fort.get("type") == 1 else Gym
            row = model.from_proto(fort)
            model.upsert(row)
            send_to_webhook(model.__name__.lower(), row.as_webhook())
            counts["pokestops" if model is Pokestop else "gyms"] += 1
    return counts
