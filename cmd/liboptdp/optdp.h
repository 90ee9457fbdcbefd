/*
 * optdp.h - the C ABI of optdp (https://github.com/optdp/optdp).
 *
 * Build the shared library from the repository root with
 *
 *     go build -buildmode=c-shared -o liboptdp.so ./cmd/liboptdp
 *
 * and link with -loptdp (the generated liboptdp.h is not needed: this header
 * is the documented interface, and the build fails if the two disagree).
 *
 * Conventions (every function follows them):
 *
 *  - Every function except optdp_free, optdp_release and optdp_cancel
 *    returns an int status: OPTDP_OK (0) or one of the OPTDP_ERR_* codes below. On an error
 *    *err (when err is not NULL) receives a message, allocated with malloc,
 *    that the caller frees with optdp_free; on success *err is set to NULL.
 *    Out parameters are written only on success (except the caller's array
 *    of optdp_sample, whose contents are unspecified after an error, and
 *    optdp_optimal's with its option "partial").
 *  - Input arrays are read during the call only and never retained; they are
 *    never written. Matrices are dense, row-major, of doubles: entry (i, j) of
 *    an r x c matrix is data[i*c + j].
 *  - Outputs that the library allocates (an optdp_matrix's data, a JSON
 *    document, a message) are allocated with malloc and belong to the caller,
 *    who frees them with optdp_free. The library keeps no pointer to them.
 *    Integer outputs of a size the caller knows (a remap, samples) go into
 *    arrays the caller allocates.
 *  - Results with several fields are returned as a JSON document (UTF-8,
 *    NUL-terminated). Non-finite numbers are written as the tokens Infinity,
 *    -Infinity and NaN (accepted by Python's json module and JavaScript's
 *    JSON5 readers; not by strict JSON parsers). Options are passed as a JSON
 *    object (NULL or "" for the defaults); unknown keys are errors.
 *  - Objects that outlive a call (metrics, samplers, mechanisms, seeded
 *    generators) are held by the library and named by an optdp_handle, a
 *    plain integer; the caller releases each with optdp_release. Handle 0 is
 *    never a valid object.
 *  - Every function is safe to call from several threads at once, including
 *    with the same handles (a seeded generator serialises its draws).
 *
 * The mathematics of each function is in the Go documentation of the
 * function it wraps (package mech and mech/linear) and in docs/MATH.md.
 */
#ifndef OPTDP_H
#define OPTDP_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* OPTDP_ABI_VERSION changes when a declaration of this header changes
 * incompatibly; optdp_version reports the library's. */
#define OPTDP_ABI_VERSION 2

/* Status codes. */
enum {
	OPTDP_OK = 0,
	/* The input is invalid (shape, NaN, eps <= 0, an unknown option, ...). */
	OPTDP_ERR_BAD_INPUT = 1,
	/* The problem exceeds a size or memory limit; nothing was allocated. */
	OPTDP_ERR_TOO_LARGE = 2,
	/* An iterative solver did not reach its tolerance. */
	OPTDP_ERR_NOT_CONVERGED = 3,
	/* A matrix-mechanism strategy cannot answer the workload. */
	OPTDP_ERR_UNSUPPORTED = 4,
	/* The library refused or failed for another reason the message states
	 * (e.g. a mechanism that fails its audit, a threshold search that finds
	 * no crossing). */
	OPTDP_ERR_FAILED = 5,
	/* A bug in optdp (a recovered panic); please report the message. */
	OPTDP_ERR_INTERNAL = 6,
	/* The call was cancelled (optdp_cancel) or ran out of its time limit. */
	OPTDP_ERR_CANCELLED = 7
};

/* The randomness of optdp_sample and optdp_linear_answer: crypto/rand, the
 * source for real releases. Any other value is a handle from
 * optdp_rng_seeded, for reproducible experiments only. */
#define OPTDP_RNG_CRYPTO 0

/* What optdp_linear_info and optdp_linear_dense describe. */
#define OPTDP_WORKLOAD 0
#define OPTDP_STRATEGY 1

