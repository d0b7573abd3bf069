"""The web gateway (services/gateway, Next.js) in a real browser against real stacks.

Identity is the search API's (issue #8): people are accounts made through its admin API, the page's
sign-in form posts to the gateway, which asks `POST /auth/login` and keeps the returned session token in
an HttpOnly cookie; the /api/* proxy sends it as the bearer and drops whatever credential or identity
header the browser sends.

Two stacks, one after the other (two at once are heavy for a small machine):
- a demo stack (`PRECEDENTE_AUTH_MODE=none`): the banner on every page, never a sign-in, only the demo
  group's documents;
- a stack with sign-in (the default): ana (socios, reviewer), bruno (contencioso) and carla (who changes
  her password on the page) are made through `POST /users`; two documents of ../shared/docs (one open to
  everyone, one for "socios"), a text whose content carries `<script>alert(1)</script>` and whose title
  and type hints are HTML, a scan that ends in the review queue and an original uploaded as HTML.
services/gateway/e2e/gateway.e2e.mjs drives Debian's chromium through playwright-core against both; the
security headers and CORS are checked here over plain HTTP.

Needs Node.js, `npm run build` in services/gateway and /usr/bin/chromium (`make install` sets all
three up); without them the tests fail, as a missing dependency of any other test does.
With PRECEDENTE_SCREENSHOTS=1 the run saves docs/screenshots/search.png, search-mobile.png and review.png.
The search page's flows (paging, order, facets, keyboard, 390x844 and 360 px, axe-core) run as ana over the
decisions and NOTES; so do judging a result (kept across a reload, changed, noted, never shown to bruno) and
"Mais como este" (other decisions near a passage, in the URL, Back, the partners' passage refused to bruno).
"""

import os
import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from precedente.harness import FINAL, RunningStack
from precedente.shared.infra.embedded import free_port
from precedente.shared.settings import Settings
from precedente.stack import Stack
from tests.helpers.gateway import (
    CHROMIUM,
    GATEWAY_DIR,
    SCREENSHOTS,
    require_tools,
    stack_with_people,
    unique_pdf,
)
from tests.helpers.pdfs import illegible_scan

pytestmark = pytest.mark.e2e

SCENARIO = GATEWAY_DIR / "e2e" / "gateway.e2e.mjs"
PASSWORDS = {"ana": "ana-senha-forte-1", "bruno": "bruno-senha-forte-2", "carla": "carla-senha-forte-3"}
# name -> (groups, roles): ana works the review queue, so she is a reviewer.
# carla changes her password on the page.
PEOPLE = {"ana": (["socios"], ["reviewer"]), "bruno": (["contencioso"], []), "carla": ([], [])}
DEMO_GROUP = "contencioso"
SCRIPT_TEXT = (
    "Nota interna do escritório sobre o xilógrafo quimérico.\n\n"
    "O cliente colou no parecer o trecho <script>alert(1)</script> ao descrever a cláusula do xilógrafo "
    "quimérico, e o sistema deve mostrá-lo como texto, nunca executá-lo.\n"
)
# Stored XSS through metadata hints: the title, and a document type the annotator keeps as given.
SCRIPT_TITLE = "<img src=x onerror=alert(1)>"
SCRIPT_TYPE = "<svg onload=alert(4)>"
REVIEW_FILE = "digitalizacao_gateway.pdf"
# An original uploaded as text/html: opened through the gateway it must download, never render.
HTML_PAGE = "<html><body><p>Memorando de teste do gateway.</p><script>alert(3)</script></body></html>"
EVIL = "http://evil.example"
# Short notes on arbitration (text, quick to ingest): with the decisions, more than a page of ten works for
# BROAD_QUERY, so the page's paging, facets and keyboard flows have something to walk through.
NOTES = [
    f"Nota {i} do escritório sobre arbitragem e cláusula compromissória: {topic}."
    for i, topic in enumerate(
        [
            "a cláusula compromissória cheia dispensa o compromisso arbitral posterior",
            "a cláusula compromissória vazia exige a ação do art. 7º da Lei de Arbitragem",
            "o árbitro tem o dever de revelação de fatos que comprometam a imparcialidade",
            "a sentença arbitral só pode ser anulada nas hipóteses do art. 32 da Lei 9.307/1996",
            "a arbitragem na administração pública versa sobre direitos patrimoniais disponíveis",
            "a convenção de arbitragem em contrato de adesão exige o visto em negrito do aderente",
            "a tutela de urgência antes da instauração da arbitragem cabe ao Judiciário",
            "o princípio kompetenz-kompetenz dá ao árbitro a decisão sobre a própria competência",
            "a sentença arbitral estrangeira depende de homologação para produzir efeitos no Brasil",
            "a arbitragem trabalhista admite a cláusula para o empregado hipersuficiente",
        ],
        start=1,
    )
]
BROAD_QUERY = "arbitragem e cláusula compromissória"
# The demo stack's two documents: short notes, each written to be found by the browser script's query for it
# (QUERY, RESTRICTED_QUERY in services/gateway/e2e/gateway.e2e.mjs), so the hidden one would show if the wall leaked.
DEMO_VISIBLE_NOTE = (
    "Nota pública do escritório sobre a nulidade da cláusula compromissória e do procedimento arbitral: quem alega a"
    " nulidade deve fazê-lo na primeira oportunidade perante o próprio árbitro (art. 20 da Lei 9.307/1996)."
)
DEMO_HIDDEN_NOTE = (
    "Parecer reservado aos sócios sobre a legitimidade passiva da câmara arbitral no procedimento arbitral: a"
    " instituição que administra a arbitragem não responde pelos atos jurisdicionais do árbitro."
)
SECURITY_HEADERS = {
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
    "x-frame-options": "DENY",
    "permissions-policy": "camera=(), microphone=(), geolocation=()",
    "cross-origin-opener-policy": "same-origin",
}
CSP_DIRECTIVES = {
    "default-src": "'self'",
    "style-src": "'self' 'unsafe-inline'",
    "img-src": "'self' data: blob:",
    "object-src": "'none'",
    "frame-ancestors": "'none'",
    "base-uri": "'self'",
    "form-action": "'self'",
}


