#!/usr/bin/env python3
"""Validates NDJSON lines against schema/ (JSON Schema draft 2020-12, PyPI jsonschema):
    python3 scripts/schema/validate.py FILE.ndjson...
    python3 scripts/schema/validate.py --websocket FILE.ndjson...   (an app's frames: schema/websocket/)
Every line must be a JSON object whose `type` has a schema in schema/messages/<type>.json and
that validates against it. Prints the count of lines validated per type; exits 1 on any invalid
line or any type without a schema (naming the file to add).
"""
import collections
import json
import pathlib
import sys

from jsonschema import Draft202012Validator
from referencing import Registry, Resource

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent / "schema"


def registry():
    """Every schema file under schema/, registered under its $id (each is checked as a schema)."""
    resources = []
    for path in sorted(ROOT.rglob("*.json")):
        data = json.loads(path.read_text())
        Draft202012Validator.check_schema(data)
        resources.append((data["$id"], Resource.from_contents(data)))
    return Registry().with_resources(resources)


def main(files):
    reg = registry()
    validators = {}
    folder = "messages"
    if files and files[0] == "--websocket":  # an app's frames to the gateway: schema/websocket/
        folder, files = "websocket", files[1:]
    for path in sorted((ROOT / folder).glob("*.json")):
        validators[path.stem] = Draft202012Validator(json.loads(path.read_text()), registry=reg)
    counts = collections.Counter()
    failures = 0
    missing = collections.Counter()
    for name in files:
        for number, line in enumerate(open(name, encoding="utf-8"), 1):
            if not line.strip():
                continue
            where = f"{name}:{number}"
            try:
                message = json.loads(line)
            except ValueError as error:
                print(f"{where}: not JSON ({error})", file=sys.stderr)
                failures += 1
                continue
            kind = message.get("type") if isinstance(message, dict) else None
            if not isinstance(kind, str) or kind not in validators:
                missing[kind] += 1
                if missing[kind] == 1:
                    print(f"{where}: no schema for message type {kind!r}: add schema/{folder}/{kind}.json "
                          f"(in scripts/make-schema.py's MESSAGES) and document the type in PROTOCOL.md: {line.strip()[:200]}",
                          file=sys.stderr)
                failures += 1
                continue
            errors = sorted(validators[kind].iter_errors(message), key=lambda e: list(e.absolute_path))
            if errors:
                failures += 1
                for error in errors[:3]:
                    path = "/".join(str(p) for p in error.absolute_path) or "(top)"
                    print(f"{where}: {kind} invalid at {path}: {error.message[:300]}", file=sys.stderr)
                continue
            counts[kind] += 1
    total = sum(counts.values())
    print(f"schema: {total} lines validated against schema/{folder}/: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())), file=sys.stderr)
    if failures:
        print(f"schema: {failures} line(s) failed", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
