"""Just enough of the OLE2 compound file format ([MS-CFB]) to tell what a legacy Office file is.

Legacy Word (.doc), Excel, PowerPoint, Outlook .msg and *password-protected* DOCX files all start
with the same 8 bytes; only the names of the streams inside tell them apart (a protected DOCX is
an OLE2 container with "EncryptionInfo" and "EncryptedPackage" streams, [MS-OFFCRYPTO]). This
reads the directory and nothing else, with every sector chain bounded by the file's own size, so
a hostile file cannot make it loop or allocate more than the file already takes.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

OLE2_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"

_DIFAT_SECTOR = 0xFFFFFFFC
"""This and the values above it mark the end of a chain or special sectors, never a next sector."""
_MAX_DIRECTORY_SECTORS = 1024
"""A directory of 4,096+ entries; real files have tens, an Outlook message with attachments hundreds."""
_STREAM, _STORAGE, _ROOT = 2, 1, 5


class NotOle(ValueError):
    """The bytes start like an OLE2 file but their structure is broken."""


@dataclass(frozen=True)
class OleEntry:
    name: str
    kind: int
    start: int
    size: int


class OleFile:
    """The directory of a compound file, and the first bytes of any stream in it."""

    def __init__(self, data: bytes) -> None:
        if len(data) < 512 or not data.startswith(OLE2_MAGIC):
            raise NotOle("too short or not an OLE2 signature")
        self._data = data
        shift = struct.unpack_from("<H", data, 0x1E)[0]
        if shift not in (9, 12):
            raise NotOle(f"sector shift {shift}")
        self.sector_size = 1 << shift
        self._sectors = max(0, (len(data) - self.sector_size) // self.sector_size + 1)
        fat_count, first_dir = struct.unpack_from("<II", data, 0x2C)
        self.mini_cutoff = struct.unpack_from("<I", data, 0x38)[0]
        first_difat, difat_count = struct.unpack_from("<II", data, 0x44)
        if fat_count > self._sectors:
            raise NotOle(f"{fat_count} FAT sectors in a file of {self._sectors}")
        fat_sectors = [s for s in struct.unpack_from("<109I", data, 0x4C) if s < _DIFAT_SECTOR]
        per_difat = self.sector_size // 4 - 1
        sector, seen = first_difat, 0
        while sector < _DIFAT_SECTOR and seen < min(difat_count, self._sectors):
            block = self._sector(sector)
            entries = struct.unpack_from(f"<{per_difat + 1}I", block)
            fat_sectors.extend(s for s in entries[:per_difat] if s < _DIFAT_SECTOR)
            sector, seen = entries[per_difat], seen + 1
        self._fat_sectors = fat_sectors[:fat_count]
        self.entries = self._directory(first_dir)

    def _sector(self, number: int) -> bytes:
        if number >= self._sectors:
            raise NotOle(f"sector {number} is past the end of the file")
        offset = (number + 1) * self.sector_size
        block = self._data[offset : offset + self.sector_size]
        return block.ljust(self.sector_size, b"\0")

    def _next(self, sector: int) -> int:
        """The allocation table's entry for a sector, read in place (the table is never copied)."""
        per_sector = self.sector_size // 4
        index, slot = divmod(sector, per_sector)
        if index >= len(self._fat_sectors):
            raise NotOle(f"sector {sector} is outside the allocation table")
        offset = (self._fat_sectors[index] + 1) * self.sector_size + 4 * slot
        if offset + 4 > len(self._data):
            raise NotOle("the allocation table is past the end of the file")
        return int(struct.unpack_from("<I", self._data, offset)[0])

    def _chain(self, start: int, limit: int) -> list[int]:
        chain: list[int] = []
        seen: set[int] = set()
        sector = start
        while sector < _DIFAT_SECTOR:
            if sector in seen or len(chain) >= limit:
                raise NotOle("a sector chain loops or is longer than any real one")
            seen.add(sector)
            chain.append(sector)
            sector = self._next(sector)
        return chain

    def _directory(self, first: int) -> list[OleEntry]:
        raw = b"".join(self._sector(s) for s in self._chain(first, _MAX_DIRECTORY_SECTORS))
        entries: list[OleEntry] = []
        for offset in range(0, len(raw) - 127, 128):
            name_len, kind = struct.unpack_from("<HB", raw, offset + 0x40)
            if kind not in (_STREAM, _STORAGE, _ROOT) or not 2 <= name_len <= 64:
                continue
            name = raw[offset : offset + name_len - 2].decode("utf-16-le", "replace")
            start, size = struct.unpack_from("<IQ", raw, offset + 0x74)
            if self.sector_size == 512:
                size &= 0xFFFFFFFF  # version 3 files leave the high half undefined
            entries.append(OleEntry(name, kind, start, size))
        if not entries or entries[0].kind != _ROOT:
            raise NotOle("no root entry in the directory")
        return entries

    def names(self) -> set[str]:
        return {e.name for e in self.entries if e.kind in (_STREAM, _STORAGE)}

    def stream_head(self, name: str) -> bytes | None:
        """The first bytes of a stream: its first sector, or its first 64-byte mini sector when small."""
        for entry in self.entries:
            if entry.name != name or entry.kind != _STREAM:
                continue
            if entry.size >= self.mini_cutoff:
                return self._sector(entry.start)[: entry.size]
            # Small streams live in the mini stream: the root entry's own sectors, cut in 64-byte pieces.
            offset = entry.start * 64
            if offset // self.sector_size >= self._sectors:
                return None
            sector = self.entries[0].start
            for _ in range(offset // self.sector_size):
                sector = self._next(sector)
                if sector >= _DIFAT_SECTOR:
                    return None
            inner = offset % self.sector_size
            return self._sector(sector)[inner : inner + min(64, entry.size)]
        return None


def describe_ole(data: bytes) -> tuple[str, str]:
    """(kind, description): kind is "doc", "encrypted-ooxml", "encrypted-doc" or "other"."""
    try:
        ole = OleFile(data)
    except (NotOle, struct.error) as exc:
        return "other", f"a damaged OLE2 compound file (legacy Office format: {exc})"
    names = ole.names()
    if {"EncryptionInfo", "EncryptedPackage"} <= names or "EncryptedPackage" in names:
        return "encrypted-ooxml", "an encrypted Office document (a DOCX, XLSX or PPTX saved with a password)"
    if "WordDocument" in names:
        head = ole.stream_head("WordDocument")
        if head is not None and len(head) >= 12:
            ident, flags = struct.unpack_from("<H", head, 0)[0], struct.unpack_from("<H", head, 0x0A)[0]
            if ident == 0xA5EC and flags & 0x0100:  # FibBase.fEncrypted
                return "encrypted-doc", "a legacy Word document (.doc) saved with a password"
        return "doc", "a legacy Word document (.doc)"
    if "Workbook" in names or "Book" in names:
        return "other", "a legacy Excel spreadsheet (.xls); save it as PDF"
    if "PowerPoint Document" in names:
        return "other", "a legacy PowerPoint presentation (.ppt); save it as PDF"
    if any(n.startswith(("__substg1.0_", "__properties_version1.0")) for n in names):
        return "other", "an Outlook message (.msg); save it as .eml (drag it out of Outlook) or print it to PDF"
    return "other", "an OLE2 compound file of an unknown kind (legacy Office format); save it as DOCX or PDF"
