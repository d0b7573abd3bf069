"""The CLI's credential: PRECEDENTE_API_KEY (a key made with `precedente keys create`), else the admin key
that `precedente up` keeps in its data directory for the local machine's operator."""

import time

import httpx

from precedente.shared.accounts import ADMIN_KEY_FILE
from precedente.shared.settings import Settings


def api_key(settings: Settings | None = None) -> str:
    settings = settings or Settings()
    if settings.api_key:
        return settings.api_key.strip()
    local = settings.data_dir / ADMIN_KEY_FILE
    return local.read_text().strip() if local.is_file() else ""


def auth_headers(settings: Settings | None = None) -> dict[str, str]:
    key = api_key(settings)
    return {"Authorization": f"Bearer {key}"} if key else {}


# The API's server (uvicorn) closes a connection idle for 5 s; httpx keeps one for 5 s too, so a request sent on a
# connection at the very moment the server closes it is reset (the scale-out test's upload once read
# "Connection reset by peer"). A client that retires idle connections first never sends on a closing one.
IDLE_CONNECTIONS = httpx.Limits(keepalive_expiry=2.0)


class PatientTransport(httpx.HTTPTransport):
    """Waits out a 429 (the API's per-caller rate limit) as its Retry-After says, a few times, instead of
    failing a bulk upload or a benchmark halfway."""

    def __init__(self, retries: int = 5, **kwargs: object) -> None:
        kwargs.setdefault("limits", IDLE_CONNECTIONS)
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.retries = retries

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        for _ in range(self.retries):
            response = super().handle_request(request)
            if response.status_code != 429:
                return response
            response.close()
            time.sleep(min(float(response.headers.get("retry-after", "1")), 30))
        return super().handle_request(request)


def api_client(api: str | None, timeout: float = 60) -> httpx.Client:
    """A client of the search API at `api` (default PRECEDENTE_API_URL) carrying the credential."""
    settings = Settings()
    return httpx.Client(
        base_url=(api or settings.api_url).rstrip("/"),
        headers=auth_headers(settings),
        timeout=timeout,
        transport=PatientTransport(),
    )
