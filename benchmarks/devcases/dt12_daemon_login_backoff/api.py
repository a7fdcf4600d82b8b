"""Cloud API client: one session for the life of the daemon."""
import requests

BASE = "https://api.alarm-cloud.example/v1"


class ElementsClient:
    def __init__(self, username: str, password: str) -> None:
        self._session = requests.Session()
        self._username = username
        self._password = password

    def login(self) -> None:
        resp = self._session.post(f"{BASE}/login", json={"email": self._username, "password": self._password}, timeout=10)
        resp.raise_for_status()
        self._session.headers["Authorization"] = f"Bearer {resp.json()['token']}"

    def events(self, since: int) -> list[dict]:
        resp = self._session.get(f"{BASE}/events", params={"from": since}, timeout=10)
        resp.raise_for_status()
        return resp.json()["events"]
