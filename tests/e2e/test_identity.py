"""Identity on a real `precedente up`: the first administrator (a one-time password in a private file, changed
before anything else) and the local admin key, the `users`, `keys` and `audit` commands, no secret nor
searched or indexed text in any log, and the demo mode without sign-in."""

import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from precedente.shared.accounts import ADMIN_KEY_FILE, ADMIN_PASSWORD_FILE
from tests.conftest import RunningStack

pytestmark = pytest.mark.e2e


@dataclass
class FirstStart:
    stack: RunningStack
    one_time: str  # the administrator's one-time password, as the first start left it in its file
    printed: str  # what that first start printed
    chosen: str = ""  # the administrator's own password, once changed

    @property
    def password(self) -> str:
        """The administrator's password now: the one-time one is changed first (the API allows nothing else)."""
        if not self.chosen:
            change_admin_password(self)
        return self.chosen


@pytest.fixture(scope="module")
def first(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FirstStart]:
    with RunningStack(tmp_path_factory.mktemp("identity")) as stack:
        printed = stack.log_since_start()
        password_file = stack.data_dir / ADMIN_PASSWORD_FILE
        assert password_file.exists() and str(password_file) in printed, printed
        yield FirstStart(stack, password_file.read_text().strip(), printed)


def change_admin_password(first: FirstStart) -> None:
    """What the operator does at the first sign-in: `precedente password --user admin`, from the one-time one."""
    chosen = "primeiro-acesso-trocado-" + uuid.uuid4().hex[:6]
    changed = subprocess.run(
        [sys.executable, "-m", "precedente.cli", "password", "--user", "admin"],
        input=f"{first.one_time}\n{chosen}\n{chosen}\n",
        capture_output=True,
        text=True,
        timeout=120,
        env={**first.stack.cli_env(), "COLUMNS": "200"},
    )
    assert changed.returncode == 0, changed.stdout + changed.stderr
    first.chosen = chosen


