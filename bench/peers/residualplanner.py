#!/usr/bin/python3
"""ResidualPlanner beside optdp's residual planner, on the same marginal workloads.

ResidualPlanner (Xiao, He, Zhang, Kifer, NeurIPS 2023; arXiv 2305.08175) is read from a
checkout of its public repository given by --rp (the folder holding residual_planner/);
nothing of it is vendored. Its selection classes import gurobipy and cvxpy at the top
although the sum-of-variances path (a closed form) uses neither: when they are missing,
empty stand-ins are put in sys.modules so that the import succeeds; a call into them
fails loudly. optdp is called through its Python package (PYTHONPATH=python/src,
OPTDP_LIBRARY=the built liboptdp.so): linear.plan_marginals, which always plans in the
residual basis, and linear.answer_marginals for the reconstruction. Measurement only.

    /usr/bin/python3 bench/peers/residualplanner.py --rp /tmp/rp select --n 10 --d 100 --kmin 3 --k 3 --optdp-cli ./optdp
    /usr/bin/python3 bench/peers/residualplanner.py --rp /tmp/rp select --n 10 --d 20 --kmin 0 --k 3
    /usr/bin/python3 bench/peers/residualplanner.py --rp /tmp/rp dataset --name Adult --workload 3D
    /usr/bin/python3 bench/peers/residualplanner.py --rp /tmp/rp reconstruct --n 10 --d 5

select: all kmin..k-way marginals of d attributes of n values (ResidualPlanner's Synth-n^d;
its own experiments take kmin = 0); dataset: its CPS, Adult or Loans domains and workloads
(k-way, "3D" = 0..3-way, "Small" = every marginal of at most 5000 cells), built by its own
workload.py; reconstruct: its class_resplan pipeline (needs pandas) on 10,000 records of
zeros, selection + measurement + reconstruction (CPU seconds of each), against the CPU
seconds of linear.answer_marginals (planning, counting, exact discrete Gaussian noise per
residual entry, reconstruction; ResidualPlanner draws floating-point normals with numpy).

Prints one JSON line per run: the sum of variances in units of sigma^2 (the privacy cost
sum_T pcost_T/x_T = 1, L2 sensitivity 1) from each side, for select the exact closed form
(the sum of the residual optima, (sum_T sqrt(v_T p_T))^2, in 60-digit decimal arithmetic)
and each side's relative error to it, and the times: ResidualPlanner's process CPU and
wall seconds for building the workload and selecting (its experiments time the same span),
optdp's planning time as the library reports it (time_s) and the CPU and wall time of the
call (which add the JSON of the marginals through the C ABI); with --optdp-cli, the CPU and
wall seconds of the optdp optimize process.
"""
import argparse
import itertools
import json
import math
import os
import sys
import time
import types
from decimal import Decimal, getcontext

import numpy as np


def stub(name):
    """An empty stand-in for an optional module that is imported but not used."""
    if name in sys.modules:
        return
    try:
        __import__(name)
    except ImportError:
        m = types.ModuleType(name)

        def missing(*_a, **_k):
            raise RuntimeError(f"{name} is not installed: this path of ResidualPlanner needs it")

        m.__getattr__ = lambda attr: missing
        sys.modules[name] = m


def closed_form(n, d, kmin, k):
    """The optimal sum of variances (units sigma^2) of all kmin..k-way marginals of d
    attributes of n values: (sum_j C(d,j) sqrt(v_j p_j))^2 with, for a residual of j
    attributes, p_j = ((n-1)/n)^j its privacy cost per unit of inverse variance and
    v_j = sum_{s} C(d-j, s-j) (n-1)^j n^(j-s) its weight in the total variance."""
    getcontext().prec = 60
    N = Decimal(n)
    tot = Decimal(0)
    for j in range(k + 1):
        v = sum(Decimal(math.comb(d - j, s - j)) * Decimal(n - 1) ** j * N ** (j - s) for s in range(max(j, kmin), k + 1))
        p = (Decimal(n - 1) / N) ** j
        tot += Decimal(math.comb(d, j)) * (v * p).sqrt()
    return tot * tot


def rp_select(build):
    """Builds ResidualPlanner's sum-of-variances system with build() and selects; returns
    the objective, its marginals and the CPU and wall seconds of both steps."""
    c0, w0 = time.process_time(), time.time()
    system, queries = build()
    obj = system.get_noise_level()
    cpu, wall = time.process_time() - c0, time.time() - w0
    return float(obj), list(system.mech_dict.keys()), float(queries), cpu, wall


def optdp_plan(dims, marginals):
    from optdp import linear
    c0, w0 = time.process_time(), time.time()
    p = linear.plan_marginals(dims, [tuple(m) for m in marginals], 1.0, 1e-6)
    return p, time.process_time() - c0, time.time() - w0


def optdp_cli(binary, n, d, kmin, k):
    """Runs optdp optimize on the kmin..k-way marginals (a spec, or a workload file of
    {"marginals": j} entries written to a temporary folder); returns its JSON and the CPU
    seconds (user + system) and wall seconds of the process."""
    import resource
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        spec = f"marginals:dims={n}^{d},k={k}"
        if kmin != k:
            path = os.path.join(tmp, "w.json")
            with open(path, "w") as f:
                json.dump({"attributes": [{"name": f"a{i}", "size": n} for i in range(d)],
                           "workload": [{"marginals": j} for j in range(kmin, k + 1)]}, f)
            spec = "file:" + path
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        w0 = time.time()
        res = subprocess.run([binary, "optimize", "--workload", spec, "--eps", "1", "--delta", "1e-6", "--loss", "sum", "--json"],
                             check=True, capture_output=True, text=True)
        wall = time.time() - w0
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return json.loads(res.stdout), cpu, wall


