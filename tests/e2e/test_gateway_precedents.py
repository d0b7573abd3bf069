"""A leading case's card in a real browser against a real stack (issue 33, items 1 and 2): the STF's RE 657.718/MG
(Tema 500 of repercussão geral, ../shared/archive/i279.pdf) carries the badge "Repercussão geral – Tema 500", and its
"Citado por 2 documentos do acervo" opens on the two decisions of the archive that cite it: the ED no RE 855.178/SE
(i278, "Precedente específico: RE 657.718") and the Segundos ED no RE 1.366.243/SC (i277, "o que foi discutido no
RE 657.718 (tema 500)", on its page 52). Each goes in as a part of the real file: the first pages (case number,
ementa) and, for i277, the page that cites, so the stack indexes in minutes rather than 450 pages.

Needs Node.js, `npm run build` in services/gateway and /usr/bin/chromium (`make install`). With
PRECEDENTE_SCREENSHOTS=1 the run saves docs/screenshots/precedent-card.png and precedent-card-mobile.png; with a
folder's path, there.
"""

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pymupdf
import pytest

from precedente.harness import RunningStack
from tests.helpers.gateway import CHROMIUM, GATEWAY_DIR, require_tools, screenshots_folder
from tests.helpers.samples import SHARED_DATA

pytestmark = pytest.mark.e2e

SCENARIO = GATEWAY_DIR / "e2e" / "precedents.e2e.mjs"
ARCHIVE = SHARED_DATA / "archive"
# file -> the page ranges (0-based, inclusive) that go in
PARTS = {"i279.pdf": [(0, 5)], "i278.pdf": [(0, 2)], "i277.pdf": [(0, 2), (51, 51)]}
QUERY = "fornecimento de medicamentos sem registro na ANVISA pelo Estado"
BADGE = "Repercussão geral – Tema 500"
CITING = ["STF, ED no RE 855.178/SE", "STF, Segundos ED no RE 1.366.243/SC"]
PASSWORD = "senha-de-teste-ana"


def part(name: str) -> bytes:
    """These pages of the archive's file, as one PDF."""
    with pymupdf.open(ARCHIVE / name) as doc, pymupdf.open() as out:
        for first, last in PARTS[name]:
            out.insert_pdf(doc, from_page=first, to_page=last)
        return out.tobytes()


@pytest.fixture(scope="module")
def web_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningStack]:
    require_tools()
    with RunningStack(tmp_path_factory.mktemp("gateway-precedents")) as running:
        yield running


def test_a_leading_cases_badge_and_who_in_the_base_cites_it(web_stack: RunningStack) -> None:
    node = require_tools()
    web_stack.headers("contencioso", user="ana", roles=())
    ids = {name: web_stack.upload(content=part(name), filename=name)["document_id"] for name in PARTS}
    statuses = web_stack.wait_final(dict.fromkeys(ids.values()))
    assert {s["stage"] for s in statuses.values()} == {"indexed"}, statuses
    web_stack.wait_lexicon_counted()
    # What the page will be checked against is what the pipeline read from the real texts.
    cited = web_stack.sql(f"SELECT process_number FROM documents WHERE id = '{ids['i279.pdf']}'")
    assert cited == "RE 657.718/MG"
    for citing in ("i278.pdf", "i277.pdf"):
        citations = web_stack.sql(f"SELECT array_to_string(citations, '|') FROM documents WHERE id = '{ids[citing]}'")
        assert "RE 657.718" in citations.split("|"), citing

    url = web_stack.page_url()
    env = {**os.environ, "CHROMIUM": CHROMIUM, "GATEWAY_URL": url, "PASSWORD": PASSWORD, "QUERY": QUERY,
           "BADGE": BADGE, "CITED_BY": "Citado por 2 documentos do acervo", "CITING": "|".join(CITING),
           "SCREENSHOTS": screenshots_folder()}  # fmt: skip
    result = subprocess.run([node, str(SCENARIO)], env=env, cwd=GATEWAY_DIR, capture_output=True, text=True,
                            timeout=600)  # fmt: skip
    assert result.returncode == 0, f"browser scenario failed:\n{result.stdout}\n{result.stderr}"
    assert "2 passed, 0 failed" in result.stdout
    if os.environ.get("PRECEDENTE_SCREENSHOTS"):
        folder = Path(screenshots_folder())
        assert (folder / "precedent-card.png").stat().st_size > 0
        assert (folder / "precedent-card-mobile.png").stat().st_size > 0