def _gateway_url(stack: RunningStack) -> str:
    """The page `precedente up` started for this stack, on a free port it took at start."""
    url = stack.page_url()
    assert "web page: " + url in stack.log_since_start()
    return url


def _run_browser(node: str, scenario_env: dict[str, str]) -> None:
    """services/gateway/e2e/gateway.e2e.mjs against the gateways named in scenario_env (GATEWAY_URL, DEMO_URL)."""
    env = {k: v for k, v in os.environ.items() if k not in ("GATEWAY_URL", "DEMO_URL", "SCREENSHOTS")}
    env.update(CHROMIUM=CHROMIUM, **scenario_env)
    if os.environ.get("PRECEDENTE_SCREENSHOTS") == "1" and "GATEWAY_URL" in scenario_env:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        env["SCREENSHOTS"] = str(SCREENSHOTS)
    result = subprocess.run(
        [node, str(SCENARIO)], env=env, cwd=GATEWAY_DIR, capture_output=True, text=True, timeout=300
    )
    print(result.stdout, result.stderr)
    assert result.returncode == 0, f"browser scenarios failed:\n{result.stdout}\n{result.stderr}"
    assert " 0 failed" in result.stdout


def _csp(response: httpx.Response) -> dict[str, str]:
    policies = response.headers.get_list("content-security-policy")
    assert len(policies) == 1, f"{response.url}: one policy, got {policies}"
    directives = (d.strip().split(None, 1) for d in policies[0].split(";") if d.strip())
    return {d[0]: d[1] if len(d) > 1 else "" for d in directives}


def _assert_security_headers(response: httpx.Response) -> dict[str, str]:
    for name, value in SECURITY_HEADERS.items():
        assert response.headers.get(name) == value, f"{response.url}: {name} = {response.headers.get(name)}"
    csp = _csp(response)
    for name, value in CSP_DIRECTIVES.items():
        assert csp.get(name) == value, f"{response.url}: CSP {name} = {csp.get(name)}"
    assert not [h for h in response.headers if h.lower().startswith("access-control-")], response.headers
    return csp


