"""Checks that a wheel, and the shared library in it, are what their tag says.

    python3 wheel_check.py lib LIBRARY PLATFORM   # e.g. manylinux_2_17_x86_64
    python3 wheel_check.py wheel WHEEL

``lib``: the library's NEEDED entries (``readelf -d``) are glibc's only, and
every symbol version it needs (``readelf -V``, the ``.gnu.version_r``
section the dynamic loader checks) is a GLIBC_x.y no newer than the
platform tag's glibc: the test auditwheel applies to a manylinux tag. The
allowed libraries are libc.so.6, the dynamic loader, and libpthread.so.0:
glibc before 2.34 keeps pthread_create and its kin there, so a library that
runs on glibc 2.17 must name it (on newer glibc it is an empty stub).

``wheel``: every file is listed in RECORD with its sha256 and size, the
WHEEL file says Root-Is-Purelib: false and the tag of the file name,
METADATA has the name, version, Requires-Python, Requires-Dist and licence,
the licence file is there, and the library in it passes ``lib``.

Standard library and binutils' readelf only. Exits 1 with the reasons.
"""

from __future__ import annotations

import base64
import email.parser
import hashlib
import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

# glibc's own libraries that a manylinux library may need (the subset of
# the manylinux policies' list that the Go runtime can use).
ALLOWED_NEEDED = {"libc.so.6", "libpthread.so.0", "ld-linux-x86-64.so.2"}
LEGACY = {"manylinux1": (2, 5), "manylinux2010": (2, 12), "manylinux2014": (2, 17)}


def platform_glibc(platform: str):
    """(major, minor, arch) of a manylinux platform tag; None for others."""
    m = re.fullmatch(r"manylinux_(\d+)_(\d+)_(\w+)", platform)
    if m:
        return int(m.group(1)), int(m.group(2)), m.group(3)
    m = re.fullmatch(r"(manylinux\d+)_(\w+)", platform)
    if m and m.group(1) in LEGACY:
        return LEGACY[m.group(1)] + (m.group(2),)
    return None


def _readelf(*args: str) -> str:
    try:
        proc = subprocess.run(["readelf", "-W", *args], capture_output=True, text=True)
    except FileNotFoundError:
        raise SystemExit("wheel_check: readelf (binutils) is needed to check the library") from None
    if proc.returncode != 0:
        raise SystemExit(f"wheel_check: readelf {' '.join(args)}: {proc.stderr.strip()}")
    return proc.stdout


def library_facts(path) -> dict:
    """NEEDED entries, {file: [version names]} of the version needs, machine."""
    path = str(path)
    machine = re.search(r"Machine:\s*(.+)", _readelf("-h", path)).group(1).strip()
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", _readelf("-d", path))
    versions: dict = {}
    current = None
    for line in _readelf("-V", path).splitlines():
        m = re.search(r"File: (\S+)\s+Cnt:", line)
        if m:
            current = m.group(1)
            versions.setdefault(current, [])
            continue
        m = re.search(r"Name: (\S+)\s+Flags:", line)
        if m and current is not None:
            versions[current].append(m.group(1))
    return {"machine": machine, "needed": needed, "versions": versions}


def _glibc_version(name: str):
    m = re.fullmatch(r"GLIBC_(\d+(?:\.\d+)+)", name)
    return tuple(int(x) for x in m.group(1).split(".")) if m else None


def newest_glibc(path) -> str:
    """The newest GLIBC_x.y[.z] version the library at path needs."""
    names = [n for ns in library_facts(path)["versions"].values() for n in ns if _glibc_version(n)]
    return max(names, key=_glibc_version, default="none")


def check_library(path, platform: str) -> list:
    """The reasons the library at path does not satisfy platform ([] if it
    does)."""
    want = platform_glibc(platform)
    if want is None:
        return []  # a plain linux_* tag promises nothing about glibc
    major, minor, arch = want
    facts = library_facts(path)
    problems = []
    if arch == "x86_64" and "X86-64" not in facts["machine"]:
        problems.append(f"machine is {facts['machine']}, the tag says {arch}")
    for lib in facts["needed"]:
        if lib not in ALLOWED_NEEDED:
            problems.append(f"NEEDED {lib}: only glibc's {', '.join(sorted(ALLOWED_NEEDED))} are allowed")
    for lib, names in facts["versions"].items():
        for name in names:
            v = _glibc_version(name)
            if v is None or lib not in ALLOWED_NEEDED:
                problems.append(f"needs {lib} version {name}, not a glibc version")
            elif v[:2] > (major, minor):
                syms = re.findall(r"\sUND\s+(\w+)@" + re.escape(name) + r"\b", _readelf("--dyn-syms", str(path)))
                problems.append(f"needs {name} of {lib} ({', '.join(syms) or 'unknown symbols'}), newer than "
                                f"glibc {major}.{minor} of {platform}: bind them to older versions in "
                                "build/glibc_2_17.h")
    return problems


