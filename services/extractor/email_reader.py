"""E-mail: .eml files read with the standard library, and threads exported to PDF split into messages.

A lawyer searching a thread wants to know who wrote a passage, to whom and when, so every message
becomes an EmailMessage (sender, recipients, cc, date, subject) that points at the page and the
offset where its header starts. In a .eml file the headers are exact; in a thread printed to PDF
(Outlook's "De: / Enviado em: / Para: / Assunto:" blocks, or their English labels) they are
recognised in the page text, and a block is only taken as a message header when it has a sender
and at least two of recipients, date and subject, so a memo or a decision that happens to contain
"Data:" or "Assunto:" is not split.

Attachments of a .eml file are handed back as bytes (email_attachments) for the service to ingest
as child documents; the body alone becomes this document's pages.
"""

from __future__ import annotations

import email
import email.message
import email.policy
import email.utils
import re
from dataclasses import dataclass
from datetime import datetime

from precedente.services.extractor.text_reader import decode_text, html_to_text, pages_from_text
from precedente.shared.errors import BadInput, quoted
from precedente.shared.legal.dates import MAIL_MONTHS
from precedente.shared.payloads import EmailMessage, Page

MAX_ATTACHMENTS = 200
"""More than this in one e-mail is not correspondence but a hostile file; the rest are left out."""
_MAX_PART_DEPTH = 20
"""MIME trees nest a few levels (mixed > alternative > related); a deeper one is hostile."""


@dataclass(frozen=True)
class Attachment:
    filename: str
    content_type: str
    data: bytes


# --------------------------------------------------------------------------------------------
# .eml files
# --------------------------------------------------------------------------------------------


def _parse(data: bytes, filename: str) -> email.message.EmailMessage:
    """The parsed message; a MIME tree the standard library cannot walk (nested thousands of
    levels deep, which makes it recurse past Python's limit) is a damaged file, not a crash."""
    if data.startswith(b"From "):  # an mbox export: drop its envelope line
        data = data.split(b"\n", 1)[1] if b"\n" in data else b""
    try:
        message = email.message_from_bytes(data, policy=email.policy.default)
        str(message.get("Subject", ""))  # header parsing is lazy: make it happen here
    except (RecursionError, ValueError, TypeError, LookupError) as exc:
        raise BadInput(
            f"the e-mail {quoted(filename)} cannot be parsed ({type(exc).__name__}: {str(exc)[:200]}); "
            "export it again from the mail client, or print it to PDF",
            "deadletter",
            code="damaged",
        ) from exc
    assert isinstance(message, email.message.EmailMessage)  # what policy.default builds
    return message


def _header(message: email.message.Message, name: str) -> str:
    try:
        value = message.get(name)
    except Exception:  # a header so malformed that even the lenient parser gives up
        return ""
    return re.sub(r"\s+", " ", str(value)).strip() if value is not None else ""


def _addresses(message: email.message.Message, name: str) -> list[str]:
    try:
        header = message.get(name)
        addresses = getattr(header, "addresses", None)
    except Exception:  # malformed address lists: fall back to the raw text below
        addresses = None
    if addresses:
        return [str(a) for a in addresses]
    raw = _header(message, name)
    return _split_recipients(raw) if raw else []


def _part_text(part: email.message.Message) -> str:
    """A text part's content, decoded by its charset; unknown or lying charsets fall back to ours."""
    try:
        content = part.get_content()  # type: ignore[attr-defined]
        if isinstance(content, str):
            return content
    except Exception:  # LookupError (unknown charset), binascii errors, and such
        pass
    payload = part.get_payload(decode=True)
    return decode_text(payload) if isinstance(payload, bytes) else ""


def _body_text(message: email.message.EmailMessage) -> str:
    """text/plain when it says something, else text/html turned into text."""
    for preference in ("plain", "html"):
        try:
            part = message.get_body(preferencelist=(preference,))
        except Exception:  # a broken MIME tree: try the other preference, then give up
            part = None
        if part is None:
            continue
        text = _part_text(part)
        if preference == "html":
            text = html_to_text(text)
        if text.strip():
            return text
    if not message.is_multipart() and message.get_content_maintype() == "text":
        return _part_text(message)
    return ""