/* A handle on an object held by the library. */
typedef uint64_t optdp_handle;

/* Const views used in the declarations below (plain const types). */
typedef const char optdp_cchar;
typedef const double optdp_cdouble;
typedef const int64_t optdp_cint64;
typedef const int32_t optdp_cint32;

/* A dense row-major matrix returned by the library: data holds rows*cols
 * doubles allocated with malloc; free data with optdp_free. */
typedef struct optdp_matrix {
	double *data;
	int64_t rows;
	int64_t cols;
} optdp_matrix;

/* ---- memory, version, handles ---- */

/* optdp_free frees memory the library allocated (messages, JSON, matrix
 * data). NULL is ignored. */
void optdp_free(void *p);

/* optdp_release releases the object named by a handle. Releasing 0 or a
 * handle already released does nothing. */
void optdp_release(optdp_handle h);

/* optdp_version writes a JSON object {"version", "abi", "go", "backend",
 * "threads"}: the module version, OPTDP_ABI_VERSION of the library, the Go
 * version, the linear-algebra backend and its threads. */
int optdp_version(char **json, char **err);

/* optdp_schema writes the keys of the JSON document of every function that
 * returns one: an object mapping each function's name (optdp_linear_info
 * as "optdp_linear_info/workload" and "optdp_linear_info/strategy") to the
 * object of its document's keys, where a key whose value is an object (or a
 * list of objects) maps to that object's keys, and any other key to null.
 * Every key it lists is present in every document of that function. */
int optdp_schema(char **json, char **err);

/* ---- metrics (answer sets with a distance) ---- */

/* The metric constructors take options (NULL for none): {"cancel",
 * "timeout_s"} as the long computations below. Building a metric from a
 * file or a matrix checks the triangle inequality in O(n^3) (a minute at
 * n = 4096); a cancel or timeout stops it within some 10 ms of work
 * (OPTDP_ERR_CANCELLED). */

/* optdp_metric_parse builds a metric from a spec of the command-line tool:
 * line:n=N, ring:n=N, clique:n=N, sum:u=U,v=V, kcount:u=U,k=K,
 * hamming:u=U,v=V, grid:w=W,h=H[,step=S][,norm=euclid|manhattan|chebyshev],
 * graph:file=PATH, dist:file=PATH[,repair=TOL], points:file=PATH,
 * latlon:file=PATH, roads:file=PATH. */
int optdp_metric_parse(optdp_cchar *spec, optdp_cchar *options, optdp_handle *metric, char **err);

/* optdp_metric_from_distances builds a metric from an n x n distance matrix
 * d: symmetric, 0 exactly on the diagonal, > 0 off it (+Inf: unreachable),
 * satisfying the triangle inequality (n <= 4096). */
int optdp_metric_from_distances(optdp_cdouble *d, int64_t n, optdp_cchar *options, optdp_handle *metric,
	char **err);

/* optdp_metric_from_edges builds the shortest-path metric of the undirected
 * graph on the vertices 0..n-1 with the m edges (edges[2k], edges[2k+1]). */
int optdp_metric_from_edges(int64_t n, optdp_cint64 *edges, int64_t m, optdp_cchar *options,
	optdp_handle *metric, char **err);

/* optdp_metric_info writes {"n": number of answers, "spec": the metric's
 * spec}. */
int optdp_metric_info(optdp_handle metric, char **json, char **err);

/* optdp_metric_distances returns the n x n matrix of distances (refused
 * above 2^27 entries). */
int optdp_metric_distances(optdp_handle metric, optdp_matrix *d, char **err);

/* ---- the DP audit ---- */

/* optdp_audit measures the privacy level of the noise matrix x (rows: true
 * answers, columns: outputs; rows = the metric's n) against the metric and
 * decides exactly, in real arithmetic for the given float64 entries and with
 * no tolerance, whether x[i][o] <= exp(eps d(i,h)) x[h][o] for every pair
 * and output (mech.Audit). It writes {"eps": the measured level, "private":
 * the exact verdict, "worst": [i, h, o], "pairs": pairs checked,
 * "violation": null, or the violated constraint of largest level {"i",
 * "h", "o", "log_ratio", "dist"}}. */
