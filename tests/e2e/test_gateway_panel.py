"""The blind panel's page (/painel) in a real browser against a real stack: dora (contencioso), invited to a panel of
today's ranking against the keyword baseline, judges every result of every query on the page; the walled parecer
is never on her page, nothing there says which ranking picked what, and her clicks are judgments with panel_id.

Needs Node.js, `npm run build` in services/gateway and /usr/bin/chromium (`make install`).
"""

import os
import subprocess

import pytest

from tests.helpers.gateway import CHROMIUM, GATEWAY_DIR, PageStack, require_tools

pytestmark = pytest.mark.e2e

SCENARIO = GATEWAY_DIR / "e2e" / "panel.e2e.mjs"
JUDGE = "dora"
PASSWORD = "dora-senha-forte-do-painel"
QUERIES = ["recurso especial dano moral", "responsabilidade civil do fornecedor"]


def test_a_judge_goes_through_a_blind_panel_on_the_page(shared_page_stack: PageStack) -> None:
    node = require_tools()
    web_stack, walled = shared_page_stack.stack, shared_page_stack.walled_id
    body = {"name": JUDGE, "groups": ["contencioso"], "roles": [], "password": PASSWORD}
    made = web_stack.client.post("/users", json=body)
    assert made.status_code == 201, made.text
    body = {"queries": QUERIES, "a": "current", "b": "keyword", "judges": [JUDGE], "depth": 5, "seed": 4}
    made = web_stack.client.post("/panels", json=body)
    assert made.status_code == 201, made.text
    panel = made.json()["id"]

    url = web_stack.page_url()
    env = {**os.environ, "CHROMIUM": CHROMIUM, "GATEWAY_URL": url, "PANEL_ID": panel, "QUERIES": "\n".join(QUERIES),
           "WALLED_TITLE": shared_page_stack.walled_title, "JUDGE": JUDGE, "JUDGE_PASSWORD": PASSWORD}  # fmt: skip
    result = subprocess.run([node, str(SCENARIO)], env=env, cwd=GATEWAY_DIR, capture_output=True, text=True,
                            timeout=300)  # fmt: skip
    assert result.returncode == 0, f"browser scenario failed:\n{result.stdout}\n{result.stderr}"
    assert "1 passed, 0 failed" in result.stdout

    shown = int(web_stack.sql(f"SELECT count(*) FROM panel_items WHERE panel_id = '{panel}' AND judge = '{JUDGE}'"))
    judged = web_stack.sql(
        f"SELECT count(*) || ':' || count(*) FILTER (WHERE relevant) FROM judgments WHERE panel_id = '{panel}'"
        f" AND judge = '{JUDGE}' AND shown_rank IS NOT NULL"
    )
    assert judged == f"{shown}:{len(QUERIES)}", judged  # every result judged, the first of each list relevant
    assert (
        web_stack.sql(f"SELECT count(*) FROM panel_items WHERE panel_id = '{panel}' AND document_id = '{walled}'")
        == "0"
    )
