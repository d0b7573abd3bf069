"""History and saved searches (/historico, /pesquisas, "Salvar pesquisa"; issue 34) in a real browser against a real
stack: carla (contencioso) has a saved search, saved as if before the decisions were indexed; the page counts its
new works beside its name, never the opinion walled off from her; opening it lists them and resets the count; she
saves the search she runs on the page, finds it in her history, re-runs it, and clears the history on a phone.

Needs Node.js, `npm run build` in services/gateway and /usr/bin/chromium (`make install`). With
PRECEDENTE_SCREENSHOTS=1 the run saves docs/screenshots/saved-searches.png, saved-search.png, save-search.png,
history.png and their -mobile twins; with a folder's path, there.
"""

import os
import subprocess

import pytest

from tests.helpers.gateway import CHROMIUM, GATEWAY_DIR, PageStack, require_tools, screenshots_folder

pytestmark = pytest.mark.e2e

SCENARIO = GATEWAY_DIR / "e2e" / "research.e2e.mjs"
LAWYER = "carla"
QUERY = "ação anulatória de procedimento arbitral"
SAVED = "Sentença arbitral"  # the open decisions match it
WALLED_SEARCH = "Responsabilidade civil"  # only the walled opinion is "forte" to it


def test_saved_searches_and_history_on_the_page(shared_page_stack: PageStack) -> None:
    node = require_tools()
    web_stack, ids, walled = shared_page_stack.stack, shared_page_stack.open_ids, shared_page_stack.walled_id
    walled_title = shared_page_stack.walled_title
    carla = web_stack.headers("contencioso", user=LAWYER)

    # Saved as if before the documents arrived: what each returns now at least "provável", within access, is new.
    def saved_before(name: str, query: str, headers: dict[str, str]) -> tuple[int, list[dict]]:
        made = web_stack.client.post("/saved-searches", json={"name": name, "query": query}, headers=headers)
        assert made.status_code == 201, made.text
        web_stack.sql(f"UPDATE saved_searches SET last_visited_at = '2000-01-01' WHERE id = {made.json()['id']}")
        return made.json()["id"], web_stack.client.get(f"/saved-searches/{made.json()['id']}", headers=headers).json()[
            "new"
        ]

    _, news = saved_before(SAVED, "sentença arbitral", carla)
    assert news and {w["document_id"] for w in news} <= set(ids)  # the premise: decisions new to carla
    _, walled_news = saved_before(WALLED_SEARCH, "responsabilidade civil", carla)
    assert walled_news == []  # the opinion that search finds is walled off from her: nothing new, nothing named
    theirs, their_news = saved_before(
        WALLED_SEARCH, "responsabilidade civil", web_stack.headers("socios", user="socia")
    )
    assert [w["document_id"] for w in their_news] == [walled]  # and it is news to those who may see it

    url = web_stack.page_url()
    env = {**os.environ, "CHROMIUM": CHROMIUM, "GATEWAY_URL": url, "LAWYER": LAWYER,
           "LAWYER_PASSWORD": f"senha-de-teste-{LAWYER}",
           "QUERY": QUERY, "SAVED_NAME": SAVED, "EXPECTED_NEW": str(len(news)), "WALLED_SEARCH": WALLED_SEARCH,
           "WALLED_TITLE": walled_title,
           "SCREENSHOTS": screenshots_folder()}  # fmt: skip
    result = subprocess.run([node, str(SCENARIO)], env=env, cwd=GATEWAY_DIR, capture_output=True, text=True,
                            timeout=600)  # fmt: skip
    assert result.returncode == 0, f"browser scenario failed:\n{result.stdout}\n{result.stderr}"
    assert "3 passed, 0 failed" in result.stdout

    # What the page did is what the API holds: the visit reset the count, the saved search and the cleared history.
    mine = {s["name"]: s for s in web_stack.client.get("/saved-searches", headers=carla).json()["items"]}
    assert mine[SAVED]["new_count"] == 0
    kept = mine["Recursos sobre dano moral"]
    assert kept["query"] == QUERY and kept["email"] == f"{LAWYER}@firma.com.br"
    assert web_stack.client.get("/history", headers=carla).json()["total"] == 0
    socia = web_stack.headers("socios", user="socia")
    assert len(web_stack.client.get(f"/saved-searches/{theirs}", headers=socia).json()["new"]) == 1  # not hers to reset