def rel(a, b):
    return float((Decimal(a) - b) / b)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rp", required=True, help="checkout of github.com/dkifer/ResidualPlanner")
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("select")
    s.add_argument("--n", type=int, default=10)
    s.add_argument("--d", type=int, default=100)
    s.add_argument("--kmin", type=int, default=0)
    s.add_argument("--k", type=int, default=3)
    s.add_argument("--optdp-cli", help="also time this optdp binary's optimize (domains beyond 2^40 cells, which it plans in the residual basis)")
    ds = sub.add_parser("dataset")
    ds.add_argument("--name", choices=["CPS", "Adult", "Loans"], default="Adult")
    ds.add_argument("--workload", default="3D", help="1..5 (k-way), 3D or Small")
    r = sub.add_parser("reconstruct")
    r.add_argument("--n", type=int, default=10)
    r.add_argument("--d", type=int, default=5)
    r.add_argument("--records", type=int, default=10000)
    a = ap.parse_args()
    out = {"peer": "ResidualPlanner", "cmd": a.cmd}

    if a.cmd in ("select", "dataset"):
        sys.path.insert(0, os.path.join(a.rp, "residual_planner", "selection_only"))
        stub("gurobipy")
        stub("cvxpy")
        import workload as rpw
        from class_sumvar import RPSumVar

        if a.cmd == "select":
            dims = [a.n] * a.d

            def build():
                system = RPSumVar(dims)
                q = 0.0
                for j in range(a.kmin, a.k + 1):
                    for m in itertools.combinations(range(a.d), j):
                        system.input_mech(m)
                        q += float(a.n) ** j
                return system, q
            out["workload"] = f"{a.kmin}..{a.k}-way marginals of {a.d} attributes of {a.n} values"
        else:
            dims = rpw.dataset_domains(a.name)
            wl = int(a.workload) if a.workload.isdigit() else a.workload

            def build():
                return rpw.workload_large_dataset(a.name, wl, choice="sumvar")
            out["workload"] = f"{a.name} {a.workload}"
        obj, ms, queries, cpu, wall = rp_select(build)
        p, ocpu, owall = optdp_plan(dims, ms)
        out.update({"marginals": len(ms), "queries": queries, "rp_sum_var": obj, "rp_cpu_s": round(cpu, 3),
                    "rp_wall_s": round(wall, 3), "optdp_sum_var": p.objective, "optdp_dual": p.dual,
                    "optdp_time_s": round(p.time_s, 3), "optdp_cpu_s": round(ocpu, 3), "optdp_wall_s": round(owall, 3),
                    "rel_diff": (p.objective - obj) / obj})
        if a.cmd == "select":
            cf = closed_form(a.n, a.d, a.kmin, a.k)
            out.update({"closed_form": float(cf), "rp_rel_err": rel(obj, cf), "optdp_rel_err": rel(p.objective, cf),
                        "optdp_dual_rel_err": rel(p.dual, cf)})
            if a.optdp_cli:
                v, cpu, wall = optdp_cli(a.optdp_cli, a.n, a.d, a.kmin, a.k)
                out.update({"cli_method": v["method"], "cli_sum_var": v["objective"], "cli_time_s": round(v["time_s"], 3),
                            "cli_cpu_s": round(cpu, 3), "cli_wall_s": round(wall, 3)})
    else:
        sys.path.insert(0, os.path.join(a.rp, "residual_planner"))
        stub("cvxpy")
        import pandas as pd
        from class_resplan import ResidualPlanner
        from optdp import linear

        dims = [a.n] * a.d
        cols = [str(i) for i in range(a.d)]
        ms = [m for j in range(4) for m in itertools.combinations(range(a.d), j)]
        clock = time.process_time  # CPU seconds: the fairer figure on a shared machine
        w0 = clock()
        system = ResidualPlanner(dims)
        system.input_data(pd.DataFrame(np.zeros([a.records, a.d]), columns=cols), cols)
        for m in ms:
            system.input_mech(m, 1)
        devnull = open(os.devnull, "w")
        stdout, sys.stdout = sys.stdout, devnull  # its progress lines
        try:
            system.selection(choice="sumvar")
            w1 = clock()
            system.measurement()
            w2 = clock()
            system.reconstruction()
            w3 = clock()
        finally:
            sys.stdout = stdout
        recs = np.zeros((a.records, a.d), dtype=np.int32)
        o0 = clock()
        rel_ = linear.answer_marginals(dims, ms, recs, 1.0, 1e-6, seed=1)
        o1 = clock()
        out.update({"workload": f"0..3-way marginals of {a.d} attributes of {a.n} values, {a.records} records",
                    "marginals": len(ms), "rp_select_cpu_s": round(w1 - w0, 3), "rp_measure_cpu_s": round(w2 - w1, 3),
                    "rp_reconstruct_cpu_s": round(w3 - w2, 3), "optdp_answer_cpu_s": round(o1 - o0, 3),
                    "optdp_marginals": len(rel_.marginals)})
    print(json.dumps(out))


if __name__ == "__main__":
    main()