int optdp_audit(optdp_cdouble *x, int64_t rows, int64_t cols, optdp_handle metric, double eps, char **json, char **err);

/* ---- measures (x row-stochastic, prior a distribution on the rows) ---- */

/* optdp_utility is sum_i prior_i (x R)[i][i] with the remap R (cols x rows,
 * row-stochastic); remap NULL is the identity (x square). */
int optdp_utility(optdp_cdouble *x, int64_t rows, int64_t cols, optdp_cdouble *prior, int64_t n,
	optdp_cdouble *remap, int64_t remap_rows, int64_t remap_cols, double *utility, char **err);

/* optdp_optimal_remap writes into remap (cols entries, caller-allocated) the
 * best guess after each output and into *utility the utility it reaches,
 * sum_o max_i prior_i x[i][o]. */
int optdp_optimal_remap(optdp_cdouble *x, int64_t rows, int64_t cols, optdp_cdouble *prior, int64_t n,
	int64_t *remap, double *utility, char **err);

/* Min-entropies and leakages, in bits. */
int optdp_min_entropy(optdp_cdouble *prior, int64_t n, double *bits, char **err);
int optdp_cond_min_entropy(optdp_cdouble *x, int64_t rows, int64_t cols, optdp_cdouble *prior, int64_t n, double *bits, char **err);
int optdp_leakage(optdp_cdouble *x, int64_t rows, int64_t cols, optdp_cdouble *prior, int64_t n, double *bits, char **err);
int optdp_min_capacity(optdp_cdouble *x, int64_t rows, int64_t cols, double *bits, char **err);

/* optdp_measure computes a measure of quantitative information flow by
 * name, from a channel c (cr x cc, row-stochastic), a prior (n entries) and
 * a gain or loss matrix g (gr x gc: rows secrets, columns guesses); the
 * arguments a measure does not take may be NULL. Names (bits unless said):
 *   prior only:  min_entropy, shannon_entropy, guessing_entropy (guesses);
 *   prior, g:    g_vulnerability, bayes_risk (g a loss);
 *   c, prior:    cond_min_entropy, cond_shannon_entropy,
 *                cond_guessing_entropy, min_entropy_leakage, shannon_leakage;
 *   c:           min_capacity;
 *   c, prior, g: post_g_vulnerability, add_g_leakage, mul_g_leakage,
 *                post_bayes_risk (g a loss).
 * (Alvim et al., The Science of Quantitative Information Flow; the Go
 * documentation of each function in package mech.) */
int optdp_measure(optdp_cchar *name, optdp_cdouble *c, int64_t cr, int64_t cc, optdp_cdouble *prior, int64_t n,
	optdp_cdouble *g, int64_t gr, int64_t gc, double *value, char **err);

/* optdp_compose composes channels a (n x m) and b: "cascade" a then b
 * (b is m x k; (a b)[x][z] = sum_y a[x][y] b[y][z]) or "parallel" on a
 * shared secret (b is n x k; column y*k + z holds a[x][y] b[x][z]). */
int optdp_compose(optdp_cchar *how, optdp_cdouble *a, int64_t ar, int64_t ac, optdp_cdouble *b, int64_t br, int64_t bc,
	optdp_matrix *out, char **err);

/* optdp_shannon_capacity brackets the Shannon capacity max_pi I(pi; C) of
 * the channel by Blahut-Arimoto: {"lower", "upper", "prior", "iterations"}.
 * options: {"tol", "max_iter", "budget", "cancel", "timeout_s"}. */
int optdp_shannon_capacity(optdp_cdouble *c, int64_t cr, int64_t cc, optdp_cchar *options, char **json, char **err);

/* optdp_mul_g_capacity brackets the multiplicative g-capacity
 * max_pi log2(V_g[pi, C] / V_g(pi)) for the gain g (non-negative):
 * {"lower", "upper", "prior", "exact", "lps"}. options: {"max_strategies",
 * "budget", "cancel", "timeout_s"}. */
