"""The firm's thesaurus (/tesauro, issue 34, item 4) in a real browser against a real stack: dora, an administrator,
adds a set on the page (one name alone is refused, in Portuguese), and her next search for the firm's own term,
which no document writes, explains and highlights the decision's "Kompetenz-Kompetenz"; on a phone she edits the
set and removes it; bruno, a lawyer, has no "Tesauro" in his menu, and the page and the API refuse him. Then the
audit log holds the three changes.

Needs Node.js, `npm run build` in services/gateway and /usr/bin/chromium (`make install`). With
PRECEDENTE_SCREENSHOTS=1 the run saves docs/screenshots/thesaurus.png, thesaurus-search.png and thesaurus-mobile.png;
with a folder's path, there.
"""

import os
import subprocess
from collections.abc import Iterator

import pytest

from precedente.harness import RunningStack
from tests.helpers.gateway import CHROMIUM, GATEWAY_DIR, require_tools, screenshots_folder
from tests.helpers.samples import DOCS

pytestmark = pytest.mark.e2e

SCENARIO = GATEWAY_DIR / "e2e" / "thesaurus.e2e.mjs"
DECISION = "stj_resp_1602076_sp_acordao.pdf"  # writes "Kompetenz-Kompetenz" nine times
FIRM_TERM = "árbitro primeiro"  # what the firm's partners call it; no document writes it
OTHER = "Kompetenz-Kompetenz"


@pytest.fixture(scope="module")
def web_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningStack]:
    require_tools()
    with RunningStack(tmp_path_factory.mktemp("gateway-thesaurus")) as running:
        yield running


def test_the_firms_thesaurus_on_the_page(web_stack: RunningStack) -> None:
    node = require_tools()
    web_stack.headers("contencioso", user="dora", roles=("admin",))
    web_stack.headers("contencioso", user="bruno", roles=())
    decision = web_stack.upload(DOCS / DECISION)["document_id"]
    web_stack.wait_final({decision: None})
    web_stack.wait_lexicon_counted()

    url = web_stack.page_url()
    env = {**os.environ, "CHROMIUM": CHROMIUM, "GATEWAY_URL": url, "ADMIN_PASSWORD": "senha-de-teste-dora",
           "LAWYER_PASSWORD": "senha-de-teste-bruno", "QUERY": FIRM_TERM, "OTHER": OTHER,
           "SCREENSHOTS": screenshots_folder()}  # fmt: skip
    result = subprocess.run([node, str(SCENARIO)], env=env, cwd=GATEWAY_DIR, capture_output=True, text=True,
                            timeout=600)  # fmt: skip
    assert result.returncode == 0, f"browser scenario failed:\n{result.stdout}\n{result.stderr}"
    assert "3 passed, 0 failed" in result.stdout

    # What the page did is what the database and the audit log hold: the set is gone, its three changes by dora.
    assert web_stack.sql("SELECT count(*) FROM firm_concepts") == "0"
    log = web_stack.client.get("/audit", params={"action": "thesaurus"}).json()
    assert [(e["action"], e["actor"]) for e in log] == [
        ("thesaurus.remove", "dora"),
        ("thesaurus.edit", "dora"),
        ("thesaurus.add", "dora"),
    ]
    assert log[-1]["detail"]["names"] == [FIRM_TERM, OTHER]
