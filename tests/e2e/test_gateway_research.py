"""History and saved searches (/historico, /pesquisas, "Salvar pesquisa"; issue 34) in a real browser against a real
stack: ana (contencioso) has a saved search, saved as if before the decisions were indexed; the page counts its
new works beside its name, never the opinion walled off from her; opening it lists them and resets the count; she
saves the search she runs on the page, finds it in her history, re-runs it, and clears the history on a phone.

Needs Node.js, `npm run build` in services/gateway and /usr/bin/chromium (`make install`). With
PRECEDENTE_SCREENSHOTS=1 the run saves docs/screenshots/saved-searches.png, saved-search.png, save-search.png,
history.png and their -mobile twins; with a folder's path, there.
"""

import os
import subprocess
import time
from collections.abc import Iterator

import pytest

from precedente.harness import RunningStack
from tests.helpers.gateway import CHROMIUM, GATEWAY_DIR, require_tools, screenshots_folder
from tests.helpers.samples import DOCS

pytestmark = pytest.mark.e2e

SCENARIO = GATEWAY_DIR / "e2e" / "research.e2e.mjs"
OPEN = ["stj_resp_1433940_mg_acordao.pdf", "tjrj_agravo_instrumento_0017387-33.2017_acordao.pdf"]
WALLED = "parecer_pgjmg_procon_16-2022.pdf"
QUERY = "ação anulatória de procedimento arbitral"
SAVED = "Sentença arbitral"  # the open decisions match it
WALLED_SEARCH = "Responsabilidade civil"  # only the walled opinion is "forte" to it


@pytest.fixture(scope="module")
def web_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningStack]:
    require_tools()
    with RunningStack(tmp_path_factory.mktemp("gateway-research")) as running:
        yield running


def test_saved_searches_and_history_on_the_page(web_stack: RunningStack) -> None:
    node = require_tools()
    ana = web_stack.headers("contencioso", user="ana")
    ids = [web_stack.upload(DOCS / name)["document_id"] for name in OPEN]
    walled = web_stack.upload(DOCS / WALLED, access="socios")["document_id"]
    web_stack.wait_final({**dict.fromkeys(ids), walled: "socios"})
    walled_title = web_stack.sql(f"SELECT coalesce(title, filename) FROM documents WHERE id = '{walled}'")
    deadline = time.monotonic() + 120
    counted = "SELECT (SELECT chunks FROM lexicon_totals) = (SELECT count(*) FROM chunks)"
    while web_stack.sql(counted) != "True":  # the grades are final once the BM25 statistics count every chunk
        assert time.monotonic() < deadline, "the BM25 statistics were not refreshed"
        time.sleep(1)

    # Saved as if before the documents arrived: what each returns now at least "provável", within access, is new.
    def saved_before(name: str, query: str, headers: dict[str, str]) -> tuple[int, list[dict]]:
        made = web_stack.client.post("/saved-searches", json={"name": name, "query": query}, headers=headers)
        assert made.status_code == 201, made.text
        web_stack.sql(f"UPDATE saved_searches SET last_visited_at = '2000-01-01' WHERE id = {made.json()['id']}")
        return made.json()["id"], web_stack.client.get(f"/saved-searches/{made.json()['id']}", headers=headers).json()[
            "new"
        ]

    _, news = saved_before(SAVED, "sentença arbitral", ana)
    assert news and {w["document_id"] for w in news} <= set(ids)  # the premise: decisions new to ana
    _, walled_news = saved_before(WALLED_SEARCH, "responsabilidade civil", ana)
    assert walled_news == []  # the opinion that search finds is walled off from her: nothing new, nothing named
    theirs, their_news = saved_before(
        WALLED_SEARCH, "responsabilidade civil", web_stack.headers("socios", user="socia")
    )
    assert [w["document_id"] for w in their_news] == [walled]  # and it is news to those who may see it

    url = web_stack.page_url()
    env = {**os.environ, "CHROMIUM": CHROMIUM, "GATEWAY_URL": url, "ANA_PASSWORD": "senha-de-teste-ana",
           "QUERY": QUERY, "SAVED_NAME": SAVED, "EXPECTED_NEW": str(len(news)), "WALLED_SEARCH": WALLED_SEARCH,
           "WALLED_TITLE": walled_title,
           "SCREENSHOTS": screenshots_folder()}  # fmt: skip
    result = subprocess.run([node, str(SCENARIO)], env=env, cwd=GATEWAY_DIR, capture_output=True, text=True,
                            timeout=600)  # fmt: skip
    assert result.returncode == 0, f"browser scenario failed:\n{result.stdout}\n{result.stderr}"
    assert "3 passed, 0 failed" in result.stdout

    # What the page did is what the API holds: the visit reset the count, the saved search and the cleared history.
    mine = {s["name"]: s for s in web_stack.client.get("/saved-searches", headers=ana).json()["items"]}
    assert mine[SAVED]["new_count"] == 0
    kept = mine["Recursos sobre dano moral"]
    assert kept["query"] == QUERY and kept["email"] == "ana@firma.com.br"
    assert web_stack.client.get("/history", headers=ana).json()["total"] == 0
    socia = web_stack.headers("socios", user="socia")
    assert len(web_stack.client.get(f"/saved-searches/{theirs}", headers=socia).json()["new"]) == 1  # not hers to reset