int optdp_mul_g_capacity(optdp_cdouble *c, int64_t cr, int64_t cc, optdp_cdouble *g, int64_t gr, int64_t gc,
	optdp_cchar *options, char **json, char **err);

/* Leakage bounds for databases of u individuals with v values, in bits:
 * Bnd(u, v, eps), the bound for mechanisms with at most r outputs, and the
 * bound about one individual. */
int optdp_bnd(int64_t u, int64_t v, double eps, double *bits, char **err);
int optdp_range_bound(int64_t u, int64_t v, int64_t r, double eps, double *bits, char **err);
int optdp_individual_bound(int64_t v, double eps, double *bits, char **err);

/* ---- baselines (each audited before it is returned) ---- */

/* Truncated geometric mechanism on 0..n-1 for sensitivity sens. */
int optdp_truncated_geometric(int64_t n, double eps, int64_t sens, optdp_matrix *x, char **err);
/* Randomized response on n answers. */
int optdp_randomized_response(int64_t n, double eps, optdp_matrix *x, char **err);
/* Exponential-style mechanism exp(-eps d/2), row-normalised, on a metric. */
int optdp_exponential(optdp_handle metric, double eps, optdp_matrix *x, char **err);
/* Truncated geometric with budget eps/k on each of k counts over u records. */
int optdp_geometric_per_count(int64_t u, int64_t k, double eps, optdp_matrix *x, char **err);
/* Planar Laplace on a w x h grid of step km (eps per km), and its per-row
 * normalised discrete variant (2 eps-private only; for comparisons). */
int optdp_planar_laplace(int64_t w, int64_t h, double step, double eps, optdp_matrix *x, char **err);
int optdp_planar_geometric(int64_t w, int64_t h, double step, double eps, optdp_matrix *x, char **err);
/* Planar Laplace on a point set (a points: metric in km, or latlon: drawn
 * in the azimuthal equidistant plane at eps/rho, rho the plane's largest
 * stretch of a distance), reported as the nearest point: the noise's mass
 * on each Voronoi cell (at most 2000 points; audited exactly). options
 * (NULL for none): {"cancel", "timeout_s"}. */
int optdp_planar_laplace_points(optdp_handle metric, double eps, const char *options, optdp_matrix *x, char **err);
/* The mechanism on v^u databases reaching Bnd(u, v, eps). */
int optdp_bnd_mechanism(int64_t u, int64_t v, double eps, optdp_matrix *x, char **err);

/* ---- sampling ---- */

/* optdp_rng_seeded returns a deterministic generator seeded with seed, for
 * reproducible experiments only (its output is predictable). */
int optdp_rng_seeded(uint64_t seed, optdp_handle *rng, char **err);

/* optdp_sampler_new prepares to sample exactly from the row-stochastic x
 * released under the metric at eps: the draws have exactly the
 * probabilities x[i][o] / sum_o x[i][o] (integer weights, no floating-point
 * uniform), and this realised distribution is proven eps*d-private by the
 * exact audit before the sampler is returned (mech.NewSampler). options:
 * {"repair": mix rows with the uniform row when rounding puts a ratio above
 * e^(eps d), "unaudited": no metric (pass 0) and no proof, for experiments,
 * "budget"}. *info receives {"mix": the weight mixed in, "audit": as
 * optdp_audit}. */
int optdp_sampler_new(optdp_cdouble *x, int64_t rows, int64_t cols, optdp_handle metric, double eps,
	optdp_cchar *options, optdp_handle *sampler, char **info, char **err);

/* optdp_sample draws count reported answers for true_answer into out
 * (count entries, caller-allocated) with randomness from rng
 * (OPTDP_RNG_CRYPTO or a seeded handle). sampler is a handle from
 * optdp_sampler_new (exact) or the mechanism handle of optdp_tight, which
 * samples at any n without a matrix (tight.FreeMechanism.Sample): exactly
 * for paths (lines, one-row grids) and separable metrics (Manhattan grids,
 * Hamming spaces), with any rng; from float64 probabilities for other
 * metrics, which therefore take only a seeded rng (experiments) and fail
 * with OPTDP_ERR_BAD_INPUT under OPTDP_RNG_CRYPTO: release those through
 * optdp_sampler_new on the mechanism's matrix. */
