#!/usr/bin/env bash
# The app library pulls no server dependency (issue 31): every module the IsobarClient product
# compiles, read from SwiftPM's build manifest of the build the test command just made, listed and
# checked against the server's modules (libzmq, SQLite, Hummingbird, IsobarHost/Gateway/Net/Store/Bus).
# Also checks that IsobarGateway builds without the process layer (IsobarHost): it joins the bus
# through IsobarBusClient.
set -euo pipefail
cd "$(dirname "$0")/../.."
python3 scripts/checks/client-graph.py
