"""The web gateway (services/gateway, Next.js) in a real browser against a real stack.

A stack of its own (`precedente up`, which also starts the gateway in demo mode as a supervised child)
ingests two documents of ../shared/docs (one open to everyone, one for group "socios"), a text whose
content carries `<script>alert(1)</script>` and a scan that ends in the review queue. A second
gateway is started here with sign-in (a users file: ana in "socios", bruno in "contencioso"), and
services/gateway/e2e/gateway.e2e.mjs drives Debian's chromium through playwright-core against both.

Needs Node.js, `npm run build` in services/gateway and /usr/bin/chromium (`make install` sets all
three up); without them the tests fail, as a missing dependency of any other test does.
With PRECEDENTE_SCREENSHOTS=1 the run saves docs/screenshots/search.png and review.png.
"""

import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pymupdf
import pytest

from precedente.harness import RunningStack
from precedente.stack import GATEWAY_SERVER, Stack
from shared.embedded import free_port
from shared.settings import Settings
from tests.conftest import DOCS, REPO
from tests.e2e.test_review import illegible_scan

pytestmark = pytest.mark.e2e

GATEWAY_DIR = REPO / "services" / "gateway"
SCENARIO = GATEWAY_DIR / "e2e" / "gateway.e2e.mjs"
CHROMIUM = os.environ.get("PRECEDENTE_CHROMIUM", "/usr/bin/chromium")
SCREENSHOTS = REPO / "docs" / "screenshots"
PASSWORDS = {"ana": "ana-senha-forte-1", "bruno": "bruno-senha-forte-2"}
GROUPS = {"ana": "socios", "bruno": "contencioso"}
SCRIPT_TEXT = (
    "Nota interna do escritório sobre o xilógrafo quimérico.\n\n"
    "O cliente colou no parecer o trecho <script>alert(1)</script> ao descrever a cláusula do xilógrafo "
    "quimérico, e o sistema deve mostrá-lo como texto, nunca executá-lo.\n"
)
SCRIPT_TITLE = "Nota <b>interna</b> <img src=x onerror=alert(2)>"
REVIEW_FILE = "digitalizacao_gateway.pdf"
# An original uploaded as text/html: opened through the gateway it must download, never render.
HTML_PAGE = "<html><body><p>Memorando de teste do gateway.</p><script>alert(3)</script></body></html>"


def _require_tools() -> str:
    node = shutil.which("node")
    missing = [
        what
        for what, ok in (
            ("node", node is not None),
            (f"the gateway build ({GATEWAY_SERVER}; run `make install`)", GATEWAY_SERVER.is_file()),
            (f"chromium ({CHROMIUM})", Path(CHROMIUM).exists()),
            ("services/gateway/node_modules (npm ci)", (GATEWAY_DIR / "node_modules" / "playwright-core").is_dir()),
        )
        if not ok
    ]
    if missing:
        message = "missing for the gateway tests: " + ", ".join(missing)
        pytest.fail(message)
    assert node is not None
    return node


def _unique_pdf(name: str, tag: str) -> bytes:
    """A sample document with its own bytes (a metadata tag), so no other upload of it is reused."""
    with pymupdf.open(DOCS / name) as doc:
        doc.set_metadata({**doc.metadata, "keywords": f"precedente-gateway-e2e {tag}"})
        return doc.tobytes()


def _users_file(node: str, path: Path) -> Path:
    """The users file, made with the gateway's own hashing script."""
    users: dict[str, object] = {}
    for user, password in PASSWORDS.items():
        entry = subprocess.run(
            [node, "scripts/hash-password.mjs", "--user", user, "--groups", GROUPS[user]],
            input=password + "\n",
            capture_output=True,
            text=True,
            cwd=GATEWAY_DIR,
            check=True,
        )
        users.update(json.loads(entry.stdout))
    path.write_text(json.dumps(users))
    return path


def _wait_http(url: str, process: subprocess.Popen | None = None, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"the gateway exited with {process.returncode}")
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise TimeoutError(f"{url} did not answer in {timeout}s")


@pytest.fixture(scope="module")
def node() -> str:
    return _require_tools()


@pytest.fixture(scope="module")
def web_stack(node: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningStack]:
    """A stack of its own: the facet and access checks need to know every document in it."""
    demo_port = free_port()
    running = RunningStack(
        tmp_path_factory.mktemp("gateway-stack"),
        extra_env={"PRECEDENTE_GATEWAY_PORT": str(demo_port), "PRECEDENTE_GATEWAY_DEMO_GROUPS": ""},
    )
    running.demo_url = f"http://127.0.0.1:{demo_port}"  # type: ignore[attr-defined]
    with running:
        yield running