def _wait_stage(stack: RunningStack, document_id: str, timeout: float = 600) -> str:
    """A document's stage read from the database: for one the caller is not allowed to see."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        stage = stack.sql(f"SELECT stage FROM documents WHERE id = '{document_id}'")
        if stage in FINAL:
            return stage
        time.sleep(1)
    raise TimeoutError(f"{document_id} not finished\n{stack.log_tail()}")


@pytest.fixture(scope="module")
def node() -> str:
    return require_tools()


# The demo stack runs first and is stopped before the module's signed-in stack starts.
def test_demo_mode_banner_everywhere_and_no_sign_in(node: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    env = {"PRECEDENTE_AUTH_MODE": "none", "PRECEDENTE_DEMO_GROUPS": DEMO_GROUP}
    with RunningStack(tmp_path_factory.mktemp("gateway-demo"), extra_env=env) as stack:
        assert "AUTHENTICATION IS OFF" in stack.service_log("search")
        assert "AUTHENTICATION IS OFF" in stack.log_since_start()
        me = httpx.get(f"{stack.url}/auth/me", timeout=30)
        assert me.status_code == 200
        assert (me.json()["auth_mode"], me.json()["kind"], me.json()["user"]) == ("none", "anonymous", "demonstracao")
        assert httpx.get(f"{stack.url}/users", timeout=30).status_code == 403  # the demo user is no admin
        demo = _gateway_url(stack)
        page = httpx.get(f"{demo}/", timeout=10)
        assert page.status_code == 200 and "Modo demonstração, sem autenticação" in page.text
        assert httpx.get(f"{demo}/login", timeout=10).headers.get("location") == "/", "demo mode never asks to sign in"
        # The /api proxy reaches the API without any credential: it is the anonymous demo caller.
        response = httpx.post(f"{demo}/api/search", json={"query": "arbitragem"}, timeout=30)
        assert response.status_code == 200 and "results" in response.json()
        _assert_security_headers(response)

        visible = stack.upload(
            content=DEMO_VISIBLE_NOTE.encode(), filename="nota_publica_arbitragem.txt", access=DEMO_GROUP
        )["document_id"]
        hidden = stack.upload(
            content=DEMO_HIDDEN_NOTE.encode(), filename="parecer_reservado_camara.txt", access="socios"
        )["document_id"]
        assert stack.wait_final({visible: None})[visible]["stage"] == "indexed"
        assert _wait_stage(stack, hidden) == "indexed"
        _run_browser(
            node, {"DEMO_URL": demo, "DEMO_GROUP": DEMO_GROUP, "DEMO_VISIBLE_ID": visible, "DEMO_HIDDEN_ID": hidden}
        )


@pytest.fixture(scope="module")
def web_stack(node: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningStack]:
    """A stack of its own with sign-in: the facet and access checks need to know every document in it."""
    with stack_with_people(tmp_path_factory.mktemp("gateway-stack"), PEOPLE, PASSWORDS) as running:
        yield running


@pytest.fixture(scope="module")
def gateway(web_stack: RunningStack) -> str:
    return _gateway_url(web_stack)


@pytest.fixture(scope="module")
def documents(web_stack: RunningStack) -> dict[str, str]:
    public = web_stack.upload(
        content=unique_pdf("tjsp_sentenca_vara_empresarial_arbitragem.pdf", "public"),
        filename="tjsp_sentenca_vara_empresarial_arbitragem.pdf",
    )["document_id"]
    restricted = web_stack.upload(
        content=unique_pdf("stj_resp_1433940_mg_acordao.pdf", "socios"),
        filename="stj_resp_1433940_mg_acordao.pdf",
        access="socios",
    )["document_id"]
    script = web_stack.upload(
        content=SCRIPT_TEXT.encode(), filename="nota_script.txt", title=SCRIPT_TITLE, document_type=SCRIPT_TYPE
    )["document_id"]
    review = web_stack.upload(content=illegible_scan("gateway"), filename=REVIEW_FILE)["document_id"]
    html = web_stack.upload(content=HTML_PAGE.encode(), filename="pagina.html")["document_id"]
    notes = [
        web_stack.upload(content=note.encode(), filename=f"nota_arbitragem_{i}.txt")["document_id"]
        for i, note in enumerate(NOTES, start=1)
    ]
    waited = {public: None, restricted: "socios", script: None, review: None, html: None, **dict.fromkeys(notes)}
    final = web_stack.wait_final(waited)
    assert [final[i]["stage"] for i in notes] == ["indexed"] * len(notes), final
    assert [final[i]["stage"] for i in (public, restricted, script)] == ["indexed"] * 3, final
    assert final[review]["stage"] == "review", final[review]
    return {"PUBLIC_ID": public, "RESTRICTED_ID": restricted, "SCRIPT_ID": script, "REVIEW_ID": review, "HTML_ID": html}


def test_precedente_up_starts_the_gateway_with_sign_in(gateway: str) -> None:
    home = httpx.get(f"{gateway}/", timeout=10)
    assert home.status_code in (302, 303, 307) and home.headers["location"] == "/login?next=%2F"
    login = httpx.get(f"{gateway}/login", timeout=10)
    assert login.status_code == 200 and 'action="/auth/login"' in login.text
    assert "Modo demonstração" not in login.text
    # Without a session the API refuses, through the proxy as directly.
    assert httpx.post(f"{gateway}/api/search", json={"query": "x"}, timeout=10).status_code == 401


def test_security_headers_and_no_cors(gateway: str, documents: dict[str, str]) -> None:
    with httpx.Client(base_url=gateway, timeout=30) as browser:
        # Pages: a fresh nonce per response, and every script Next renders carries it.
        nonces = set()
        for _ in range(2):
            page = browser.get("/login")
            csp = _assert_security_headers(page)
            nonce = re.fullmatch(r"'self' 'nonce-([A-Za-z0-9+/=]+)' 'strict-dynamic'.*", csp["script-src"])
            assert nonce, csp["script-src"]
            scripts = re.findall(r"<script\b[^>]*>", page.text)
            assert scripts and all(f'nonce="{nonce[1]}"' in tag for tag in scripts), scripts
            nonces.add(nonce[1])
        assert len(nonces) == 2
        _assert_security_headers(browser.get("/healthz"))

        signed_in = browser.post(
            "/auth/login",
            data={"username": "ana", "password": PASSWORDS["ana"], "next": "/"},
            headers={"Origin": gateway},
        )
        assert signed_in.status_code == 303 and signed_in.headers["location"] == "/", signed_in.text
        cookie = re.match(
            r"(precedente_session=prs_[^;]+); Path=/; HttpOnly; SameSite=Lax; Max-Age=\d+$",
            signed_in.headers["set-cookie"],
        )
        assert cookie, signed_in.headers["set-cookie"]
        _assert_security_headers(signed_in)
        browser.cookies.clear()
        browser.headers["Cookie"] = cookie[1]  # sent as given, whatever the jar thinks of 127.0.0.1

        # /api/*, read from another origin: answered (a read never changes anything), but nothing lets the
        # other site's script read it.
        api = browser.get(f"/api/documents/{documents['PUBLIC_ID']}", headers={"Origin": EVIL})
        assert api.status_code == 200
        api_csp = _assert_security_headers(api)
        assert "'unsafe-inline'" in api_csp["script-src"]
        found = browser.post("/api/search", json={"query": "arbitragem"}, headers={"Origin": EVIL})
        assert found.status_code == 403, "a write from another origin is refused"
        _assert_security_headers(found)
        # A CORS preflight from another origin gets no Access-Control-Allow-* header, on /api/* or a page.
        for path in ("/api/search", "/api/documents", "/"):
            preflight = browser.options(
                path,
                headers={
                    "Origin": EVIL,
                    "Access-Control-Request-Method": "POST",
                    "Access-Control-Request-Headers": "content-type, authorization",
                },
            )
            allowing = [h for h in preflight.headers if h.lower().startswith("access-control-")]
            assert allowing == [], f"{path}: {preflight.status_code} {preflight.headers}"
            assert preflight.status_code >= 400 or path == "/", f"{path}: {preflight.status_code}"


def test_the_supervisor_runs_without_the_page_when_it_is_not_built(tmp_path: Path) -> None:
    settings = Settings(gateway_server=str(tmp_path / "missing" / "server.js"), gateway_port=free_port())
    stack = Stack(settings=settings, data_dir=tmp_path, port=free_port())
    stack._start_gateway()
    assert stack.gateway_url is None and "gateway-0" not in stack.children


def test_the_page_in_a_browser(node: str, web_stack: RunningStack, documents: dict[str, str], gateway: str) -> None:
    _run_browser(
        node,
        {
            **documents,
            "GATEWAY_URL": gateway,
            "BROAD_QUERY": BROAD_QUERY,
            "REVIEW_FILE": REVIEW_FILE,
            "ANA_PASSWORD": PASSWORDS["ana"],
            "BRUNO_PASSWORD": PASSWORDS["bruno"],
            "CARLA_PASSWORD": PASSWORDS["carla"],
            "ADMIN_KEY": web_stack.admin_key(),
        },
    )


def test_the_first_administrator_changes_the_one_time_password_on_the_page(
    node: str, web_stack: RunningStack, gateway: str
) -> None:
    """`precedente up`'s first administrator signs in with the password of <data-dir>/admin-password and is
    sent to the change form before anything else; the file goes once the password it holds is replaced."""
    from precedente.shared.accounts import ADMIN_PASSWORD_FILE

    password_file = web_stack.data_dir / ADMIN_PASSWORD_FILE
    one_time = password_file.read_text().strip()
    _run_browser(node, {"FIRST_ADMIN_URL": gateway, "ADMIN_ONE_TIME_PASSWORD": one_time})
    assert not password_file.exists()
    old = web_stack.client.post(
        "/auth/login", json={"user": "admin", "password": one_time}, headers={"Authorization": ""}
    )
    assert old.status_code == 401
