/*
 * dpotrf.c: time LAPACK's own Cholesky (LAPACKE_dpotrf through OpenBLAS) on
 * the same kind of matrix the Go benchmark BenchmarkCholesky factorises, to
 * compare optdp's netlib backend with LAPACK called directly from C.
 *
 * Build and run (see bench/README.md):
 *   gcc -O2 -o /tmp/dpotrf bench/c/dpotrf.c -llapacke -lopenblas
 *   OPENBLAS_NUM_THREADS=1 /tmp/dpotrf 2000 4000
 *
 * For each n it fills an n×n symmetric matrix with entries uniform in [-1,1)
 * plus n on the diagonal (diagonally dominant, so positive definite: the
 * matrix BenchmarkCholesky uses), copies it and times LAPACKE_dpotrf on the
 * copy (column-major lower, i.e. the row-major upper triangle, as optdp
 * calls it), repeating 5 times and printing the best and median time.
 */
#include <lapacke.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int openblas_get_num_threads(void);

static double now(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static int cmp(const void *a, const void *b) {
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv) {
	int reps = 5;
	for (int k = 1; k < argc; k++) {
		int n = atoi(argv[k]);
		if (n <= 0) {
			fprintf(stderr, "usage: %s n...\n", argv[0]);
			return 2;
		}
		double *a = malloc(sizeof(double) * n * n);
		double *w = malloc(sizeof(double) * n * n);
		if (a == NULL || w == NULL) {
			fprintf(stderr, "n=%d: out of memory\n", n);
			return 1;
		}
		unsigned long long s = 1;
		for (long i = 0; i < n; i++) {
			for (long j = i; j < n; j++) {
				s = s * 6364136223846793005ULL + 1442695040888963407ULL;
				double v = (double)(s >> 11) / 9007199254740992.0 * 2 - 1;
				if (i == j)
					v += n;
				a[i * n + j] = a[j * n + i] = v;
			}
		}
		double t[16];
		for (int r = 0; r < reps; r++) {
			memcpy(w, a, sizeof(double) * n * n);
			double t0 = now();
			int info = LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'L', n, w, n);
			t[r] = now() - t0;
			if (info != 0) {
				fprintf(stderr, "dpotrf n=%d: info %d\n", n, info);
				return 1;
			}
		}
		qsort(t, reps, sizeof(double), cmp);
		printf("dpotrf n=%d threads=%d: best %.1f ms, median %.1f ms (%d runs)\n",
		       n, openblas_get_num_threads(), 1e3 * t[0], 1e3 * t[reps / 2], reps);
		free(a);
		free(w);
	}
	return 0;
}