int optdp_sample(optdp_handle sampler, int64_t true_answer, int64_t count, optdp_handle rng, int64_t *out, char **err);

/* ---- cancellation ----
 *
 * The long computations (optdp_tight, optdp_threshold, optdp_regular,
 * optdp_optimal, optdp_linear_optimize, optdp_shannon_capacity,
 * optdp_mul_g_capacity) accept two options that bound them:
 * "cancel", a token from optdp_cancel_new, and "timeout_s", a time limit in
 * seconds. A call that is cancelled, or runs out of time, returns
 * OPTDP_ERR_CANCELLED soon after (at the solver's next check). Their
 * "budget" is a memory budget in bytes (0: the default 4 GiB); a negative
 * budget, and a negative tol, max_iter, workers, max_mechanism_n, restarts,
 * p or steps, is OPTDP_ERR_BAD_INPUT (never read as a default or as "no
 * limit"). While such calls (and optdp_sampler_new) run, the library's Go
 * heap has a soft limit of the heap it held when the first started plus
 * their budgets (none while one is unlimited; the limit before once none
 * runs; GOMEMLIMIT, when set, rules instead): without it the collector
 * lets the heap grow to about twice the live data, so a call within its
 * budget could take twice that of the host process's memory. A failed
 * allocation of an output is OPTDP_ERR_TOO_LARGE, never an abort. */

/* optdp_cancel_new returns a cancellation token (release it with
 * optdp_release); one token may serve several calls. */
int optdp_cancel_new(optdp_handle *token, char **err);

/* optdp_cancel cancels every call running, or later started, with the
 * token. It may be called from any thread; an unknown handle is ignored. */
void optdp_cancel(optdp_handle token);

/* optdp_progress writes the latest progress report of the calls running
 * with the token: {"seq": reports so far (0: none yet), "stage", "iter",
 * "max_iter", "frac", "gap", "value", "message"} (NaN when unknown; the
 * fields of run.Progress). Poll it from another thread. */
int optdp_progress(optdp_handle token, char **json, char **err);

/* ---- the tight-constraints mechanism, thresholds, regular priors
 * (package mech/tight) and the LP-optimal mechanism (mech/optimal) ---- */

/* optdp_tight builds the tight-constraints mechanism X[i][k] =
 * exp(-eps d(i,k)) z_k with Phi z = 1 of the metric at eps. options:
 * {"solver": "auto" | "dense" | "closed-form" | "kron" | "toeplitz" |
 * "banded", "max_mechanism_n", "no_mechanism", "budget" (bytes)}. The JSON
 * result has "n", "eps", "exists" ("yes", "no" or "borderline"),
 * "constant_z", "min_z", "z_err", "unique", "solver", "backend", "rcond",
 * "certificate", "utility" (uniform prior), "mix" (the weight of the
 * uniform row mixed into X so that its float64 entries pass the exact
 * audit, 0 if none), "audit" (as optdp_audit),
 * "note", "iterations", "residual". *x receives the n x n mechanism and *z
 * the 1 x n diagonal z when they were built ({NULL, 0, 0} otherwise: X is
 * not built above max_mechanism_n, 4096 by default, and z not above 2^24
 * answers). *mechanism receives a handle on the matrix-free mechanism
 * (usable with optdp_sample, at any n) when it exists, else 0. */
int optdp_tight(optdp_handle metric, double eps, optdp_cchar *options, char **json, optdp_matrix *x,
	optdp_matrix *z, optdp_handle *mechanism, char **err);

/* optdp_mechanism_row writes row i of the mechanism of a handle from
 * optdp_tight into out (n entries, caller-allocated), in O(n). */
int optdp_mechanism_row(optdp_handle mechanism, int64_t i, double *out, char **err);

/* optdp_mechanism_utility writes the mechanism's utility sum_i prior_i z_i
 * (prior of n entries; NULL for the uniform prior, mean z). */