def _b64(digest: bytes) -> str:
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def check_wheel(path) -> list:
    path = Path(path)
    problems = []
    m = re.fullmatch(r"([^-]+)-([^-]+)-([^-]+)-([^-]+)-([^-]+)\.whl", path.name)
    if not m:
        return [f"{path.name} is not a wheel file name (name-version-python-abi-platform.whl)"]
    name, version, pytag, abitag, plattag = m.groups()
    tag = f"{pytag}-{abitag}-{plattag}"
    di = f"{name}-{version}.dist-info"
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        if len(names) != len(set(names)):
            problems.append("duplicate entries in the zip")
        try:
            record = z.read(f"{di}/RECORD").decode()
        except KeyError:
            return problems + [f"no {di}/RECORD"]
        listed = {}
        for row in record.splitlines():
            if not row:
                continue
            fname, hashpart, size = row.rsplit(",", 2)
            listed[fname] = (hashpart, size)
        for fname in names:
            if fname.endswith("/"):
                continue
            if fname not in listed:
                problems.append(f"{fname} is not in RECORD")
                continue
            hashpart, size = listed[fname]
            if fname == f"{di}/RECORD":
                if hashpart or size:
                    problems.append("RECORD lists a hash for itself")
                continue
            data = z.read(fname)
            if hashpart != "sha256=" + _b64(hashlib.sha256(data).digest()) or size != str(len(data)):
                problems.append(f"RECORD's hash or size of {fname} is wrong")
        for fname in listed:
            if fname not in names:
                problems.append(f"RECORD lists {fname}, which is not in the wheel")
        wheel = email.parser.Parser().parsestr(z.read(f"{di}/WHEEL").decode())
        if wheel.get("Wheel-Version") != "1.0":
            problems.append("WHEEL: Wheel-Version is not 1.0")
        if wheel.get("Root-Is-Purelib") != "false":
            problems.append("WHEEL: Root-Is-Purelib must be false (the wheel holds a shared library)")
        if wheel.get_all("Tag") != [tag]:
            problems.append(f"WHEEL: Tag {wheel.get_all('Tag')} is not the file name's {tag}")
        meta = email.parser.Parser().parsestr(z.read(f"{di}/METADATA").decode())
        for key, want in (("Name", name), ("Version", version)):
            if meta.get(key) != want:
                problems.append(f"METADATA: {key} {meta.get(key)!r}, the file name says {want!r}")
        for key in ("Metadata-Version", "Requires-Python", "Requires-Dist", "License-Expression", "License-File"):
            if not meta.get(key):
                problems.append(f"METADATA has no {key}")
        for lic in meta.get_all("License-File") or []:
            if f"{di}/licenses/{lic}" not in names:
                problems.append(f"METADATA names License-File {lic}, missing from {di}/licenses/")
        libs = [n for n in names if re.fullmatch(r"[^/]+/lib[^/]*\.so(\.\d+)*", n)]
        if platform_glibc(plattag):
            if not libs:
                problems.append("a manylinux wheel without a shared library")
            with tempfile.TemporaryDirectory() as tmp:
                for lib in libs:
                    out = Path(tmp) / Path(lib).name
                    out.write_bytes(z.read(lib))
                    problems += [f"{lib}: {p}" for p in check_library(out, plattag)]
    if not problems:
        print(f"wheel_check: {path.name}: RECORD, WHEEL ({tag}) and METADATA are consistent")
    return problems


def main(argv) -> int:
    if len(argv) == 3 and argv[0] == "lib":
        problems = check_library(argv[1], argv[2])
        if not problems:
            facts = library_facts(argv[1])
            print(f"wheel_check: {argv[1]}: NEEDED {' '.join(facts['needed'])}; newest symbol version "
                  f"{newest_glibc(argv[1])}, within {argv[2]}")
    elif len(argv) == 2 and argv[0] == "wheel":
        problems = check_wheel(argv[1])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    for p in problems:
        print(f"wheel_check: FAIL: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
