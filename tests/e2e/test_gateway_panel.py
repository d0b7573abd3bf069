"""The blind panel's page (/painel) in a real browser against a real stack: ana (contencioso), invited to a panel of
today's ranking against the keyword baseline, judges every result of every query on the page; the walled parecer
is never on her page, nothing there says which ranking picked what, and her clicks are judgments with panel_id.

Needs Node.js, `npm run build` in services/gateway and /usr/bin/chromium (`make install`).
"""

import os
import subprocess
from collections.abc import Iterator

import pytest

from precedente.harness import RunningStack
from tests.helpers.gateway import CHROMIUM, GATEWAY_DIR, require_tools
from tests.helpers.samples import DOCS

pytestmark = pytest.mark.e2e

SCENARIO = GATEWAY_DIR / "e2e" / "panel.e2e.mjs"
PASSWORD = "ana-senha-forte-do-painel"
OPEN = ["stj_resp_1433940_mg_acordao.pdf", "tjrj_agravo_instrumento_0017387-33.2017_acordao.pdf"]
WALLED = "parecer_pgjmg_procon_16-2022.pdf"
QUERIES = ["recurso especial dano moral", "responsabilidade civil do fornecedor"]


@pytest.fixture(scope="module")
def web_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningStack]:
    require_tools()
    with RunningStack(tmp_path_factory.mktemp("gateway-panel")) as running:
        body = {"name": "ana", "groups": ["contencioso"], "roles": [], "password": PASSWORD}
        made = running.client.post("/users", json=body)
        assert made.status_code == 201, made.text
        yield running


def test_a_judge_goes_through_a_blind_panel_on_the_page(web_stack: RunningStack) -> None:
    node = require_tools()
    ids = {web_stack.upload(DOCS / name)["document_id"]: None for name in OPEN}
    walled = web_stack.upload(DOCS / WALLED, access="socios")["document_id"]
    web_stack.wait_final({**ids, walled: "socios"})
    walled_title = web_stack.sql(f"SELECT coalesce(title, filename) FROM documents WHERE id = '{walled}'")
    body = {"queries": QUERIES, "a": "current", "b": "keyword", "judges": ["ana"], "depth": 5, "seed": 4}
    made = web_stack.client.post("/panels", json=body)
    assert made.status_code == 201, made.text
    panel = made.json()["id"]

    url = web_stack.page_url()
    env = {**os.environ, "CHROMIUM": CHROMIUM, "GATEWAY_URL": url, "PANEL_ID": panel, "QUERIES": "\n".join(QUERIES),
           "WALLED_TITLE": walled_title, "ANA_PASSWORD": PASSWORD}  # fmt: skip
    result = subprocess.run([node, str(SCENARIO)], env=env, cwd=GATEWAY_DIR, capture_output=True, text=True,
                            timeout=300)  # fmt: skip
    assert result.returncode == 0, f"browser scenario failed:\n{result.stdout}\n{result.stderr}"
    assert "1 passed, 0 failed" in result.stdout

    shown = int(web_stack.sql(f"SELECT count(*) FROM panel_items WHERE panel_id = '{panel}' AND judge = 'ana'"))
    judged = web_stack.sql(
        f"SELECT count(*) || ':' || count(*) FILTER (WHERE relevant) FROM judgments WHERE panel_id = '{panel}'"
        " AND judge = 'ana' AND shown_rank IS NOT NULL"
    )
    assert judged == f"{shown}:{len(QUERIES)}", judged  # every result judged, the first of each list relevant
    assert (
        web_stack.sql(f"SELECT count(*) FROM panel_items WHERE panel_id = '{panel}' AND document_id = '{walled}'")
        == "0"
    )
