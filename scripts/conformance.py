#!/usr/bin/env python3
"""Runs any program as an Isobar stage on the conformance vectors and prints each difference:
    python3 scripts/conformance.py STAGE [--only GLOB]... [--disputed] [--vectors DIR] -- CMD ARGS...
STAGE is filter, format, fetch or places. For each vector in conformance/STAGE/<section>/<name>.json the
program is started as `CMD ARGS... <the vector's args>`, the vector's input written to its stdin
(which is then closed), and its stdout compared line by line, as JSON values, with the vector's
expected output. Exits 1 naming every vector that differs.

What the contract leaves open is not compared (conformance/README.md): times (`fetchedAt`,
`ageSeconds`); an error's `message`, `excerpt` and `stage` (its `client` is compared, and its
`code` when the vector has one); a warning's `message`; a resync's `reason`; and, for fetch,
snapshot ids (the hash is Isobar's), a status's `url`, `reason` and `retryIn`. Numbers compare as
numbers (46 equals 46.0); a cluster's means may differ by one unit in their last rounded place
(PROTOCOL.md, "Clustering, exactly": ties). `--only` takes globs on `<section>/<name>`;
vectors marked `disputed` (the binary and PROTOCOL.md disagree) are skipped unless --disputed.
"""
import fnmatch
import json
import pathlib
import subprocess
import sys
import tempfile

REPO = pathlib.Path(__file__).resolve().parent.parent
TIMES = {"fetchedAt", "ageSeconds"}
# Cluster means are rounded (R6, R3, R1); at a tie either way is right.
CLUSTER_UNITS = {"latitude": 1e-6, "longitude": 1e-6, "temperature": 1e-3, "windSpeed": 1e-3,
                 "precipitation": 1e-3, "windDirection": 0.1}


# The codes a stage may report as the more general `invalid` (PROTOCOL.md, "Errors").
GENERAL = {"field-missing", "field-type", "out-of-range"}


def normalize(message, expected, stage):
    """Drops what the contract leaves open from one output line (the expected line decides `code`)."""
    if not isinstance(message, dict):
        return message
    m = {k: v for k, v in message.items() if k not in TIMES}
    kind = m.get("type")
    if kind == "error":
        for key in ("message", "excerpt", "stage"):
            m.pop(key, None)
        if not (isinstance(expected, dict) and "code" in expected):
            m.pop("code", None)
        elif m.get("code") == "invalid" and expected["code"] in GENERAL:
            m["code"] = expected["code"]  # PROTOCOL.md, "Errors": `invalid` may stand for a field's code
    elif kind == "warning":
        m.pop("message", None)
    elif kind == "resync":
        m.pop("reason", None)
    elif kind == "tally" and not (isinstance(expected, dict) and "acceptance" in expected):
        m.pop("acceptance", None)  # optional: what the snapshot rule did (PROTOCOL.md, tally)
    if stage == "fetch":
        if kind in ("station", "snapshot"):
            m.pop("snapshot", None)
        if kind == "status":
            for key in ("url", "reason", "retryIn") if m.get("state") == "failed" else ("url", "reason", "attempt", "retryIn"):
                m.pop(key, None)
    return m


def differences(expected, actual, path, out, cluster=False):
    if isinstance(expected, bool) or isinstance(actual, bool):
        if expected is not actual:
            out.append(f"{path}: expected {json.dumps(expected)}, got {json.dumps(actual, ensure_ascii=False)}")
        return
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        unit = CLUSTER_UNITS.get(path.rsplit(".", 1)[-1]) if cluster else None
        if expected != actual and not (unit and abs(expected - actual) <= unit * 1.0001):
            out.append(f"{path}: expected {json.dumps(expected)}, got {json.dumps(actual)}")
        return
    if isinstance(expected, dict) and isinstance(actual, dict):
        cluster = expected.get("cluster") is True
        for key in expected:
            if key not in actual:
                out.append(f"{path}.{key}: missing (expected {json.dumps(expected[key], ensure_ascii=False)[:120]})")
            else:
                differences(expected[key], actual[key], f"{path}.{key}", out, cluster)
        for key in actual:
            if key not in expected:
                out.append(f"{path}.{key}: unexpected (got {json.dumps(actual[key], ensure_ascii=False)[:120]})")
        return
    if isinstance(expected, list) and isinstance(actual, list):
        for i, (e, a) in enumerate(zip(expected, actual)):
            differences(e, a, f"{path}[{i}]", out, cluster)
        if len(expected) != len(actual):
            out.append(f"{path}: expected {len(expected)} items, got {len(actual)}")
        return
    if expected != actual or type(expected) is not type(actual):
        out.append(f"{path}: expected {json.dumps(expected, ensure_ascii=False)[:160]}, got {json.dumps(actual, ensure_ascii=False)[:160]}")


