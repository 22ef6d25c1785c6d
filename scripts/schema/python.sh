# Sourced by the schema and conformance checks: sets $python to a Python 3 that can import
# jsonschema (with referencing), yaml and websockets. The first python3 on PATH that can is used; else PyPI's
# jsonschema 4.23.0, PyYAML and websockets are installed with pip into .build/pydeps (beside the build, as
# browser.sh installs axe) and put on PYTHONPATH.
python=""
for candidate in python3 /usr/bin/python3; do
  if command -v "$candidate" >/dev/null && "$candidate" -c 'import jsonschema, referencing, yaml, websockets' 2>/dev/null; then
    python=$candidate; break
  fi
done
if [ -z "$python" ]; then
  python=/usr/bin/python3
  export PYTHONPATH=".build/pydeps${PYTHONPATH:+:$PYTHONPATH}"
  if ! "$python" -c 'import jsonschema, referencing, yaml, websockets' 2>/dev/null; then
    "$python" -m pip --version >/dev/null 2>&1 || bash scripts/deps.sh python3-pip
    "$python" -m pip install --quiet --disable-pip-version-check --target .build/pydeps jsonschema==4.23.0 PyYAML websockets
  fi
fi
