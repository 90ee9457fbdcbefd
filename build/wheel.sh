#!/usr/bin/env bash
# Builds the distributable wheel of the Python package:
# OUTDIR/optdp-<version>-py3-none-manylinux_2_17_x86_64.whl (default OUTDIR:
# dist/), which installs with pip on any x86-64 Linux with glibc >= 2.17 and
# Python >= 3.9, without Go or a C compiler.
#
#   bash build/wheel.sh [OUTDIR]
#
# Needs Go 1.26, gcc and binutils (readelf), on x86-64 Linux with glibc;
# nothing is downloaded. The library is built once, for the baseline x86-64
# level (GOAMD64=v1), -trimpath, stripped (-s -w), with cgo (c-shared needs
# it), its glibc references bound to versions glibc 2.17 has
# (build/glibc_2_17.h) and libpthread.so.0 named, where glibc < 2.34 keeps
# pthread_create; python/_build/wheel_check.py then refuses it unless it
# needs only glibc's libraries and symbol versions <= GLIBC_2.17, and
# checks the written wheel (RECORD, WHEEL, METADATA). PYTHON chooses the
# interpreter that writes the wheel (default python3; the standard library
# suffices).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-dist}
PY=${PYTHON:-python3}
PLATFORM=manylinux_2_17_x86_64

if [ "$(uname -s)/$(uname -m)" != Linux/x86_64 ]; then
	echo "build/wheel.sh builds the x86-64 Linux wheel; this is $(uname -s)/$(uname -m)" >&2
	exit 1
fi
for tool in go gcc readelf "$PY"; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "build/wheel.sh needs $tool on PATH (Go 1.26, gcc, binutils, Python >= 3.9)" >&2
		exit 1
	fi
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
lib="$tmp/liboptdp.so"
echo "wheel: go build -buildmode=c-shared (GOAMD64=v1, -trimpath, glibc 2.17 symbol versions)"
GOOS=linux GOARCH=amd64 GOAMD64=v1 CGO_ENABLED=1 CC=gcc \
	CGO_CFLAGS="-O2 -g -include $PWD/build/glibc_2_17.h" \
	CGO_LDFLAGS="-Wl,--push-state,--no-as-needed -l:libpthread.so.0 -Wl,--pop-state" \
	go build -buildmode=c-shared -trimpath -buildvcs=false -ldflags="-s -w" -o "$lib" ./cmd/liboptdp

# The build settings Go recorded in the library (evidence of the above).
settings=$(go version -m "$lib")
for want in '-buildmode=c-shared' '-trimpath=true' 'CGO_ENABLED=1' 'GOAMD64=v1'; do
	if ! grep -qE "^[[:space:]]*build[[:space:]]+${want}\$" <<<"$settings"; then
		echo "FAIL: the library's build settings lack $want:" >&2
		echo "$settings" >&2
		exit 1
	fi
done
"$PY" python/_build/wheel_check.py lib "$lib" "$PLATFORM"

mkdir -p "$out"
whl=$("$PY" python/_build/optdp_build.py --library "$lib" --platform "$PLATFORM" --outdir "$out")
"$PY" python/_build/wheel_check.py wheel "$whl"
echo "wheel: $whl ($(du -k "$whl" | cut -f1) KiB)"