def label(message):
    return f"{message.get('type')}" if isinstance(message, dict) else "?"


def run_vector(vector, command, stage):
    with tempfile.TemporaryDirectory() as files:
        for name, body in vector.get("files", {}).items():
            pathlib.Path(files, name).write_text(body)
        args = [a.replace("{repo}", str(REPO)).replace("{files}", files) for a in vector["args"]]
        stdin = "".join((i if isinstance(i, str) else json.dumps(i, ensure_ascii=False, separators=(",", ":"))) + "\n"
                        for i in vector["input"])
        try:
            run = subprocess.run([*command, *args], input=stdin.encode(), capture_output=True, timeout=30)
        except subprocess.TimeoutExpired:
            return ["the program did not exit within 30 s of its stdin closing"]
    problems = []
    actual = []
    for number, text in enumerate(run.stdout.decode("utf-8", "replace").splitlines(), 1):
        if not text.strip():
            continue
        try:
            actual.append(json.loads(text))
        except ValueError:
            problems.append(f"output line {number} is not JSON: {text[:120]}")
    expected = vector["expected"]
    for i, e in enumerate(expected):
        if i >= len(actual):
            problems.append(f"line {i + 1}: missing: {json.dumps(e, ensure_ascii=False)[:200]}")
            continue
        if label(e) != label(actual[i]):
            problems.append(f"line {i + 1}: expected {label(e)}, got {json.dumps(actual[i], ensure_ascii=False)[:200]}")
            continue
        diffs = []
        differences(normalize(e, e, stage), normalize(actual[i], e, stage), f"line {i + 1} ({label(e)})", diffs)
        problems.extend(diffs)
    for i in range(len(expected), len(actual)):
        problems.append(f"line {i + 1}: unexpected: {json.dumps(actual[i], ensure_ascii=False)[:200]}")
    return problems


def main(argv):
    if "--" not in argv or not argv or argv[0].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    split = argv.index("--")
    stage, options, command = argv[0], argv[1:split], argv[split + 1:]
    only, disputed, root = [], False, REPO / "conformance"
    i = 0
    while i < len(options):
        if options[i] == "--only":
            only.append(options[i + 1]); i += 2
        elif options[i] == "--disputed":
            disputed = True; i += 1
        elif options[i] == "--vectors":
            root = pathlib.Path(options[i + 1]); i += 2
        else:
            print(f"conformance: unknown option {options[i]}", file=sys.stderr)
            return 2
    paths = sorted((root / stage).glob("*/*.json"))
    if not paths:
        print(f"conformance: no vectors under {root / stage}", file=sys.stderr)
        return 2
    passed = failed = skipped = 0
    for path in paths:
        name = f"{path.parent.name}/{path.stem}"
        if only and not any(fnmatch.fnmatch(name, g) for g in only):
            continue
        vector = json.loads(path.read_text())
        if vector.get("disputed") and not disputed:
            skipped += 1
            continue
        problems = run_vector(vector, command, stage)
        if problems:
            failed += 1
            print(f"FAIL {stage}/{name} ({vector['section']}): {vector['description']}")
            for p in problems[:12]:
                print(f"  {p}")
            if len(problems) > 12:
                print(f"  … {len(problems) - 12} more")
        else:
            passed += 1
    print(f"conformance {stage}: {passed} passed, {failed} failed" + (f", {skipped} disputed skipped" if skipped else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
