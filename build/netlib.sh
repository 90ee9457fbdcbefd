#!/usr/bin/env bash
# Installs what the netlib (OpenBLAS + LAPACKE) backend needs from Debian's
# packages, then builds optdp with it, or (with "test") vets and tests it.
#   bash build/netlib.sh          # install packages, build ./optdp with -tags netlib
#   bash build/netlib.sh test     # install packages, go vet + go test with -tags netlib
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
for p in libopenblas-dev liblapacke-dev; do
	dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
	echo "installing ${need[*]}"
	SUDO=""
	[ "$(id -u)" -ne 0 ] && SUDO=sudo
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi

export CGO_ENABLED=1
case "${1:-build}" in
test)
	go vet -tags netlib ./...
	go test -tags netlib ./...
	;;
build)
	go build -tags netlib -o optdp ./cmd/optdp
	./optdp version
	;;
*)
	echo "usage: $0 [build|test]" >&2
	exit 2
	;;
esac