int optdp_mechanism_utility(optdp_handle mechanism, optdp_cdouble *prior, int64_t n, double *utility, char **err);

/* optdp_threshold finds the smallest eps at which the tight-constraints
 * mechanism exists. options: {"lo", "hi", "tol", "steps", "budget",
 * "structured"}. Result: {"eps_star", "lo", "hi", "status", "bracketed",
 * "reason", "evaluations", "crossings": [{"lo", "hi", "up"}], "scan_eps",
 * "scan_min_z", "min_z", "exists", "solver"}. */
int optdp_threshold(optdp_handle metric, optdp_cchar *options, char **json, char **err);

/* optdp_regular decides whether the prior (n entries) is regular for the
 * metric at eps: y Phi = prior with y >= 0. options as optdp_tight (solver
 * and budget). Result: {"n", "eps", "regular" ("yes", "no", "borderline"),
 * "y", "min_y", "y_err", "unique", "sum_y", "utility_bound",
 * "leakage_bound_bits", "solver", "rcond", "certificate"}. */
int optdp_regular(optdp_handle metric, double eps, optdp_cdouble *prior, int64_t n, optdp_cchar *options,
	char **json, char **err);

/* optdp_prior_bounds returns the 2 x n matrix of the bounds every regular
 * prior satisfies: row 0 lo_i = 1/sum_j e^(eps d(i,j)), row 1
 * hi_i = 1/sum_j e^(-eps d(i,j)). */
int optdp_prior_bounds(optdp_handle metric, double eps, optdp_matrix *bounds, char **err);

/* optdp_corner writes the i-th corner prior Phi[i] / sum_k Phi[i][k] into
 * out (n entries, caller-allocated): the regular priors are the convex hull
 * of the corners. */
int optdp_corner(optdp_handle metric, double eps, int64_t i, double *out, char **err);

/* optdp_regular_product decides the regularity of the product prior p^(x)u
 * on the Hamming space of v^u databases (p has v entries) with one v x v
 * solve, at any u: {"u", "v", "eps", "regular", "y1", "y1_err", "min_y1",
 * "min_y", "log2_abs_min_y", "sum_y", "log2_sum_y", "utility_bound",
 * "leakage_bound_bits"}. */
int optdp_regular_product(int64_t u, double eps, optdp_cdouble *p, int64_t v, char **json, char **err);

/* optdp_optimal computes an eps*d-private mechanism of maximal expected gain
 * for the prior (n entries) by linear programming, certified by an exact
 * audit and a dual bound. gain: an n x n gain matrix g(i,k) (or a loss l,
 * with options' "matrix_kind": "loss"), or NULL for options' "gain":
 * "binary" (default) or "distance" (-d(i,k)). options: {"gain",
 * "matrix_kind", "method": "auto" (default: chosen from the metric's
 * structure and size, continuing with another method when one stalls or
 * does not fit, and with a wider spanner, 1.5 then 2, when its LP does not
 * fit and "delta" is not given) | "exact" | "generate" (constraint generation) | "spanner"
 * (a Delta-spanner's pairs: private, not optimal), "delta" (the spanner's
 * stretch, default 1.2), "tol", "max_iter", "workers", "budget",
 * "partial"}. *x receives the mechanism; the JSON result has "utility",
 * "primal", "dual", "gap", "audit_eps", "iterations", "method",
 * "method_reason", "attempts" (auto's tries), "pairs", "rounds", "delta",
 * "mix", "symmetry", "time_s". OPTDP_ERR_NOT_CONVERGED when the gap did not
 * reach tol. With "partial": true, an error that comes with a certified
 * answer (the gap above tol; or under auto, a later method refused,
 * OPTDP_ERR_TOO_LARGE, or the call cancelled after an earlier method
 * answered) still writes *json and *x, which the caller then frees as
 * on success: the one exception to "written only on success". Without a
 * certified answer, or without "partial", they are not written. */
