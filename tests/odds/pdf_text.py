"""The text a reportlab PDF shows: its page streams (ASCII85, then Flate) decoded and the strings
of their text operators joined by single spaces (a paragraph's wrapped lines read as one)."""

from __future__ import annotations

import base64
import re
import zlib
from pathlib import Path

_STREAM = re.compile(rb"/Filter \[ /ASCII85Decode /FlateDecode \][^>]*>>\s*stream\r?\n(.*?)endstream", re.S)
_SHOWN = re.compile(rb"\(((?:[^()\\]|\\.)*)\)\s*Tj")


def pdf_text(path: Path) -> str:
    return " ".join(page_texts(path))


def page_texts(path: Path) -> list[str]:
    """Each page's text, in order (a reportlab page is one content stream)."""
    pages: list[str] = []
    for raw in _STREAM.findall(path.read_bytes()):
        body = raw.strip()
        if body.endswith(b"~>"):
            body = body[:-2]
        content = zlib.decompress(base64.a85decode(body))
        words = [re.sub(rb"\\(.)", rb"\1", shown).decode("latin-1") for shown in _SHOWN.findall(content)]
        pages.append(re.sub(r"\s+", " ", " ".join(words)).strip())
    return pages
