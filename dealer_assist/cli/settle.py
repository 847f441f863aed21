"""`dealer-assist settle FILE.json` (spec/round-script.md): JSON in, JSON out, exit 0 or 2.

It never raises: bad input is one line ``error: ...`` on standard error (exit 2), with
any quoted input escaped so that it stays one line (a name cannot forge a log line);
the output is UTF-8 whatever the terminal's encoding, so every valid name survives.
"""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from dealer_assist.base.errors import TranscriptError
from dealer_assist.cli.common import new_file_in_existing_directory
from dealer_assist.engine.transcript import dumps, load_transcript, settle_document


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="round transcript (JSON), or - for standard input")
    parser.add_argument(
        "--record",
        metavar="DB",
        type=new_file_in_existing_directory(),
        help="also record the round in this store file (its directory must exist)",
    )
    parser.add_argument(
        "--table", metavar="NAME", help="with --record: the table the store belongs to (e.g. BJ-07); "
        "names a new store, and a store of another table is refused"
    )
    parser.add_argument("--pit", metavar="PIT", help="with --record --table: the table's pit")


def one_line(text: str) -> str:
    """``text`` with every character that could break or hide a line escaped."""
    if text.isprintable():
        return text
    out = []
    for ch in text:
        if ch.isprintable():
            out.append(ch)
        else:
            code = ord(ch)
            out.append({"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(ch)
                       or (f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000
                           else f"\\U{code:08x}"))
    return "".join(out)


def _write(stream: TextIO, text: str) -> None:
    """UTF-8 bytes whatever the stream's encoding (a lone surrogate, which cannot be
    encoded, never gets here: it is refused, or escaped by one_line)."""
    buffer = getattr(stream, "buffer", None)
    if buffer is None:
        stream.write(text)
        return
    stream.flush()
    buffer.write(text.encode("utf-8", "backslashreplace"))
    buffer.flush()


def _error(message: str) -> int:
    _write(sys.stderr, f"error: {one_line(message)}\n")
    return 2


def run(args: argparse.Namespace) -> int:
    if (args.table or args.pit) and not args.record:
        return _error("--table and --pit go with --record DB")
    if args.pit and not args.table:
        return _error("--pit goes with --table NAME")
    try:
        if args.file == "-":
            text = sys.stdin.read()
        else:
            with open(args.file, encoding="utf-8") as fh:
                text = fh.read()
    except (OSError, UnicodeDecodeError) as exc:
        return _error(f"cannot read {args.file}: {getattr(exc, 'strerror', None) or exc}")
    try:
        document = load_transcript(text)
        output = settle_document(document)
        shown = dumps(output)
    except TranscriptError as exc:
        return _error(exc.message)
    except RecursionError:
        return _error("the transcript is nested too deeply")
    if args.record:
        from pathlib import Path

        from dealer_assist.service.station import create_store_file
        from dealer_assist.store import record_transcript

        try:
            create_store_file(Path(args.record))  # 0600 if new: its owner's alone
            # the document as settle read it: amounts with cents are exact Decimals
            record_transcript(args.record, document, output, table=args.table, pit=args.pit)
        except Exception as exc:  # noqa: BLE001 - the store reports its own errors in one line
            return _error(f"cannot record in {args.record}: {exc}")
    _write(sys.stdout, shown + "\n")
    return 0
