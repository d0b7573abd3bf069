"""Alerts of saved searches (issue 34, item 1): "novos desde a última visita", and the daily e-mail digest.

What is new for a saved search is computed, never stored: the search runs again now, under the person's groups
of now, and its works graded at least "provável" whose first indexing (for those groups) came after the person
last looked are new. A document the person may not see is neither a result nor a copy that dates a work, so an
alert never names nor counts it, whatever changed in its access, or in the person's groups, since the search was
saved.

`send_digest` is the daily job (`precedente alertas enviar`, run by cron or deploy/k8s's CronJob): one message per
person and address with the news of each of their searches since their last visit or the last digest, whichever is
later, sent through PRECEDENTE_SMTP_*.
"""

import asyncio
import logging
import smtplib
import ssl
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from itertools import groupby
from typing import Any

import asyncpg
from pydantic import BaseModel, Field

from precedente.services.search.engine.candidates import Candidates
from precedente.services.search.engine.models import SearchFilters, SearchRequest
from precedente.services.search.engine.ranking import Ranking
from precedente.services.search.engine.search import hybrid_search
from precedente.services.search.store import audit
from precedente.services.search.store import saved_searches as store
from precedente.services.search.store.relevance import active_calibration
from precedente.services.search.syntax import parse_query
from precedente.shared.accounts import Identity
from precedente.shared.embeddings.embedders import QueryCache
from precedente.shared.settings import Settings

log = logging.getLogger(__name__)

ALERT_DEPTH = 50
"""Works of a saved search looked at for news: its first 50 by relevance (a page of the API's largest is 200; a
work past the 50th is not one a lawyer would be alerted to)."""
RELEVANT = ("forte", "provável")


class NewWork(BaseModel):
    """A work new to a saved search: what a person needs to recognise and open it."""

    work_id: str
    document_id: str
    title: str
    citation: str | None = None
    court_label: str | None = None
    document_date: date | None = None
    relevance: str = Field(description='"forte" or "provável".')
    indexed_at: datetime = Field(description="When it first became searchable for you.")
    document_url: str = ""


async def news(
    pool: asyncpg.Pool,
    saved: store.Saved,
    groups: list[str],
    settings: Settings,
    query_vectors: QueryCache,
    ranking: Ranking,
    since: datetime,
) -> list[NewWork]:
    """The works the saved search returns now at least "provável" under `groups`, first indexed after `since`,
    the latest first."""
    request = SearchRequest(
        query=saved.query, filters=SearchFilters(**saved.filters), top_k=ALERT_DEPTH, sort="relevance"
    )
    parsed = parse_query(request.query)
    vector = await asyncio.to_thread(query_vectors.query, parsed.text)
    candidates = Candidates(settings.search_candidates, settings.search_lexical_candidates).at_least(ALERT_DEPTH)
    calibration = await active_calibration(pool)
    page = await hybrid_search(
        pool, request, vector, groups, candidates, ranking, parsed=parsed, calibration=calibration
    )
    relevant = [r for r in page.results if r.relevance in RELEVANT]
    indexed = await store.first_indexed(pool, [r.work_id for r in relevant], groups)
    found = [
        NewWork(
            work_id=r.work_id,
            document_id=r.document_id,
            title=r.document_title,
            citation=r.citation,
            court_label=r.court_label,
            document_date=r.document_date,
            relevance=r.relevance,
            indexed_at=indexed[r.work_id],
            document_url=r.document_url,
        )
        for r in relevant
        if r.work_id in indexed and indexed[r.work_id] > since
    ]
    return sorted(found, key=lambda w: w.indexed_at, reverse=True)


def smtp_configured(settings: Settings) -> bool:
    return bool(settings.smtp_host)


def smtp_send(settings: Settings, message: EmailMessage) -> None:
    """One message through the firm's SMTP server (PRECEDENTE_SMTP_*): STARTTLS, implicit TLS or plain."""
    context = ssl.create_default_context()
    if settings.smtp_security == "tls":
        server: smtplib.SMTP = smtplib.SMTP_SSL(settings.smtp_host, settings.smtp_port, timeout=30, context=context)
    else:
        server = smtplib.SMTP(settings.smtp_host, settings.smtp_port, timeout=30)
    with server:
        if settings.smtp_security == "starttls":
            server.starttls(context=context)
        if settings.smtp_username:
            server.login(settings.smtp_username, settings.smtp_password)
        server.send_message(message)


