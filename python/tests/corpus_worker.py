"""The adversarial corpus's worker process (run by test_corpus.py, never
collected by pytest): it caps its address space, imports the cases, and
runs the ones named on stdin, one per line, answering one JSON line each:
{"id", "ok", "detail"}. A case that crashes the process (a Go fatal error,
SIGABRT, SIGSEGV) or hangs fails that case only: the parent sees EOF or a
time-out, records the case as failed with the tail of stderr, and starts a
fresh worker for the next case."""

import json
import os
import resource
import sys

# 4 GiB of address space: an allocation the size checks should have refused
# fails here (a crash, which the parent reports) instead of swapping the
# machine.
_CAP = int(os.environ.get("OPTDP_CORPUS_AS", str(4 << 30)))
resource.setrlimit(resource.RLIMIT_AS, (_CAP, _CAP))

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import corpus_cases  # noqa: E402


def main() -> None:
    cases = {c.id: c for c in corpus_cases.CASES}
    out = sys.stdout
    for line in sys.stdin:
        cid = line.strip()
        if not cid:
            continue
        ok, detail = corpus_cases.run_case(cases[cid])
        out.write(json.dumps({"id": cid, "ok": ok, "detail": detail}) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
