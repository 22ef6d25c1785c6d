#!/usr/bin/env python3
"""Checks schema/asyncapi.yaml without the network (no AsyncAPI meta-schema is available offline):
the YAML parses; it is AsyncAPI 3.0.0 with info.title and info.version; every operation's
action is send or receive, its channel resolves, and its messages are the channel's; every $ref
resolves (a JSON pointer inside the document, or a schema file beside it); every message
payload is a draft 2020-12 schema (checked with jsonschema) whose `type` const is the message's
name. Exits 1 naming each problem.
"""
import json
import pathlib
import sys

import yaml
from jsonschema import Draft202012Validator

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent / "schema"
problems = []


def pointer(document, ref):
    node = document
    for part in ref.lstrip("#/").split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def walk(node, where, document, refs):
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref":
                refs.append((where, value))
            else:
                walk(value, where + "/" + str(key), document, refs)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            walk(value, where + "/" + str(i), document, refs)


def main():
    path = ROOT / "asyncapi.yaml"
    document = yaml.safe_load(path.read_text())
    if document.get("asyncapi") != "3.0.0":
        problems.append("asyncapi is not 3.0.0")
    for key in ("title", "version"):
        if not isinstance(document.get("info", {}).get(key), str):
            problems.append(f"info.{key} missing")
    refs = []
    walk(document, "#", document, refs)
    files = 0
    for where, ref in refs:
        if ref.startswith("#"):
            if pointer(document, ref) is None:
                problems.append(f"{where}: $ref {ref} does not resolve")
        else:
            target = ROOT / ref
            if not target.is_file():
                problems.append(f"{where}: $ref {ref}: no file {target}")
                continue
            schema = json.loads(target.read_text())
            try:
                Draft202012Validator.check_schema(schema)
            except Exception as error:  # the validator's SchemaError, named in the message
                problems.append(f"{where}: {ref} is not a valid draft 2020-12 schema: {error}")
            files += 1
    for name, message in document.get("components", {}).get("messages", {}).items():
        schema_ref = message.get("payload", {}).get("schema", {}).get("$ref", "")
        target = ROOT / schema_ref
        if target.is_file():
            const = json.loads(target.read_text()).get("properties", {}).get("type", {}).get("const")
            if const != name:
                problems.append(f"components/messages/{name}: payload {schema_ref} is for type {const!r}")
        if "draft-2020-12" not in message.get("payload", {}).get("schemaFormat", ""):
            problems.append(f"components/messages/{name}: schemaFormat is not draft 2020-12")
    for name, operation in document.get("operations", {}).items():
        if operation.get("action") not in ("send", "receive"):
            problems.append(f"operations/{name}: action must be send or receive")
        channel_ref = operation.get("channel", {}).get("$ref", "")
        for message in operation.get("messages", []):
            if not message.get("$ref", "").startswith(channel_ref + "/messages/"):
                problems.append(f"operations/{name}: message {message} is not one of {channel_ref}'s")
    for problem in problems:
        print("asyncapi: " + problem, file=sys.stderr)
    print(f"asyncapi: {len(refs)} $refs resolved, {files} payload schemas valid draft 2020-12, "
          f"{len(document.get('operations', {}))} operations" + (" FAILED" if problems else ""), file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