@dataclass
class DigestReport:
    messages: int = 0  # e-mails sent
    searches: int = 0  # saved searches whose news they carried
    works: int = 0  # new works named in them
    skipped: int = 0  # saved searches of accounts removed or disabled: nothing mailed
    failed: int = 0  # messages the server refused (their searches are tried again next time)


def _br(day: date | datetime | None) -> str:
    return day.strftime("%d/%m/%Y") if day else ""


def _link(settings: Settings, path: str) -> str:
    origin = settings.public_origin.split(",")[0].strip().rstrip("/")
    return f"{origin}{path}" if origin else ""


def digest_message(
    settings: Settings, to: str, owner: str, items: list[tuple[store.Saved, list[NewWork]]]
) -> EmailMessage:
    """The digest of one person's searches, in the words of the page."""
    total = sum(len(works) for _, works in items)
    message = EmailMessage()
    message["From"] = settings.smtp_from
    message["To"] = to
    message["Date"] = formatdate(localtime=True)
    message["Message-ID"] = make_msgid(domain="precedente")
    searches = "pesquisa salva" if len(items) == 1 else "pesquisas salvas"
    message["Subject"] = f"Precedente: {total} {'novo' if total == 1 else 'novos'} em {len(items)} {searches}"
    lines = [
        f"Olá, {owner}.",
        "",
        "Novos desde a sua última visita, com relevância forte ou provável, entre os documentos que você pode ver:",
    ]
    for saved, works in items:
        lines += ["", f"Pesquisa «{saved.name}» ({len(works)} {'novo' if len(works) == 1 else 'novos'})"]
        if link := _link(settings, f"/pesquisas?id={saved.id}"):
            lines.append(f"  {link}")
        for work in works:
            where = ", ".join(x for x in (work.court_label, _br(work.document_date)) if x)
            name = work.citation or work.title
            lines.append(f"  - {name}{f' ({where})' if where else ''}: relevância {work.relevance}")
            if work.citation and work.title != work.citation:
                lines.append(f"    {work.title}")
    lines += ["", "Abrir a pesquisa no Precedente zera a contagem. Para não receber mais, apague a pesquisa salva."]
    message.set_content("\n".join(lines) + "\n")
    return message


async def send_digest(
    pool: asyncpg.Pool,
    settings: Settings,
    query_vectors: QueryCache,
    ranking: Ranking,
    *,
    send: Callable[[Settings, EmailMessage], Any] = smtp_send,
) -> DigestReport:
    """Mail each person, at each address their saved searches name, the news of those searches since their last
    visit or the last digest; a search's digest time moves only when its message was accepted."""
    report = DigestReport()
    started: datetime = await pool.fetchval("SELECT clock_timestamp()")  # the database's clock, as indexing's
    recipients = await store.digest_recipients(pool)
    for (to, kind, owner), group in groupby(
        recipients, key=lambda r: (r.saved.email, r.saved.owner_kind, r.saved.owner)
    ):
        items: list[tuple[store.Saved, list[NewWork]]] = []
        groups: list[str] = []
        for recipient in group:
            if recipient.groups is None:
                report.skipped += 1
                continue
            groups = recipient.groups
            saved = recipient.saved
            since = max(saved.last_visited_at, saved.digest_sent_at or saved.last_visited_at)
            if found := await news(pool, saved, recipient.groups, settings, query_vectors, ranking, since):
                items.append((saved, found))
        if not items or to is None:
            continue
        try:
            await asyncio.to_thread(send, settings, digest_message(settings, to, owner, items))
        except (OSError, smtplib.SMTPException) as err:
            log.warning("alerts: the digest to %s was not sent: %s", to, err)
            report.failed += 1
            continue
        await store.mark_digest_sent(pool, [saved.id for saved, _ in items], started)
        who = Identity(user=owner, kind=kind, groups=groups)
        named = [uuid.UUID(w.document_id) for _, works in items for w in works]
        detail = {"to": to, "searches": len(items), "works": len(named)}
        await audit.record(pool, who, "alerts.digest", document_ids=named, detail=detail)  # what left, and to whom
        report.messages += 1
        report.searches += len(items)
        report.works += len(named)
    return report