@pytest.fixture(scope="module")
def documents(web_stack: RunningStack) -> dict[str, str]:
    public = web_stack.upload(
        content=_unique_pdf("tjsp_sentenca_vara_empresarial_arbitragem.pdf", "public"),
        filename="tjsp_sentenca_vara_empresarial_arbitragem.pdf",
    )["document_id"]
    restricted = web_stack.upload(
        content=_unique_pdf("stj_resp_1433940_mg_acordao.pdf", "socios"),
        filename="stj_resp_1433940_mg_acordao.pdf",
        access="socios",
    )["document_id"]
    script = web_stack.upload(content=SCRIPT_TEXT.encode(), filename="nota_script.txt", title=SCRIPT_TITLE)[
        "document_id"
    ]
    review = web_stack.upload(content=illegible_scan("gateway"), filename=REVIEW_FILE)["document_id"]
    html = web_stack.upload(content=HTML_PAGE.encode(), filename="pagina.html")["document_id"]
    final = web_stack.wait_final({public: None, restricted: "socios", script: None, review: None, html: None})
    assert [final[i]["stage"] for i in (public, restricted, script)] == ["indexed"] * 3, final
    assert final[review]["stage"] == "review", final[review]
    return {"PUBLIC_ID": public, "RESTRICTED_ID": restricted, "SCRIPT_ID": script, "REVIEW_ID": review, "HTML_ID": html}


@pytest.fixture(scope="module")
def signin_gateway(node: str, web_stack: RunningStack, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The built gateway with sign-in, on a free port, against the stack's search API."""
    port = free_port()
    folder = tmp_path_factory.mktemp("gateway")
    env = {
        **os.environ,
        "PORT": str(port),
        "HOSTNAME": "127.0.0.1",
        "NODE_ENV": "production",
        "NEXT_TELEMETRY_DISABLED": "1",
        "PRECEDENTE_API_URL": web_stack.url,
        "PRECEDENTE_GATEWAY_USERS_FILE": str(_users_file(node, folder / "users.json")),
        "PRECEDENTE_GATEWAY_SECRET": "e2e-" + os.urandom(16).hex(),
    }
    log = open(folder / "gateway.log", "wb")  # noqa: SIM115 - closed below
    process = subprocess.Popen([node, str(GATEWAY_SERVER)], env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        _wait_http(f"http://127.0.0.1:{port}/healthz", process)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()
        print((folder / "gateway.log").read_text(errors="replace")[-3000:])


def test_precedente_up_starts_the_gateway_in_demo_mode(web_stack: RunningStack) -> None:
    demo = web_stack.demo_url  # type: ignore[attr-defined]
    _wait_http(f"{demo}/healthz")
    page = httpx.get(f"{demo}/", timeout=10)
    assert page.status_code == 200 and "Modo demonstração, sem autenticação" in page.text
    assert "web page: " + demo in web_stack.log_since_start()
    # Its /api proxy reaches the stack's search API with the demo identity.
    response = httpx.post(f"{demo}/api/search", json={"query": "arbitragem"}, timeout=30)
    assert response.status_code == 200 and "results" in response.json()


def test_the_supervisor_runs_without_the_page_when_it_is_not_built(tmp_path: Path) -> None:
    settings = Settings(gateway_server=str(tmp_path / "missing" / "server.js"), gateway_port=free_port())
    stack = Stack(settings=settings, data_dir=tmp_path, port=free_port())
    stack._start_gateway()
    assert stack.gateway_url is None and "gateway-0" not in stack.children


def test_the_page_in_a_browser(
    node: str, web_stack: RunningStack, documents: dict[str, str], signin_gateway: str
) -> None:
    env = {
        **os.environ,
        **documents,
        "GATEWAY_URL": signin_gateway,
        "DEMO_URL": web_stack.demo_url,  # type: ignore[attr-defined]
        "REVIEW_FILE": REVIEW_FILE,
        "ANA_PASSWORD": PASSWORDS["ana"],
        "BRUNO_PASSWORD": PASSWORDS["bruno"],
        "CHROMIUM": CHROMIUM,
    }
    if os.environ.get("PRECEDENTE_SCREENSHOTS") == "1":
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        env["SCREENSHOTS"] = str(SCREENSHOTS)
    else:
        env.pop("SCREENSHOTS", None)
    result = subprocess.run(
        [node, str(SCENARIO)], env=env, cwd=GATEWAY_DIR, capture_output=True, text=True, timeout=300
    )
    print(result.stdout, result.stderr)
    assert result.returncode == 0, f"browser scenarios failed:\n{result.stdout}\n{result.stderr}"
    assert "0 failed" in result.stdout
