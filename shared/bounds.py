"""One declared bound per field a submitter sets, the same at every entrance: the upload route (and so the CLI,
which goes through it), the events a document-management system publishes, and what the API serves back.

Why these numbers: a 900,000-character title was accepted once, and every search that found it answered ~2 MB
and froze the page ~100 s; 100,000 access groups were copied to every chunk and checked on every search.
- TITLE_MAX 500: a title is a line or two on a results page, not a text; a long ementa-style caption fits.
- FILENAME_MAX 255: what ext4, NTFS and APFS allow for one name.
- GROUPS_MAX 64 groups of GROUP_MAX 64 characters: an ethical wall names a handful of teams; a firm's directory
  group names are short ("lit-sp", "cliente-acme"). 64 x 64 caps each list a chunk copies at 4,096 characters.
- METADATA_MAX 200: a court's or a document type's name ("Tribunal Regional Federal da 3ª Região").
NUL is refused in every one of them (NO_NUL).
"""

from typing import Annotated

from pydantic import Field, StringConstraints

TITLE_MAX = 500
FILENAME_MAX = 255
GROUPS_MAX = 64
GROUP_MAX = 64
METADATA_MAX = 200

NO_NUL = r"^[^\x00]*$"
"""PostgreSQL text cannot hold NUL (a NUL in an event's filename once failed "outside the stage's handling").
Other control characters pass: a DMS's file name may hold a line break, and the API serves it escaped
(services/search/routers/documents.py content_headers)."""

Title = Annotated[str, StringConstraints(max_length=TITLE_MAX, pattern=NO_NUL)]
Filename = Annotated[str, StringConstraints(min_length=1, max_length=FILENAME_MAX, pattern=NO_NUL)]
Group = Annotated[str, StringConstraints(min_length=1, max_length=GROUP_MAX, pattern=NO_NUL)]
Groups = Annotated[list[Group], Field(max_length=GROUPS_MAX)]
MetadataText = Annotated[str, StringConstraints(max_length=METADATA_MAX, pattern=NO_NUL)]

ELLIPSIS = "…"


def clip(text: str | None, bound: int) -> str | None:
    """`text` cut to `bound` characters, its last one an ellipsis: what the API serves of a value stored before
    its bound was declared (a legacy 900,000-character title), so no answer ships a field past its bound."""
    if text is None or len(text) <= bound:
        return text
    return text[: bound - 1] + ELLIPSIS
