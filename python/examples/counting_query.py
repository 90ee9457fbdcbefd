"""Tutorial: the 5-voter counting query (the QIF journal paper's seed example).

Five voters answer yes/no; the query counts the yes votes, so its answers are
0..5 on a line (adjacent databases change the count by one). At eps = ln 2:

  * the tight-constraints mechanism exists on the line and is the truncated
    1/2-geometric mechanism; its utility for the uniform prior is 4/9;
  * closing the line into a ring (0 and 5 adjacent) gives a mechanism that is
    still private for the line but has utility 8/21 < 4/9.

The same numbers from the command-line tool:

    go run ./cmd/optdp tight --metric line:n=6 --eps 0.693147
    go run ./cmd/optdp compare --metric line:n=6 --eps 0.693147

Run:  python3 examples/counting_query.py
"""

import math
from fractions import Fraction

import numpy as np

import optdp

eps = math.log(2)
line = optdp.Metric("line:n=6")

# The tight-constraints mechanism of the line: optimal for every regular prior.
t = optdp.tight(line, eps)
print(f"line:n=6 at eps = ln 2: exists {t.exists}, solver {t.solver}")
print("first row:", [str(Fraction(v).limit_denominator(1000)) for v in t.x[0]])  # 2/3 1/6 1/12 1/24 1/48 1/48
print(f"utility (uniform prior) {t.utility:.6f} = {Fraction(t.utility).limit_denominator(1000)}")  # 4/9

# It is the truncated geometric mechanism (which optdp builds at a level a
# relative 2^-30 below eps, so that the exact audit passes with a margin).
geo = optdp.truncated_geometric(6, eps)
assert np.allclose(t.x, geo, rtol=1e-8)

# The ring closure: private for the line, but not optimal for it.
ring = optdp.tight("ring:n=6", eps)
print(f"ring:n=6 mechanism: utility {ring.utility:.6f} = {Fraction(ring.utility).limit_denominator(1000)}")  # 8/21
rep = optdp.audit(ring.x, line, eps)
print(f"ring mechanism audited on the line: level {rep.eps:.6f}, private {rep.private}")

# Baselines and measures.
rr = optdp.randomized_response(6, eps)
print(f"randomized response on the line: private {optdp.audit(rr, line, eps).private}, "
      f"utility {optdp.utility(rr):.6f}")
print(f"min-entropy leakage of the geometric mechanism: {optdp.leakage(geo):.6f} bits "
      f"(capacity {optdp.min_capacity(geo):.6f})")

# The optimal mechanism for a prior that is not uniform, by linear
# programming; on a line the geometric mechanism with its best remap matches.
prior = [0.4, 0.2, 0.1, 0.1, 0.1, 0.1]
opt = optdp.optimal(line, eps, prior)
_, u_geo = optdp.optimal_remap(geo, prior)
print(f"prior {prior}: LP optimum {opt.utility:.6f} (dual bound {opt.dual:.6f}), "
      f"geometric + remap {u_geo:.6f}")

# Releasing a count: the sampler draws exactly the audited distribution (it
# proves it eps-private on the line first); crypto/rand for a real release,
# a seed for experiments.
sampler = optdp.Sampler(t.x, line, eps)
print("a real release for 3 yes votes:", sampler.sample(3, rng="crypto"))
print("ten reproducible draws (seed 1):", sampler.sample(3, 10, seed=1))