def header_message(message: email.message.Message) -> EmailMessage:
    date_text = _header(message, "Date")
    try:
        date = getattr(message.get("Date"), "datetime", None)  # policy.default parses RFC 2822 dates
    except Exception:  # a Date header the parser could not make sense of
        date = None
    if date is None:
        date = parse_date(date_text)
    return EmailMessage(
        sender=", ".join(_addresses(message, "From")),
        recipients=_addresses(message, "To"),
        cc=_addresses(message, "Cc"),
        date=date,
        date_text=date_text,
        subject=_header(message, "Subject"),
        page_start=1,
        char_start=0,
    )


def extract_eml(data: bytes, filename: str, *, max_pages: int) -> tuple[list[Page], list[EmailMessage]]:
    """Pages of the body, headed by the message's header lines, and the messages in it.

    The header lines are written into page 1 in Portuguese, as a thread printed to PDF would show
    them, so the subject and the people are searchable; older messages quoted in the body (replies
    and forwards) are found as in a PDF thread.
    """
    message = _parse(data, filename)
    try:
        head = header_message(message)
        body = _body_text(message)
    except RecursionError as exc:
        raise BadInput(
            f"the e-mail {quoted(filename)} nests its parts too deeply to be read; print it to PDF instead",
            "deadletter",
            code="damaged",
        ) from exc
    lines = [
        ("De", head.sender),
        ("Para", "; ".join(head.recipients)),
        ("Cc", "; ".join(head.cc)),
        ("Data", head.date_text),
        ("Assunto", head.subject),
    ]
    preamble = "\n".join(f"{label}: {value}" for label, value in lines if value)
    pages = pages_from_text(f"{preamble}\n\n{body}" if preamble else body, filename, max_pages=max_pages)
    quoted_messages = [m for m in find_messages(pages) if (m.page_start, m.char_start) != (1, 0)]
    return pages, [head, *quoted_messages]


def email_attachments(data: bytes, filename: str = "message.eml") -> list[Attachment]:
    """The files attached to a .eml message, for the service to ingest as child documents.

    An attached e-mail (message/rfc822, a forward "as attachment") comes back whole, as .eml bytes,
    not opened here. Inline images referenced from the HTML body (signature logos, with a
    Content-ID and no "attachment" disposition) are not attachments anyone sent on purpose and
    are left out. Raises BadInput, as extract() does, for a message that cannot be parsed.
    """
    message = _parse(data, filename)
    found: list[Attachment] = []
    stack: list[tuple[email.message.Message, int]] = [(message, 0)]
    body_parts = {id(p) for p in _body_parts(message)}
    while stack and len(found) < MAX_ATTACHMENTS:
        part, depth = stack.pop()
        ctype = part.get_content_type()
        if part is not message and ctype == "message/rfc822":
            inner = part.get_payload()
            inner = inner[0] if isinstance(inner, list) and inner else inner
            payload = _message_bytes(inner) if isinstance(inner, email.message.Message) else b""
            subject = _header(inner, "Subject") if isinstance(inner, email.message.Message) else ""
            name = part.get_filename() or f"{_safe_name(subject) or 'mensagem'}.eml"
            found.append(Attachment(filename=name, content_type=ctype, data=payload))
            continue
        if part.is_multipart():
            if depth < _MAX_PART_DEPTH:
                children = part.get_payload()
                if isinstance(children, list):
                    stack.extend((child, depth + 1) for child in reversed(children))
            continue
        if id(part) in body_parts:
            continue
        disposition = part.get_content_disposition()
        filename = part.get_filename()
        if disposition != "attachment" and (not filename or part.get("Content-ID")):
            continue
        payload = part.get_payload(decode=True)
        if not isinstance(payload, bytes):
            continue
        found.append(
            Attachment(filename=filename or f"anexo-{len(found) + 1}", content_type=ctype, data=payload),
        )
    return found


# Headers written back as they were read: refolding a long or odd header runs it through the header
# parser and folder of the email package, which raise AttributeError, IndexError, UnicodeError... on
# hostile values (bench/fuzz_extractor.py found five).
_WRITE_BACK = email.policy.default.clone(refold_source="none", max_line_length=None)


