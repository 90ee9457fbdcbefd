#!/usr/bin/env bash
# The Python package's CI step (called by .ci/run), on Debian's python3 with
# python3-numpy, python3-pytest and python3-hypothesis (the property tests),
# offline:
#
#  1. the wheel: build/wheel.sh builds the library once (GOAMD64=v1,
#     -trimpath, glibc 2.17 symbol versions), checks it needs only glibc and
#     symbol versions <= GLIBC_2.17, and writes
#     optdp-<version>-py3-none-manylinux_2_17_x86_64.whl (checked: RECORD,
#     WHEEL, METADATA); a fresh virtual environment that sees Debian's numpy
#     (--system-site-packages) installs it with `pip install --no-index`
#     under a PATH of the venv alone (no go, no C compiler: the step fails if
#     either is found there), and the tests run against it with a PATH
#     without go (/usr/bin:/bin, where cc stays for the C-header test);
#  2. the source install: another fresh venv, `pip install --no-index
#     ./python` (the in-tree backend runs go build), and the tests again.
#
# The tests import the installed package (python/src/optdp is not on
# sys.path and has no library); pytest's exit code 5 (no tests collected,
# e.g. when optdp cannot be imported) fails the step like any other.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=/usr/bin/python3
need=()
for p in python3 python3-numpy python3-pytest python3-hypothesis python3-venv python3-pip gcc binutils; do
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
	# A dpkg run cut short leaves packages unconfigured, and apt-get then
	# refuses every install (exit 100) until they are configured.
	if [ -n "$(dpkg --audit 2>/dev/null)" ]; then
		DEBIAN_FRONTEND=noninteractive $SUDO dpkg --configure -a >/dev/null
	fi
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# on_path DIRS TOOL: whether TOOL is found on the PATH DIRS.
on_path() { (PATH=$1; hash -r; command -v "$2" >/dev/null 2>&1); }

# run_tests VENV PATH: pytest on python/tests with that venv's python and
# PATH, from a directory where python/src is not importable.
run_tests() {
	local venv=$1 path=$2 rc=0
	env -u GO -u OPTDP_LIBRARY PATH="$path" "$venv/bin/python" -c '
import optdp, optdp._lib as lib, sys
venv = sys.argv[1]
for f in (optdp.__file__, lib.library_path()):
    assert f.startswith(venv + "/"), f"optdp is not the installed package: {f}"
print("testing", optdp.__file__, "with", lib.library_path())
' "$venv"
	env -u GO -u OPTDP_LIBRARY PATH="$path" "$venv/bin/python" -m pytest -q -p no:cacheprovider python/tests || rc=$?
	if [ "$rc" -eq 5 ]; then
		echo "FAIL: pytest collected no tests (exit code 5)" >&2
	fi
	return "$rc"
}

echo "== wheel: build/wheel.sh"
PYTHON=$PY bash build/wheel.sh "$tmp/dist"
whl=$(echo "$tmp"/dist/optdp-*-py3-none-manylinux_2_17_x86_64.whl)
[ -f "$whl" ] || { echo "FAIL: build/wheel.sh wrote no manylinux_2_17 wheel" >&2; exit 1; }

echo "== wheel: pip install --no-index $(basename "$whl") into a fresh venv, PATH without go or a C compiler"
"$PY" -m venv --system-site-packages "$tmp/wheel-venv"
bare="$tmp/wheel-venv/bin"
for tool in go gcc cc; do
	if on_path "$bare" "$tool"; then
		echo "FAIL: $tool is on the install PATH $bare" >&2
		exit 1
	fi
done
env -u GO PATH="$bare" "$bare/python" -m pip install --quiet --no-index "$whl"
echo "== wheel: pytest python/tests (PATH=venv:/usr/bin:/bin, no go)"
if on_path "$bare:/usr/bin:/bin" go; then
	echo "FAIL: go is on /usr/bin:/bin; the wheel's tests must run without it" >&2
	exit 1
fi
run_tests "$tmp/wheel-venv" "$bare:/usr/bin:/bin"

echo "== source: pip install --no-index ./python into a fresh venv (go build), pytest python/tests"
"$PY" -m venv --system-site-packages "$tmp/src-venv"
"$tmp/src-venv/bin/python" -m pip install --quiet --no-index ./python
run_tests "$tmp/src-venv" "$tmp/src-venv/bin:$PATH"
