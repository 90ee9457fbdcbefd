#!/usr/bin/env bash
# The Python package's CI step (called by .ci/run): Debian's python3 with
# python3-numpy, python3-pytest and python3-hypothesis (the property tests), a fresh virtual environment that sees
# them (--system-site-packages), `pip install --no-index ./python` (the
# documented install, proven offline: the build backend is in-tree and numpy
# comes from Debian), then the tests against the installed package.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=/usr/bin/python3
need=()
for p in python3 python3-numpy python3-pytest python3-hypothesis python3-venv python3-pip gcc; do
	dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
	if ! command -v apt-get >/dev/null 2>&1; then
		echo "the Python step needs ${need[*]} (Debian names); install them by hand" >&2
		exit 1
	fi
	echo "installing ${need[*]}"
	SUDO=""
	[ "$(id -u)" -ne 0 ] && SUDO=sudo
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$PY" -m venv --system-site-packages "$tmp/venv"
"$tmp/venv/bin/python" -m pip install --quiet --no-index ./python
# The tests import the installed package (the source, python/src/optdp, is
# not on sys.path and has no shared library); pytest's exit code 5 (no tests
# collected, e.g. when optdp cannot be imported) fails the step like any
# other.
"$tmp/venv/bin/python" -m pytest -q -p no:cacheprovider python/tests