int optdp_optimal(optdp_handle metric, double eps, optdp_cdouble *prior, int64_t n, optdp_cdouble *gain,
	int64_t gain_rows, int64_t gain_cols, optdp_cchar *options, char **json, optdp_matrix *x, char **err);

/* ---- the matrix mechanism (package mech/linear) ----
 *
 * Workloads and strategies are passed as JSON operator trees that mirror the
 * Go constructors, e.g.
 *   {"op": "allrange", "n": 256}
 *   {"op": "kron", "factors": [{"op": "prefix", "n": 16}, {"op": "identity", "n": 4}]}
 *   {"op": "hierarchical", "n": 256, "b": 16, "root": false}
 * Workload ops: identity, total, allrange, prefix (n); width_range (n, k);
 * random_range (n, m, seed); ranges (n, intervals: [[l, r], ...]);
 * marginals (dims, k); scale (workload, c); kron (factors); union (parts);
 * matrix (rows, cols, data: row-major); file (path: a JSON workload file
 * of the command-line tool, linear.ParseWorkloadJSON, whose matrix files
 * are CSV relative to it).
 * Strategy ops: identity (n); hierarchical (n, b, root); wavelet (n);
 * workload (workload), eigen (workload); kron (factors); matrix.
 * A node with a key its op does not read (m on an identity) and a tree
 * nested more than 64 levels deep are OPTDP_ERR_BAD_INPUT; a file is
 * read with the command-line tool's limit (64 MiB), so a device or an
 * endless pipe is refused (OPTDP_ERR_TOO_LARGE), not read without bound. */

/* optdp_linear_info writes {"m" or "p": rows, "n": columns, "name"} and,
 * for a strategy, its sensitivities {"l1", "l2"}; what is OPTDP_WORKLOAD or
 * OPTDP_STRATEGY. */
int optdp_linear_info(optdp_cchar *op, int what, char **json, char **err);

/* optdp_linear_dense returns the operator as a dense matrix (refused above
 * 2^27 entries). */
int optdp_linear_dense(optdp_cchar *op, int what, optdp_matrix *a, char **err);

/* optdp_linear_error writes the exact expected error of answering the
 * workload with the strategy: {"workload", "strategy", "m", "n", "p",
 * "trace", "noise": {...}, "tse", "rmse"}. noise: {"mechanism":
 * "laplace" (default) | "gaussian" | "gaussian-analytic", "eps", "delta"}. */
int optdp_linear_error(optdp_cchar *workload, optdp_cchar *strategy, optdp_cchar *noise, char **json, char **err);

/* optdp_linear_optimize optimises a strategy for the workload. options:
 * {"eps" (required), "delta" (0: Laplace), "restarts", "seed", "p",
 * "max_iter"}. The result has "strategy" (an operator tree of matrices,
 * usable as a strategy argument), "method", "baseline", "objective",
 * "noise", "tse", "rmse", "classic_tse", "baselines": [{"name", "tse"}],
 * "dual", "gap", "rel_gap", "iterations", "time_s". */
int optdp_linear_optimize(optdp_cchar *workload, optdp_cchar *options, char **json, char **err);

/* optdp_linear_answer releases the workload's answers on the integer counts
 * x (n entries) with strategy and eps-DP discrete Laplace noise (delta = 0)
 * or (eps, delta)-DP discrete Gaussian noise, with randomness from rng.
 * Result: {"y", "x_hat", "answers", "noise", "grid", "expected": {...},
 * "strategy_name", "labels"}: labels[k] names the cells answers[k] sums
 * (linear.Labels; attributes named after a file workload's, else a0, a1, ...). */
int optdp_linear_answer(optdp_cchar *workload, optdp_cchar *strategy, optdp_cdouble *x, int64_t n,
	double eps, double delta, optdp_handle rng, char **json, char **err);

/* ---- streams and private training (prefix sums, mech/stream) ---- */

