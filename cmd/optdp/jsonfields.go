package main

// JSON field documentation of the matrix-mechanism and LP commands, whose
// output types live in matrix.go, answer.go, optimize.go and optimal.go;
// printCommandHelpFlags shows a command's own fields, or these.
// TestJSONFieldsDocumented checks that every field a command prints is
// listed.

// noiseFields documents the "noise" object (linear.Noise).
var noiseFields = []string{
	"noise        the noise added to each strategy answer:",
	"  mechanism  laplace, gaussian (the paper's calibration), gaussian-analytic (Balle–Wang), discrete-laplace, ...",
	"  eps, delta the privacy parameters (delta absent for pure DP)",
	"  sensitivity  D1(A) for Laplace, D2(A) for Gaussian noise",
	"  scale      the Laplace scale b = D1/eps, or the Gaussian sigma",
	"  variance   the variance of the noise on each strategy answer",
}

// commandFields documents the JSON output of commands defined in files
// this table does not own, by command name.
var commandFields = map[string][]string{
	"matrix": append([]string{
		"workload           the workload, normalised",
		"strategy           the strategy, normalised",
		"m                  number of queries of the workload",
		"n                  number of counts (the domain size)",
		"p                  number of queries of the strategy",
		"eps                privacy parameter",
		"delta              with --delta: the (eps, delta) Gaussian noise's delta; absent otherwise",
		"sensitivity        D1(A) (Laplace) or D2(A) (Gaussian) of the strategy",
		"trace              tr(W^T W (A^T A)^-1)",
		"tse                total squared error over the workload's queries (expected, exact)",
		"rmse               root mean squared error per query",
		"tse_identity       the identity strategy's TSE under the same noise mechanism",
		"ratio_to_identity  tse / tse_identity (null when tse_identity is 0: a workload of all-zero queries)",
	}, noiseFields...),
	"answer": append([]string{
		"workload       the workload, normalised",
		"strategy       the strategy, normalised",
		"m              number of queries (and of answers)",
		"n              number of counts in --data",
		"p              number of queries of the strategy",
		"eps            privacy parameter",
		"grid           the spacing of the discrete noise's lattice",
		"seeded         true when --seed made the noise predictable (experiments only)",
		"expected_tse   the exact expected total squared error of the answers (does not depend on the data)",
		"expected_rmse  the exact expected root mean squared error per query",
		"answers        the m private answers, in the workload's query order",
		"labels         the m queries' labels, e.g. \"sex=1 & age=18..64\": the cells each answer sums (NAME=V, NAME=L..R, NAME=1,4..6 joined by \" & \"; an attribute summed over entirely is not named; \"total\" for all the counts; c*(...) for a query of weight c)",
	}, noiseFields...),
	"optimize": {
		"workload     the workload, normalised",
		"strategy     the strategy found, normalised",
		"method       the optimiser: for eps-DP, L-BFGS over p-Identity Kronecker strategies (l1-kron, l1-marginals) or, on marginal-like workloads, over weighted unions of marginals (l1-marginal-weights), the better kept and the other listed among the baselines; the L2 solver with --delta",
		"baseline     the standard strategy returned because nothing beat it; absent otherwise",
		"m, n, p      queries of the workload, counts, queries of the strategy",
		"eps          privacy parameter",
		"delta        with --delta; absent otherwise",
		"tse          total squared error (Laplace, or the analytic Gaussian calibration with --delta)",
		"rmse         root mean squared error per query",
		"tse_classic  with --delta: the TSE with the paper's classic sigma; absent otherwise",
		"objective    the optimiser's objective (D1^2 tr(W^T W (A^T A)^-1) for Laplace; the trace with --delta)",
		"trace        with --delta: tr(W^T W X^-1) with unit column norms; absent otherwise",
		"dual         with --delta: a certified lower bound on the trace; absent otherwise",
		"gap, rel_gap  with --delta: trace - dual and (trace - dual)/trace; absent otherwise",
		"baselines    the standard strategies compared against, each with:",
		"  name       the strategy, e.g. hier(n=256,b=16,root=false)",
		"  tse        its total squared error under the same noise",
		"iterations   iterations of the optimiser",
		"restarts     random restarts (--restarts)",
		"seed         the restarts' seed (--seed)",
		"time_s       wall-clock seconds",
		"out          the files written by --out; absent without --out",
	},
	"optimal": {
		"metric      the metric spec, normalised",
		"n           number of answers",
		"eps         privacy level per unit of distance",
		"gain        binary, distance, file:PATH (--gain) or loss:file:PATH (--loss)",
		"method      the method that answered: exact, generate or spanner (--method; auto chooses)",
		"method_reason  why that method: \"requested\", or what --method auto saw (structure, size) and which methods did not answer",
		"attempts    --method auto's tries in order, each an object: method, reason, certified (a certificate was returned), gap, iterations, time_s, estimate_s (the [low, high] seconds estimated before it started from the benchmarks' range; absent where none calibrates one), error (absent when it answered)",
		"reason, certified, estimate_s, error  fields of attempts (see above)",
		"pairs       ratio constraints per column in the (last) LP solved",
		"rounds      relaxations solved by --method generate; absent otherwise",
		"delta       the spanner's stretch with --method spanner; absent otherwise",
		"utility     the expected gain of the mechanism returned (certified: the optimum lies in [primal, dual])",
		"primal      the mechanism's value (a lower bound on the optimum)",
		"dual        an upper bound on the optimum from the dual solution",
		"gap         the relative gap (dual - primal) / |dual|",
		"audit_eps   the privacy level measured by auditing the mechanism (<= eps)",
		"iterations  interior-point iterations (all LPs solved)",
		"symmetry    order of the group of symmetries (of the metric, prior and gain) the LP was reduced by; 1 for none",
		"mix         the weight of the uniform mechanism mixed in to make it exactly private",
		"time_s      wall-clock seconds",
		"out         the file written by --out; absent without --out",
		"plot        the map drawn by --plot; absent without --plot",
		"plot_rows   the true locations whose reports the map shows",
	},
}