def _message_bytes(message: email.message.Message) -> bytes:
    """An attached e-mail written back as .eml bytes, its headers untouched.

    BytesGenerator cannot write back some messages it parsed: a multipart whose boundary parameter
    has no value keeps its body as one string, which get_payload() hands the generator with its
    non-ASCII bytes decoded as U+FFFD (UnicodeEncodeError). The text generator writes it, those
    letters replaced; the rest of the message, and its other undecoded bytes, come back as they were.
    """
    try:
        return message.as_bytes(policy=_WRITE_BACK)
    except UnicodeEncodeError:
        return message.as_string(policy=_WRITE_BACK).encode("utf-8", "surrogateescape")


def _body_parts(message: email.message.EmailMessage) -> list[email.message.Message]:
    parts = []
    for preference in ("plain", "html"):
        try:
            part = message.get_body(preferencelist=(preference,))
        except Exception:  # broken MIME tree: nothing is a body, everything with a name is attached
            part = None
        if part is not None and part.get_content_disposition() != "attachment" and not part.get_filename():
            parts.append(part)
    return parts


def _safe_name(text: str) -> str:
    return re.sub(r"[^\w.-]+", "-", text).strip("-")[:80]


# --------------------------------------------------------------------------------------------
# Threads in page text (e-mails exported or printed to PDF)
# --------------------------------------------------------------------------------------------

_LABELS: dict[str, str] = {
    "de": "sender",
    "from": "sender",
    "remetente": "sender",
    "para": "to",
    "to": "to",
    "destinatário": "to",
    "destinatários": "to",
    "cc": "cc",
    "com cópia": "cc",
    "cco": "bcc",
    "bcc": "bcc",
    "data": "date",
    "date": "date",
    "enviado em": "date",
    "enviada em": "date",
    "enviado": "date",
    "enviada": "date",
    "sent": "date",
    "assunto": "subject",
    "subject": "subject",
}
_LABEL_LINE = re.compile(
    r"^[ \t]*(" + "|".join(sorted(map(re.escape, _LABELS), key=len, reverse=True)) + r")[ \t]*:[ \t]*(.*)$",
    re.IGNORECASE,
)
_MAX_HEADER_LINES = 12
"""A header block with a long wrapped recipient list still fits; anything longer is body text."""


@dataclass
class _Block:
    start: int
    fields: dict[str, str]


def find_messages(pages: list[Page]) -> list[EmailMessage]:
    """The message headers in page text, in reading order, each with its page and offset."""
    found: list[EmailMessage] = []
    for page in pages:
        for block in _header_blocks(page.text):
            fields = block.fields
            if "sender" not in fields or sum(k in fields for k in ("to", "date", "subject")) < 2:
                continue
            date_text = fields.get("date", "")
            found.append(
                EmailMessage(
                    sender=fields["sender"],
                    recipients=_split_recipients(fields.get("to", "")),
                    cc=_split_recipients(fields.get("cc", "")),
                    date=parse_date(date_text),
                    date_text=date_text,
                    subject=fields.get("subject", ""),
                    page_start=page.number,
                    char_start=block.start,
                )
            )
    return found


def _header_blocks(text: str) -> list[_Block]:
    """Runs of "Label: value" lines; a label alone on its line takes the next line as its value,
    and a recipient list continues on the next line when it wrapped (PDF text wraps both)."""
    lines = text.split("\n")
    offsets = [0]
    for line in lines[:-1]:
        offsets.append(offsets[-1] + len(line) + 1)
    blocks: list[_Block] = []
    i = 0
    while i < len(lines):
        match = _LABEL_LINE.match(lines[i])
        if not match or _LABELS[match.group(1).lower()] != "sender":
            i += 1
            continue
        block = _Block(start=offsets[i], fields={})
        j, last = i, ""
        while j < len(lines) and j - i < _MAX_HEADER_LINES:
            match = _LABEL_LINE.match(lines[j])
            if match:
                key = _LABELS[match.group(1).lower()]
                if key in block.fields:  # the next message's header begins
                    break
                value = match.group(2).strip()
                if not value and j + 1 < len(lines) and not _LABEL_LINE.match(lines[j + 1]):
                    j += 1
                    value = lines[j].strip()
                block.fields[key], last = value, key
            elif last in ("to", "cc", "bcc") and _continues_recipients(block.fields[last], lines[j]):
                block.fields[last] += " " + lines[j].strip()
            else:
                break
            j += 1
        blocks.append(block)
        i = max(j, i + 1)
    return blocks