def precedente(stack: RunningStack, *args: str, key: str | None = None) -> subprocess.CompletedProcess:
    """The command as an operator runs it against the stack: the admin key unless another credential is given."""
    return subprocess.run(
        [sys.executable, "-m", "precedente.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**stack.cli_env(key), "COLUMNS": "200"},
    )


def sign_in(stack: RunningStack, user: str, password: str) -> str:
    answer = stack.client.post("/auth/login", json={"user": user, "password": password}, headers={"Authorization": ""})
    assert answer.status_code == 200, answer.text
    return answer.json()["token"]


def test_first_start_makes_an_admin_with_a_one_time_password_and_a_private_key(first: FirstStart) -> None:
    stack = first.stack
    password_file = stack.data_dir / ADMIN_PASSWORD_FILE
    assert password_file.stat().st_mode & 0o777 == 0o600 and len(first.one_time) >= 20
    assert "'admin'" in first.printed and first.one_time not in first.printed  # where it is, never what it is
    key_file = stack.data_dir / ADMIN_KEY_FILE
    assert key_file.stat().st_mode & 0o777 == 0o600
    admin_key = key_file.read_text().strip()
    assert admin_key.startswith("prk_")

    signed_in = stack.client.post(
        "/auth/login", json={"user": "admin", "password": first.one_time}, headers={"Authorization": ""}
    )
    assert signed_in.status_code == 200 and signed_in.json()["must_change_password"] is True
    session = {"Authorization": f"Bearer {signed_in.json()['token']}"}
    me = stack.client.get("/auth/me", headers=session).json()
    assert (me["user"], me["kind"], me["roles"], me["auth_mode"]) == ("admin", "user", ["admin"], "required")
    assert me["must_change_password"] is True
    for method, path in (("GET", "/users"), ("POST", "/search"), ("GET", "/audit")):  # admin, and held back
        held = stack.client.request(method, path, json={"query": "prazo"}, headers=session)
        assert held.status_code == 403 and "password change required" in held.json()["detail"], (path, held.text)
    wrong = stack.client.post(
        "/auth/login", json={"user": "admin", "password": "x" * 20}, headers={"Authorization": ""}
    )
    assert wrong.status_code == 401

    stack.stop()
    stack.start()
    again = stack.log_since_start()  # not changed yet: the same account, the same file, pointed at again
    assert "is up" in again and str(password_file) in again and first.one_time not in again
    assert password_file.read_text().strip() == first.one_time
    assert key_file.read_text().strip() == admin_key and key_file.stat().st_mode & 0o777 == 0o600
    me = stack.client.get("/auth/me", headers={"Authorization": f"Bearer {admin_key}"}).json()
    assert me["kind"] == "key" and "admin" in me["permissions"]  # the CLI's key is never held back

    change_admin_password(first)  # `precedente password --user admin`, from the one-time password
    assert not password_file.exists()  # replaced: the API (or the CLI) deleted the file that held it
    session = {"Authorization": f"Bearer {sign_in(stack, 'admin', first.chosen)}"}
    assert stack.client.get("/users", headers=session).status_code == 200
    assert stack.client.get("/auth/me", headers=session).json()["must_change_password"] is False
    refused = stack.client.post(
        "/auth/login", json={"user": "admin", "password": first.one_time}, headers={"Authorization": ""}
    )
    assert refused.status_code == 401
    stack.stop()
    stack.start()
    assert str(password_file) not in stack.log_since_start() and not password_file.exists()


def test_users_keys_and_audit_commands(first: FirstStart) -> None:
    stack = first.stack
    session = sign_in(stack, "admin", first.password)  # acting as the person admin, so the log says "admin"

    added = precedente(stack, "users", "add", "ana", "--groups", "socios", key=session)
    assert added.returncode == 0, added.stdout + added.stderr
    assert "one-time password" in added.stdout
    ana_password = added.stdout.split()[-1]
    ana = sign_in(stack, "ana", ana_password)
    assert ana.startswith("prs_")
    held = stack.client.post("/search", json={"query": "contrato"}, headers={"Authorization": f"Bearer {ana}"})
    assert held.status_code == 403  # a handed-over password is good for one sign-in: her own first
    assert precedente(stack, "users", "add", "ana", key=session).returncode != 0  # once only

    made = precedente(stack, "keys", "create", "--scope", "search", "--groups", "socios", key=session)
    assert made.returncode == 0, made.stdout + made.stderr
    search_key = made.stdout.split()[-1]
    assert search_key.startswith("prk_") and "shown only now" in made.stdout
    me = stack.client.get("/auth/me", headers={"Authorization": f"Bearer {search_key}"}).json()
    assert (me["groups"], me["permissions"]) == (["socios"], ["search"])

    listed = precedente(stack, "users", "list", "--json")  # the local admin key
    assert listed.returncode == 0, listed.stderr
    users = {user["name"]: user for user in json.loads(listed.stdout)}
    assert users["ana"]["groups"] == ["socios"] and users["admin"]["roles"] == ["admin"]
    assert ana_password not in listed.stdout and "password" not in json.dumps(users["ana"])

    audited = precedente(stack, "audit", "--user", "admin", "--json")
    assert audited.returncode == 0, audited.stderr
    entries = json.loads(audited.stdout)
    assert {e["actor"] for e in entries} == {"admin"}
    actions = [e["action"] for e in entries]
    assert "user.add" in actions and "key.create" in actions and "auth.login" in actions
    added_entry = next(e for e in entries if e["action"] == "user.add")
    assert added_entry["detail"]["name"] == "ana" and added_entry["detail"]["groups"] == ["socios"]
    assert search_key not in audited.stdout and ana_password not in audited.stdout  # not even in the log

    recent = precedente(stack, "audit", "--since", "1h", "--json")
    assert recent.returncode == 0, recent.stderr
    recent_entries = json.loads(recent.stdout)
    assert {"user.add", "key.create"} <= {e["action"] for e in recent_entries}
    hour_ago = datetime.now(UTC) - timedelta(hours=1, minutes=1)
    assert all(datetime.fromisoformat(e["at"]) >= hour_ago for e in recent_entries)
    assert precedente(stack, "audit", "--since", "ontem").returncode != 0  # neither a date nor a span

    refused = precedente(stack, "audit", key=search_key)
    assert refused.returncode != 0
    assert "403" in refused.stdout + refused.stderr
    assert precedente(stack, "users", "list", key=search_key).returncode != 0


def test_passwords_changed_by_their_owner_reset_by_an_administrator_and_accounts_suspended(first: FirstStart) -> None:
    stack = first.stack
    added = precedente(stack, "users", "add", "bruno", "--groups", "socios")
    assert added.returncode == 0, added.stdout + added.stderr
    given = added.stdout.split()[-1]
    elsewhere = sign_in(stack, "bruno", given)  # a session on another device

    chosen = "cavalo-grampo-bateria-" + uuid.uuid4().hex[:6]
    changed = subprocess.run(
        [sys.executable, "-m", "precedente.cli", "password", "--user", "bruno"],
        input=f"{given}\n{chosen}\n{chosen}\n",
        capture_output=True,
        text=True,
        timeout=120,
        env={**stack.cli_env(), "COLUMNS": "200"},  # the admin key is not what signs in: the password is
    )
    assert changed.returncode == 0, changed.stdout + changed.stderr
    assert chosen not in changed.stdout and given not in changed.stdout  # asked for, never echoed
    anonymous = {"Authorization": ""}
    assert (
        stack.client.post("/auth/login", json={"user": "bruno", "password": given}, headers=anonymous).status_code
        == 401
    )
    assert stack.client.get("/auth/me", headers={"Authorization": f"Bearer {elsewhere}"}).status_code == 401
    session = sign_in(stack, "bruno", chosen)

    wrong = precedente(stack, "password", "--user", "bruno")  # no input at all: refused, nothing changed
    assert wrong.returncode != 0
    assert sign_in(stack, "bruno", chosen).startswith("prs_")

    reset = precedente(stack, "users", "password", "bruno")  # forgotten: the admin key sets a new one
    assert reset.returncode == 0, reset.stdout + reset.stderr
    fresh = reset.stdout.split()[-1]
    assert stack.client.get("/auth/me", headers={"Authorization": f"Bearer {session}"}).status_code == 401
    assert sign_in(stack, "bruno", fresh).startswith("prs_")
    assert precedente(stack, "users", "password", "ninguem").returncode != 0

    assert precedente(stack, "users", "disable", "bruno").returncode == 0  # on leave: out, account kept
    refused = stack.client.post("/auth/login", json={"user": "bruno", "password": fresh}, headers={"Authorization": ""})
    assert refused.status_code == 401
    listed = {u["name"]: u for u in json.loads(precedente(stack, "users", "list", "--json").stdout)}
    assert listed["bruno"]["disabled_at"] and listed["bruno"]["groups"] == ["socios"]
    assert precedente(stack, "users", "enable", "bruno").returncode == 0
    assert sign_in(stack, "bruno", fresh).startswith("prs_")

    actions = [e["action"] for e in json.loads(precedente(stack, "audit", "--json").stdout)]
    assert {"auth.password_change", "user.password_reset", "user.disable", "user.enable"} <= set(actions)


def files_containing(folder: Path, secrets: dict[str, str]) -> dict[str, list[str]]:
    """Which secret (by name) appears in which file under `folder`, bytes compared."""
    found: dict[str, list[str]] = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        data = path.read_bytes()
        for name, secret in secrets.items():
            if secret.encode() in data:
                found.setdefault(name, []).append(str(path.relative_to(folder)))
    return found


def test_no_secret_nor_searched_or_indexed_text_reaches_the_logs(first: FirstStart) -> None:
    stack = first.stack
    session = sign_in(stack, "admin", first.password)
    as_admin = {"Authorization": f"Bearer {session}"}
    made = stack.client.post(
        "/keys", json={"name": "registro", "scopes": ["search", "ingest"], "groups": ["socios"]}, headers=as_admin
    )
    assert made.status_code == 201, made.text
    new_key = made.json()["key"]
    as_key = {"Authorization": f"Bearer {new_key}"}
    wrong_password = f"senha-errada-{uuid.uuid4().hex[:10]}"  # what someone guessing types is a secret too
    guessed = stack.client.post(
        "/auth/login", json={"user": "admin", "password": wrong_password}, headers={"Authorization": ""}
    )
    assert guessed.status_code == 401
    key_prefix, key_id, key_secret = new_key.split("_", 2)  # prk_<hex id>_<secret>: the secret itself may hold "_"
    forged = f"{key_prefix}_{key_id}_{uuid.uuid4().hex}{uuid.uuid4().hex[:11]}"  # a real key id, a wrong secret
    assert stack.client.get("/auth/me", headers={"Authorization": f"Bearer {forged}"}).status_code == 401

    document_marker = f"xilofagozurra{uuid.uuid4().hex[:8]}"
    query_marker = f"quimerofonia{uuid.uuid4().hex[:8]}"
    text = (
        f"Parecer interno sobre a cláusula {document_marker} de não concorrência do sócio retirante, "
        "que vale por cinco anos em todo o território nacional e prevê multa em caso de descumprimento."
    )
    sent = stack.client.post(
        "/documents", files={"file": ("parecer.txt", text.encode())}, data={"access_groups": "socios"}, headers=as_key
    )
    assert sent.status_code == 202, sent.text
    document_id = sent.json()["document_id"]
    assert stack.wait_final({document_id: "socios"}, timeout=300)[document_id]["stage"] == "indexed"
    found = stack.client.post(
        "/search", json={"query": f"cláusula {document_marker} do sócio retirante {query_marker}"}, headers=as_key
    )
    assert found.status_code == 200 and found.json()["results"][0]["document_id"] == document_id
    opened = stack.client.get(f"/documents/{document_id}", headers=as_key)
    assert opened.status_code == 200 and document_marker in opened.text
    assert stack.client.post("/auth/logout", headers=as_admin).status_code == 204

    stack.stop()  # every service flushes its log and its spans
    logs = stack.data_dir / "logs"
    # The logs are there and cover what was done (so finding nothing in them means something).
    assert '"POST /search' in (logs / "search.log").read_text()
    assert document_id in (logs / "traces.jsonl").read_text()
    secrets = {
        "admin password": first.password,
        "admin one-time password": first.one_time,
        "session token": session,
        "API key": new_key,
        "API key secret": key_secret,
        "admin key": (stack.data_dir / ADMIN_KEY_FILE).read_text().strip(),
        "query marker": query_marker,
        "document marker": document_marker,
        "guessed password": wrong_password,
        "forged key": forged,
    }
    assert files_containing(logs, secrets) == {}
    printed = (stack.data_dir / "up.log").read_text()  # the console: the file's path, never the password
    assert first.one_time not in printed and first.password not in printed and ADMIN_PASSWORD_FILE in printed


def test_no_auth_mode_is_offered_as_a_demo() -> None:
    """What a stack in that mode says and who its caller is: tests/e2e/test_gateway.py's demo stack."""
    helped = subprocess.run(
        [sys.executable, "-m", "precedente.cli", "up", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert helped.returncode == 0 and "--no-auth" in helped.stdout
    assert "demo" in helped.stdout.lower()