/* optdp_stream_optimize optimises the strategy C (lower triangular, A = B C
 * for the prefix sums A of n steps) under the participation spec ("single",
 * "epochs:k=K,b=B", "minsep:k=K,b=B"). options: {"family": "dense" |
 * "toeplitz" | "blt" ("" : dense for n <= 2048 where it applies),
 * "bands", "buffers", "loss": "total" | "max", "rel_gap", "max_iter",
 * "budget", "cancel", "timeout_s"}. The result: {"family", "n",
 * "participation", "loss", "sens2", "vector2", "vector_exact",
 * "sens_method", "total", "rmse", "max", "primal", "dual", "rel_gap" (NaN
 * without a certificate), "iterations", "coef" (the Toeplitz
 * coefficients, all n for blt; [] for dense), "blt_scale", "blt_alpha",
 * "blt_lambda" (c_t = scale sum_i alpha_i lambda_i^(t-1)), "blt_p",
 * "blt_q" (C(x) = scale P(x)/Q(x))}; *c
 * receives the n x n factor for the dense family, an empty matrix
 * otherwise. */
int optdp_stream_optimize(int64_t n, optdp_cchar *participation, optdp_cchar *options, char **json, optdp_matrix *c,
	char **err);

/* optdp_stream_new prepares the online release of the prefix sums of an
 * n-step integer stream with strategy c (the n x n lower-triangular C, or
 * 1 x b Toeplitz coefficients, b <= n) under the participation spec,
 * (eps, delta)-DP with exact discrete Gaussian noise drawn from rng at
 * each step (stream.NewStreamer). *stream receives a handle (release it
 * with optdp_release); *json {"n", "sens2", "sigma", "grid"}. */
int optdp_stream_new(optdp_cdouble *c, int64_t rows, int64_t cols, int64_t n, optdp_cchar *participation, double eps,
	double delta, optdp_handle rng, optdp_handle *stream, char **json, char **err);

/* optdp_stream_next releases the next step: x is the step's value, *y the
 * published noisy C x entry and *estimate the prefix-sum estimate. A step
 * beyond n is OPTDP_ERR_BAD_INPUT. */
int optdp_stream_next(optdp_handle stream, int64_t x, double *y, double *estimate, char **err);

/* optdp_linear_plan_marginals plans a weighted marginal workload for
 * (eps, delta)-DP Gaussian noise in the residual basis, never forming the
 * product domain. workload: {"dims": [sizes], "marginals": [{"attrs":
 * [attribute indices], "weight"}, ...]}. options: {"eps", "delta" (both
 * required), "loss": "sum" (default) | "max", "tol", "max_iter", "budget",
 * "attr_queries" (one per attribute: "identity" or "" | "prefix" | "allrange",
 * the queries asked along it), "cancel", "timeout_s"}. Result: {"dims",
 * "marginals", "subspaces", "share", "loss", "eps", "delta", "sigma",
 * "attr_queries" (null when all identity), "basis_gap", "queries",
 * "variance" (per marginal, its largest query variance), "tse", "rmse",
 * "max_variance", "objective", "dual", "gap", "rel_gap", "iterations",
 * "time_s"}; a max-variance plan that misses tol is an error
 * (OPTDP_ERR_NOT_CONVERGED). */
int optdp_linear_plan_marginals(optdp_cchar *workload, optdp_cchar *options, char **json, char **err);

/* optdp_linear_answer_marginals plans as optdp_linear_plan_marginals and
 * releases every workload marginal of the records with exact discrete
 * Gaussian noise per residual, without the full histogram. columns holds
 * rows values per attribute, attribute by attribute (columns[f*rows + r] is
 * record r's value of attribute f, in [0, dims[f])); counts (NULL: one
 * record per row) gives each row a multiplicity >= 0. Result: {"marginals":
 * [{"attrs", "weight", "answers" (row-major over the attributes' values,
 * or queries for prefix and allrange attributes), "variance", "variances"
 * (per answer; null when all identity)}], "noise", "subspaces"}. */
int optdp_linear_answer_marginals(optdp_cchar *workload, optdp_cchar *options, optdp_cint32 *columns, int64_t rows,
	optdp_cint64 *counts, optdp_handle rng, char **json, char **err);

#ifdef __cplusplus
}
#endif

#endif /* OPTDP_H */
