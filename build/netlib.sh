#!/usr/bin/env bash
# Installs what the netlib build needs from Debian's packages (OpenBLAS +
# LAPACKE for package backend_netlib's dense kernels, SuiteSparse's CHOLMOD
# and METIS for its sparse Cholesky and the LP's fill-reducing orders), then
# builds optdp with it, or (with "test") vets and tests it.
#   bash build/netlib.sh          # install packages, build ./optdp with -tags netlib
#   bash build/netlib.sh test     # install packages, go vet + go test with -tags netlib
# Environment: OPTDP_BLAS_THREADS sets the OpenBLAS thread count at run time
# (default 1; see package backend_netlib).
set -euo pipefail
cd "$(dirname "$0")/.."

mode="${1:-build}"
case "$mode" in
build | test) ;;
*)
	echo "usage: $0 [build|test]" >&2
	exit 2
	;;
esac

# cgo needs a C compiler; the backend links -llapacke -lopenblas -lcholmod
# -lsuitesparseconfig (CHOLMOD brings METIS).
need=()
for p in libopenblas-dev liblapacke-dev libsuitesparse-dev libmetis-dev; do
	dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
done
command -v gcc >/dev/null 2>&1 || need+=(gcc)
if [ ${#need[@]} -gt 0 ]; then
	if ! command -v apt-get >/dev/null 2>&1; then
		echo "netlib build needs ${need[*]} (Debian names); install OpenBLAS, LAPACKE, SuiteSparse (CHOLMOD), METIS and a C compiler by hand" >&2
		exit 1
	fi
	echo "installing ${need[*]}"
	SUDO=""
	[ "$(id -u)" -ne 0 ] && SUDO=sudo
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi

export CGO_ENABLED=1
case "$mode" in
test)
	go vet -tags netlib ./...
	go test -tags netlib ./...
	;;
build)
	go build -tags netlib -o optdp ./cmd/optdp
	./optdp version
	;;
esac
