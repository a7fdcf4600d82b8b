# Rebuilt from RocketMap issue #852 ("Exception in search_worker: can't start new thread"):
# parse_map started one webhook thread per object in each map response, and with ~90 search
# workers the process ran out of threads. Hazard: the number of threads follows the data returned
# by the remote map API; each thread (webhooks.py) does blocking HTTP posts.
"""Parses a map response into database rows and webhook events."""
from __future__ import annotations

from .models import Gym, Pokemon, Pokestop
from .webhooks import send_to_webhook


def parse_map(response: dict, step_location: tuple[float, float]) -> dict[str, int]:
    counts = {"pokemon": 0, "pokestops": 0, "gyms": 0}
    cells = response["responses"]["GET_MAP_OBJECTS"]["map_cells"]
    for cell in cells:
        for wild in cell.get("wild_pokemons", []):
            row = Pokemon.from_proto(wild)
            Pokemon.upsert(row)
            send_to_webhook("pokemon", row.as_webhook())
            counts["pokemon"] += 1
        for fort in cell.get("forts", []):
            if fort.get("type") == 1:
                stop = Pokestop.from_proto(fort)
                Pokestop.upsert(stop)
                send_to_webhook("pokestop", stop.as_webhook())
                counts["pokestops"] += 1
            else:
                gym = Gym.from_proto(fort)
                Gym.upsert(gym)
                send_to_webhook("gym", gym.as_webhook())
                counts["gyms"] += 1
    return counts
