"""`precedente whoami`: as whom the command line acts, its groups and permissions."""

import json
import shutil
import sys
import textwrap

from precedente import api_errors
from precedente.cli.common import ApiOption, JsonOption, groups_text
from precedente.credentials import api_client

PERMISSION_WORDS = {"search": "buscar", "ingest": "enviar", "review": "revisar", "admin": "administrar"}


def whoami(api: ApiOption = None, as_json: JsonOption = False) -> None:
    """Como quem a linha de comando age: seus grupos e permissões.

    A credencial é PRECEDENTE_API_KEY, senão a chave de administrador local do `precedente up`; um documento só
    é encontrado por quem está em um dos grupos dele."""
    with api_client(api) as client:
        me = api_errors.check(client.get("/auth/me")).json()
    if as_json:
        sys.stdout.write(json.dumps(me, ensure_ascii=False, indent=2) + "\n")
        return
    lines = [
        f"{me['user']} ({me['kind']})",
        f"grupos: {groups_text(me.get('groups', []))}",
        f"permissões: {', '.join(PERMISSION_WORDS.get(p, p) for p in me.get('permissions', [])) or 'nenhuma'}",
    ]
    if not me.get("groups") and me.get("auth_mode") != "none":
        lines.append(
            "arquivos enviados com --groups X são encontrados por pessoas e chaves do grupo X, não por esta"
            " credencial (`precedente keys create --scope search,ingest --groups X` cria uma que os encontra)"
        )
    width = max(shutil.get_terminal_size((80, 24)).columns - 1, 40)
    sys.stdout.write("\n".join(w for line in lines for w in textwrap.wrap(line, width=width)) + "\n")
