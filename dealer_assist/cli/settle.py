"""`dealer-assist settle FILE.json` (spec/round-script.md): JSON in, JSON out, exit 0 or 2."""

from __future__ import annotations

import argparse
import sys

from dealer_assist.cli.common import new_file_in_existing_directory
from dealer_assist.errors import TranscriptError
from dealer_assist.transcript import dumps, settle_text


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="round transcript (JSON), or - for standard input")
    parser.add_argument(
        "--record",
        metavar="DB",
        type=new_file_in_existing_directory(),
        help="also record the round in this store file (its directory must exist)",
    )


def run(args: argparse.Namespace) -> int:
    try:
        if args.file == "-":
            text = sys.stdin.read()
        else:
            with open(args.file, encoding="utf-8") as fh:
                text = fh.read()
    except (OSError, UnicodeDecodeError) as exc:
        print(f"error: cannot read {args.file}: {getattr(exc, 'strerror', None) or exc}", file=sys.stderr)
        return 2
    try:
        output = settle_text(text)
    except TranscriptError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        return 2
    except RecursionError:
        print("error: the transcript is nested too deeply", file=sys.stderr)
        return 2
    if args.record:
        import json
        from pathlib import Path

        from dealer_assist.station import create_store_file
        from dealer_assist.store import record_transcript

        try:
            create_store_file(Path(args.record))  # 0660 if new: the station's group shares it
            record_transcript(args.record, json.loads(text), output)
        except Exception as exc:  # noqa: BLE001 - the store reports its own errors in one line
            print(f"error: cannot record in {args.record}: {exc}", file=sys.stderr)
            return 2
    sys.stdout.write(dumps(output) + "\n")
    return 0
