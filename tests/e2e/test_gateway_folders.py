"""Folders per matter (/pastas, issue 34) in a real browser against a real stack: ana (contencioso, socios) keeps the
first result of a search in a new folder with a note, shares it with contencioso and exports it (the DOCX read
back here with python-docx, the text too); bruno (contencioso only), on a phone, reads the folders shared with him
and does not see, in one of them, the opinion walled off from him that ana kept there.

Needs Node.js, `npm run build` in services/gateway and /usr/bin/chromium (`make install`). With
PRECEDENTE_SCREENSHOTS=1 the run saves docs/screenshots/folders.png, folder.png and folder-mobile.png; with a
folder's path, there.
"""

import os
import subprocess
from pathlib import Path

import docx
import pytest

from tests.helpers.gateway import CHROMIUM, GATEWAY_DIR, PageStack, require_tools, screenshots_folder

pytestmark = pytest.mark.e2e

SCENARIO = GATEWAY_DIR / "e2e" / "folders.e2e.mjs"
QUERY = "recurso especial dano moral"
NOTE = "Tese central para o item III da inicial."


def test_folders_on_the_page_keep_share_export_and_hold_the_wall(shared_page_stack: PageStack, tmp_path: Path) -> None:
    node = require_tools()
    web_stack, ids, walled = shared_page_stack.stack, shared_page_stack.open_ids, shared_page_stack.walled_id
    ana = web_stack.headers("contencioso,socios", user="ana")
    web_stack.headers("contencioso", user="bruno")

    # A folder of ana's made through the API, shared with contencioso: an open decision and the walled opinion.
    made = web_stack.client.post("/folders", json={"name": "Caso Procon"}, headers=ana)
    assert made.status_code == 201, made.text
    folder = made.json()["id"]
    shared = web_stack.client.patch(f"/folders/{folder}", json={"shared_groups": ["contencioso"]}, headers=ana)
    assert shared.status_code == 200, shared.text
    for document_id in (ids[1], walled):
        passage = int(web_stack.sql(f"SELECT min(id) FROM chunks WHERE document_id = '{document_id}'"))
        body = {"document_id": document_id, "passage_id": passage}
        added = web_stack.client.post(f"/folders/{folder}/items", json=body, headers=ana)
        assert added.status_code == 201, added.text

    url = web_stack.page_url()
    env = {**os.environ, "CHROMIUM": CHROMIUM, "GATEWAY_URL": url, "ANA_PASSWORD": "senha-de-teste-ana",
           "BRUNO_PASSWORD": "senha-de-teste-bruno", "QUERY": QUERY, "WALLED_FOLDER": "Caso Procon",
           "WALLED_TITLE": shared_page_stack.walled_title, "EXPORT_DIR": str(tmp_path),
           "SCREENSHOTS": screenshots_folder()}  # fmt: skip
    result = subprocess.run([node, str(SCENARIO)], env=env, cwd=GATEWAY_DIR, capture_output=True, text=True,
                            timeout=600)  # fmt: skip
    assert result.returncode == 0, f"browser scenario failed:\n{result.stdout}\n{result.stderr}"
    assert "2 passed, 0 failed" in result.stdout

    # What the page kept is what the API holds; the files downloaded are the folder's export.
    mine = web_stack.client.get("/folders", headers=ana).json()["folders"]
    kept = next(f for f in mine if f["name"] == "Cliente Acme: negativação")
    assert kept["shared_groups"] == ["contencioso"] and kept["items"] == 1
    item = web_stack.client.get(f"/folders/{kept['id']}", headers=ana).json()["items"][0]
    assert item["note"] == NOTE and item["added_by"] == "ana"
    document = docx.Document(str(tmp_path / "pasta.docx"))
    headings = [p.text for p in document.paragraphs if p.style is not None and p.style.name == "Heading 1"]
    assert headings == [item["citation"] or item["document_title"], "Referências"][: 2 if item["citation"] else 1]
    texts = [p.text for p in document.paragraphs]
    assert f"Nota: {NOTE}" in texts and any(t.startswith("“") and f"(p. {item['page_number']}" in t for t in texts)
    text = (tmp_path / "pasta.txt").read_text(encoding="utf-8")
    assert text.startswith("Cliente Acme: negativação\n") and f"Nota: {NOTE}" in text