_ADDRESS_START = re.compile(r"^\s*(?:<|[\w.+-]+@[\w-]+\.)")


def _continues_recipients(value: str, line: str) -> bool:
    """A wrapped recipient list: the list ended with a separator, or the line goes on with an address."""
    if not line.strip():
        return False
    return value.endswith((";", ",")) or bool(_ADDRESS_START.match(line))


def _split_recipients(value: str) -> list[str]:
    """Outlook separates recipients with ";"; others with "," (but "Silva, João" is one name)."""
    value = value.strip().strip(";,").strip()
    if not value:
        return []
    if ";" in value:
        parts = value.split(";")
    else:
        pieces = [p for p in value.split(",") if p.strip()]
        parts = pieces if len(pieces) > 1 and all("@" in p for p in pieces) else [value]
    return [re.sub(r"\s+", " ", p).strip() for p in parts if p.strip()]


# --------------------------------------------------------------------------------------------
# Dates as mail clients print them
# --------------------------------------------------------------------------------------------

_TIME = re.compile(r"\b(\d{1,2})[:h](\d{2})(?::(\d{2}))?\s*([ap]\.?\s?m\.?)?", re.IGNORECASE)
_NUMERIC_DATE = re.compile(r"\b(\d{1,4})[/.-](\d{1,2})[/.-](\d{2,4})\b")
_WORD = re.compile(r"[^\W\d_]+")
_RFC2822 = re.compile(r"^(?:[A-Za-z]{3},?\s+)?\d{1,2}\s+[A-Za-z]{3}\s+\d{2,4}\s+\d{1,2}:\d{2}")


def parse_date(text: str) -> datetime | None:
    """A header date as Outlook, Gmail or any RFC 2822 client writes it, in Portuguese or English.

    "segunda-feira, 3 de maio de 2021 10:15", "Monday, May 3, 2021 10:15 AM", "03/05/2021 10:15"
    (day first, as in Brazil, unless the second number cannot be a month or the clock has AM/PM).
    Returns None when no date can be read; the text is kept beside it either way.
    """
    text = text.strip()
    if not text:
        return None
    if _RFC2822.match(text):
        try:
            return email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            pass
    hour = minute = second = 0
    twelve_hour = False
    time_match = _TIME.search(text)
    rest = text
    if time_match:
        hour, minute = int(time_match.group(1)), int(time_match.group(2))
        second = int(time_match.group(3) or 0)
        suffix = (time_match.group(4) or "").lower().replace(".", "").replace(" ", "")
        twelve_hour = bool(suffix)
        if suffix == "pm" and hour < 12:
            hour += 12
        elif suffix == "am" and hour == 12:
            hour = 0
        rest = text[: time_match.start()] + " " + text[time_match.end() :]
    day = month = year = None
    numeric = _NUMERIC_DATE.search(rest)
    if numeric:
        a, b, c = (int(g) for g in numeric.groups())
        if len(numeric.group(1)) == 4:
            year, month, day = a, b, c
        else:
            # Day first as in Brazil; month first when the second number cannot be a month, or
            # when the clock says AM/PM, as US-configured Outlook writes "1/12/2022 2:32 PM".
            month_first = b > 12 or (twelve_hour and a <= 12)
            day, month, year = (b, a, c) if month_first else (a, b, c)
    else:
        month = next(
            (MAIL_MONTHS[w.lower().rstrip(".")] for w in _WORD.findall(rest) if w.lower() in MAIL_MONTHS), None
        )
        numbers = [int(n) for n in re.findall(r"\b\d{1,4}\b", rest)]
        years = [n for n in numbers if n >= 1900]
        days = [n for n in numbers if 1 <= n <= 31]
        year = years[0] if years else None
        day = days[0] if days else None
    if year is not None and year < 100:
        year += 2000
    if not (day and month and year):
        return None
    try:
        return datetime(year, month, day, hour, minute, second)
    except ValueError:
        return None
