"""The command line's and the tests' client retires an idle connection before the API's server closes it."""

import threading
import time

import httpx
import uvicorn
from fastapi import FastAPI, Request

from precedente.credentials import IDLE_CONNECTIONS, PatientTransport
from precedente.shared.infra.embedded import free_port


def test_an_idle_connection_is_retired_before_the_server_closes_it() -> None:
    """A request sent on a connection the server is closing at that moment is reset ("Connection reset by peer",
    seen once in CI on an upload): the client must drop an idle connection well before uvicorn's keep-alive ends."""
    app = FastAPI()
    peers: list[int] = []

    @app.get("/peer")
    def peer(request: Request) -> dict[str, int]:
        assert request.client is not None
        peers.append(request.client.port)
        return {"port": request.client.port}

    config = uvicorn.Config(app, host="127.0.0.1", port=free_port(), log_level="warning")
    assert IDLE_CONNECTIONS.keepalive_expiry is not None
    assert IDLE_CONNECTIONS.keepalive_expiry <= config.timeout_keep_alive / 2
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        thread.join(0.05)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{config.port}", transport=PatientTransport()) as client:
            client.get("/peer").raise_for_status()
            client.get("/peer").raise_for_status()  # at once: the same connection
            time.sleep(IDLE_CONNECTIONS.keepalive_expiry + 0.5)  # idle past the client's limit, within the server's
            client.get("/peer").raise_for_status()
        assert peers[0] == peers[1] and peers[2] != peers[1], peers
    finally:
        server.should_exit = True
        thread.join(10)
