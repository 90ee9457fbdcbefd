"""A PEP 517 build backend for optdp that needs only the standard library.

It builds the Go shared library (``go build -buildmode=c-shared`` of
``cmd/liboptdp`` in the repository that contains this directory) and writes a
wheel holding the ``optdp`` package (``src/optdp``), the library and its C
header. Nothing is downloaded: Go uses its module cache (or its usual proxy,
if modules are missing), and no Python build dependency is required.

Environment variables:
    GO              the go command (default: ``go`` on PATH)
    OPTDP_GO_ROOT   the repository root holding go.mod (default: the parent of
                    this package's directory)

Config settings of build_wheel (``pip wheel --config-settings KEY=VALUE``),
which build/wheel.sh passes through the command line below:
    library         a prebuilt liboptdp.so to package instead of running go
                    build (so the wheel needs no Go)
    platform        the wheel's platform tag (default: this interpreter's,
                    e.g. linux_x86_64); a manylinux tag is only written after
                    wheel_check.py has checked the library against it (its
                    NEEDED libraries and glibc symbol versions)

Command line (the distributable wheel; build/wheel.sh runs it):
    python3 optdp_build.py --library LIB --platform manylinux_2_17_x86_64 --outdir DIR
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import zipfile
from pathlib import Path

NAME = "optdp"
HERE = Path(__file__).resolve().parent.parent  # python/
SRC = HERE / "src"
PACKAGE = SRC / NAME


def _version() -> str:
    text = (PACKAGE / "__init__.py").read_text(encoding="utf-8")
    m = re.search(r'^__version__ = "([^"]+)"', text, re.M)
    if not m:
        raise RuntimeError("src/optdp/__init__.py has no __version__")
    return m.group(1)


def _libname() -> str:
    if sys.platform == "darwin":
        return "liboptdp.dylib"
    if sys.platform == "win32":
        return "optdp.dll"
    return "liboptdp.so"


def _tag() -> str:
    plat = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return f"py3-none-{plat}"


def _go_root() -> Path:
    root = Path(os.environ.get("OPTDP_GO_ROOT", HERE.parent)).resolve()
    gomod = root / "go.mod"
    if not gomod.is_file() or "module github.com/optdp/optdp" not in gomod.read_text(encoding="utf-8"):
        raise RuntimeError(
            f"optdp: {root} is not the optdp repository (no go.mod of github.com/optdp/optdp); "
            "install from a clone with `pip install ./python`, or set OPTDP_GO_ROOT"
        )
    return root


def _build_library(dest: Path) -> None:
    go = os.environ.get("GO") or shutil.which("go")
    if not go:
        raise RuntimeError(
            "optdp: building the package needs Go 1.26 and a C compiler (cgo): "
            "put `go` on PATH (https://go.dev/dl) or set GO=/path/to/go"
        )
    env = dict(os.environ, CGO_ENABLED="1")
    cmd = [go, "build", "-buildmode=c-shared", "-trimpath", "-buildvcs=false",
           "-o", str(dest), "./cmd/liboptdp"]
    print("optdp: " + " ".join(cmd), file=sys.stderr)
    proc = subprocess.run(cmd, cwd=_go_root(), env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError("optdp: go build of the shared library failed:\n" + proc.stdout + proc.stderr)


def _project() -> dict:
    """pyproject.toml's [project] table (tomllib from Python 3.11; before
    that a reading of its simple ``key = "string"`` and string-list keys,
    which is all this pyproject.toml uses)."""
    text = (HERE / "pyproject.toml").read_text(encoding="utf-8")
    try:
        import tomllib
    except ImportError:
        m = re.search(r"^\[project\]\s*$(.*?)(?=^\[|\Z)", text, re.M | re.S)
        table = {}
        for key, value in re.findall(r'^([\w-]+)\s*=\s*("[^"]*"|\[[^\]]*\])', m.group(1), re.M | re.S):
            if value.startswith("["):
                table[key] = re.findall(r'"([^"]*)"', value)
            else:
                table[key] = value[1:-1]
        return table
    return tomllib.loads(text)["project"]


def _license_file() -> Path:
    return _go_root() / "LICENSE"


def _metadata() -> str:
    project = _project()
    if project["name"] != NAME:
        raise RuntimeError(f"optdp: pyproject.toml names the project {project['name']!r}")
    readme = HERE / project.get("readme", "README.md")
    body = readme.read_text(encoding="utf-8") if readme.is_file() else ""
    lines = [
        "Metadata-Version: 2.4",
        f"Name: {NAME}",
        f"Version: {_version()}",
        f"Summary: {project['description']}",
        f"License-Expression: {project['license']}",
        f"License-File: {_license_file().name}",
        f"Requires-Python: {project['requires-python']}",
    ]
    lines += [f"Requires-Dist: {dep}" for dep in project.get("dependencies", [])]
    lines.append("Description-Content-Type: text/markdown")
    return "\n".join(lines) + "\n\n" + body


def _dist_info() -> str:
    return f"{NAME}-{_version()}.dist-info"


def _write_dist_info(files: dict, tag: str) -> None:
    di = _dist_info()
    files[f"{di}/METADATA"] = _metadata().encode()
    files[f"{di}/WHEEL"] = (
        "Wheel-Version: 1.0\nGenerator: optdp_build\nRoot-Is-Purelib: false\n"
        f"Tag: {tag}\n"
    ).encode()
    files[f"{di}/top_level.txt"] = f"{NAME}\n".encode()
    lic = _license_file()
    files[f"{di}/licenses/{lic.name}"] = lic.read_bytes()


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


# ---- PEP 517 hooks ----

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    files: dict = {}
    _write_dist_info(files, _tag())
    for name, data in files.items():
        path = Path(metadata_directory) / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return _dist_info()


def _write_wheel(wheel_directory, files: dict, tag: str) -> str:
    _write_dist_info(files, tag)
    record = f"{_dist_info()}/RECORD"
    lines = [_record_line(n, d) for n, d in files.items()] + [f"{record},,"]
    files[record] = ("\n".join(lines) + "\n").encode()
    wheel = f"{NAME}-{_version()}-{tag}.whl"
    out = Path(wheel_directory) / wheel
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = (0o755 if name.endswith(_libname()) else 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    return wheel


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    settings = config_settings or {}
    tag = _tag()
    if settings.get("platform"):
        tag = "py3-none-" + settings["platform"]
    files: dict = {}
    for path in sorted(PACKAGE.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix in (".py", ".typed"):
            files[f"{NAME}/{path.relative_to(PACKAGE).as_posix()}"] = path.read_bytes()
    with tempfile.TemporaryDirectory() as tmp:
        lib = Path(tmp) / _libname()
        if settings.get("library"):
            shutil.copyfile(settings["library"], lib)
        else:
            _build_library(lib)
        if settings.get("platform"):
            import wheel_check  # next to this file (backend-path)

            problems = wheel_check.check_library(lib, settings["platform"])
            if problems:
                raise RuntimeError(f"optdp: the library does not satisfy {settings['platform']}:\n  "
                                   + "\n  ".join(problems))
        files[f"{NAME}/{_libname()}"] = lib.read_bytes()
    files[f"{NAME}/include/optdp.h"] = (_go_root() / "cmd" / "liboptdp" / "optdp.h").read_bytes()
    return _write_wheel(wheel_directory, files, tag)


# PEP 660 (pip install -e ./python): the library is built into the source
# package (python/src/optdp/, ignored by git) and a .pth file puts
# python/src/ on sys.path. After changing the Go code, run the install again
# to rebuild it.

def get_requires_for_build_editable(config_settings=None):
    return []


def prepare_metadata_for_build_editable(metadata_directory, config_settings=None):
    return prepare_metadata_for_build_wheel(metadata_directory, config_settings)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    _build_library(PACKAGE / _libname())
    files = {f"_{NAME}_editable.pth": (str(SRC) + "\n").encode()}
    return _write_wheel(wheel_directory, files, _tag())


def build_sdist(sdist_directory, config_settings=None):
    raise RuntimeError(
        "optdp: the Python package is built from a clone of the repository "
        "(it compiles the Go library); there is no source distribution"
    )


def main(argv=None) -> int:
    import argparse

    ap = argparse.ArgumentParser(description="Write optdp's wheel around a prebuilt library.")
    ap.add_argument("--library", required=True, help="the liboptdp.so to package")
    ap.add_argument("--platform", required=True, help="platform tag, e.g. manylinux_2_17_x86_64")
    ap.add_argument("--outdir", required=True, help="directory for the .whl")
    args = ap.parse_args(argv)
    Path(args.outdir).mkdir(parents=True, exist_ok=True)
    wheel = build_wheel(args.outdir, {"library": args.library, "platform": args.platform})
    print(Path(args.outdir) / wheel)
    return 0


if __name__ == "__main__":
    sys.exit(main())
