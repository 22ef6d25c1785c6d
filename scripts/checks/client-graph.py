#!/usr/bin/env python3
"""The modules the app's library product (IsobarClient) builds from, read from SwiftPM's build
manifest (.build/debug.yaml, written by any `swift build`): each module's compile command names
the modules it imports (and the C targets whose objects it needs) as inputs, so the transitive closure of IsobarClient's command is what
`swift build --product IsobarClient` compiles. Prints them grouped by package and fails when a
server module (libzmq, SQLite, Hummingbird, the pipeline's own) is among them. (A system library
such as CLibZMQ leaves no build step of its own: it is reached only through the Swift module that
imports it, IsobarBus, which is checked.)

Usage: python3 scripts/checks/client-graph.py [MANIFEST]   (docs/client.md lists the output)
"""
import re
import sys

FORBIDDEN = {"CLibZMQ", "IsobarBus", "IsobarBusClient", "IsobarHost", "IsobarStdio", "IsobarNet", "IsobarStore", "IsobarGateway",
             "IsobarSampleFeed", "GRDB", "GRDBSQLite", "SQLite3", "Hummingbird", "HummingbirdCore", "HummingbirdTLS",
             "HummingbirdWebSocket", "AsyncHTTPClient", "Prometheus"}

manifest = sys.argv[1] if len(sys.argv) > 1 else ".build/debug.yaml"
text = open(manifest, encoding="utf-8").read()
commands = {}
for block in re.split(r'\n  "', text):
    match = re.match(r'C\.([A-Za-z0-9_]+)-[^"]*-debug\.module":\n((?:    .*\n?)*)', block)
    if match:
        commands[match.group(1)] = match.group(2)


def imports(module):
    body = commands.get(module, "")
    inputs = re.search(r'inputs: \[(.*)\]', body)
    if not inputs:
        return set()
    found = set()
    for path in re.findall(r'"([^"]+)"', inputs.group(1)):
        swift = re.search(r'/Modules/([A-Za-z0-9_]+)\.swiftmodule$', path)
        clang = re.search(r'/([A-Za-z0-9_]+)\.build/module\.modulemap$', path)
        compiled = re.search(r'/([A-Za-z0-9_]+)\.build/.*\.o$', path)
        for hit in (swift, clang, compiled):
            if hit:
                found.add(hit.group(1))
    return found - {module}


def package_of(module):
    hit = re.search(r'/checkouts/([^/"]+)/Sources/' + re.escape(module) + r'/', text)
    return hit.group(1) if hit else "isobar (this package)"


def closure(root):
    """Every module `root` builds from (not `root` itself)."""
    seen, todo = set(), [root]
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        todo.extend(imports(module) - seen)
    seen.discard(root)
    return seen


if "IsobarClient" not in commands:
    sys.exit(f"client-graph: no IsobarClient module in {manifest} (build first)")
seen = closure("IsobarClient")
by_package = {}
for module in sorted(seen):
    by_package.setdefault(package_of(module), []).append(module)
for package in sorted(by_package):
    print(f"{package}: {', '.join(by_package[package])}")
bad = sorted(seen & FORBIDDEN)
if bad:
    sys.exit(f"client-graph: FAILED: IsobarClient builds from server modules: {', '.join(bad)}")
print(f"client-graph: {len(seen)} modules, no server module (libzmq, SQLite, Hummingbird, IsobarHost/Gateway/Net/Store/Bus)")

# The gateway joins the bus through IsobarBusClient, without the process layer (issue 33 item 5).
if "IsobarGateway" in commands:
    gateway = closure("IsobarGateway")
    bad = sorted(gateway & {"IsobarHost", "IsobarNet", "IsobarStore", "IsobarSampleFeed"})
    if bad:
        sys.exit(f"client-graph: FAILED: IsobarGateway builds from {', '.join(bad)} (it joins the bus through IsobarBusClient)")
    print(f"client-graph: IsobarGateway builds from {', '.join(sorted(m for m in gateway if m.startswith('Isobar')))}: not the process layer")
