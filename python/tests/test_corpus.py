"""The adversarial corpus at the Python and C doors (cases in
corpus_cases.py): hostile or careless inputs, each with its asserted
outcome (the exception class and a fragment of its message naming the
culprit, or a value from an independent source).

Every case runs in a worker process under a 4 GiB address-space cap
(corpus_worker.py) with a wall-clock guard: a crash or a hang fails that
one case (with the worker's stderr) instead of killing pytest, and the next
case gets a fresh worker."""

import json
import os
import select
import subprocess
import sys
import tempfile

import pytest

import corpus_cases

HERE = os.path.dirname(os.path.abspath(__file__))
# A guard against hangs only (no case is timed): generous for a loaded
# 2-core machine.
HANG_S = 120.0


class _Worker:
    def __init__(self):
        self.err = tempfile.TemporaryFile()
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
        self.proc = subprocess.Popen([sys.executable, os.path.join(HERE, "corpus_worker.py")], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.err, env=env, cwd=HERE)

    def stderr_tail(self) -> str:
        self.err.seek(0)
        s = self.err.read().decode("utf-8", "replace")
        return s if len(s) < 4000 else s[:2000] + "\n...\n" + s[-2000:]

    def run(self, cid: str):
        """(ok, detail), or (None, why) when the worker died or hung."""
        try:
            self.proc.stdin.write((cid + "\n").encode())
            self.proc.stdin.flush()
        except BrokenPipeError:
            return None, "worker died before the case: " + self.stderr_tail()
        ready, _, _ = select.select([self.proc.stdout], [], [], HANG_S)
        if not ready:
            self.proc.kill()
            self.proc.wait()
            return None, f"hang: no answer within {HANG_S:.0f} s; stderr: {self.stderr_tail()}"
        line = self.proc.stdout.readline()
        if not line:
            rc = self.proc.wait()
            return None, f"worker crashed (exit status {rc}); stderr: {self.stderr_tail()}"
        r = json.loads(line)
        return r["ok"], r["detail"]

    def close(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.err.close()


@pytest.fixture(scope="module")
def worker():
    box = {"w": _Worker()}
    yield box
    box["w"].close()


def _params():
    out = []
    for c in corpus_cases.CASES:
        marks = [pytest.mark.xfail(reason=c.xfail, strict=True)] if c.xfail else []
        if c.skip:  # a hang the wall guard would wait out: not run
            marks = [pytest.mark.skip(reason=c.skip)]
        out.append(pytest.param(c.id, id=c.id, marks=marks))
    return out


@pytest.mark.parametrize("cid", _params())
def test_corpus(worker, cid):
    ok, detail = worker["w"].run(cid)
    if ok is None:  # crashed or hung: a fresh worker for the next case
        worker["w"].close()
        worker["w"] = _Worker()
        pytest.fail(f"{cid}: {detail}")
    assert ok, f"{cid}: {detail}"


def test_corpus_size():
    py = [c for c in corpus_cases.CASES if c.door == "python"]
    abi = [c for c in corpus_cases.CASES if c.door == "c"]
    ids = [c.id for c in corpus_cases.CASES]
    assert len(ids) == len(set(ids)), "duplicate case ids"
    assert len(py) >= 250 and len(abi) >= 50, (len(py), len(abi))
