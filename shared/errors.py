"""Why a file cannot be read as it is, and where it should go: the extractor raises BadInput, and the search
service refuses an upload by it (shared/formats.py)."""

from typing import Literal

Disposition = Literal["review", "deadletter"]


class BadInput(Exception):
    """A file no stage can read as it is. disposition says where it goes."""

    def __init__(self, reason: str, disposition: Disposition, code: str | None = None) -> None:
        super().__init__(reason)
        self.reason: str = reason
        self.disposition: Disposition = disposition
        self.code: str = code or ("needs_review" if disposition == "review" else "unreadable")

    def __repr__(self) -> str:
        return f"BadInput({self.reason!r}, {self.disposition!r}, {self.code!r})"

    def __reduce__(self) -> tuple[type["BadInput"], tuple[str, str, str]]:
        """Rebuilt whole when it crosses from the isolated extraction process."""
        return (BadInput, (self.reason, self.disposition, self.code))


def quoted(filename: str) -> str:
    return f'"{filename}"'


def damaged_pdf(filename: str, detail: str) -> BadInput:
    return BadInput(
        f"the PDF {quoted(filename)} is damaged or truncated: {detail}; re-export or re-scan it",
        "deadletter",
        code="damaged",
    )
