/*
 * Force-included (CGO_CFLAGS=-include) into every C file cgo compiles for
 * the manylinux_2_17 wheel's library (build/wheel.sh): Go's runtime/cgo and
 * cmd/liboptdp.
 *
 * glibc 2.32 and 2.34 moved these functions from libpthread into libc and
 * gave them new symbol versions (GLIBC_2.32, GLIBC_2.34); a library linked
 * against a newer glibc therefore needs glibc >= 2.34 at run time. The
 * original versions (GLIBC_2.2.5, x86-64's first) are still exported by
 * every newer libc as aliases of the same functions (same address, same
 * behaviour), so binding the references to them keeps the library loadable
 * on glibc 2.17. On glibc < 2.34 these functions live in libpthread.so.0,
 * which build/wheel.sh therefore adds as a NEEDED entry (on newer glibc it
 * is an empty compatibility library).
 *
 * The pthread_cond_* functions are deliberately absent: their GLIBC_2.2.5
 * versions are the old, different condition-variable ABI; the library
 * binds to GLIBC_2.3.2, which satisfies 2.17.
 *
 * python/_build/wheel_check.py fails the build when the library needs any
 * newer symbol version than its tag allows: add the symbol here, at the
 * oldest version that `objdump -T /lib/x86_64-linux-gnu/libc.so.6` lists
 * for it with the same address, after checking the function is the same.
 */
#ifndef __ASSEMBLER__ /* runtime/cgo's .S files get CGO_CFLAGS too */
__asm__(".symver pthread_create,pthread_create@GLIBC_2.2.5");
__asm__(".symver pthread_attr_getstack,pthread_attr_getstack@GLIBC_2.2.5");
__asm__(".symver pthread_attr_getstacksize,pthread_attr_getstacksize@GLIBC_2.2.5");
__asm__(".symver pthread_getattr_np,pthread_getattr_np@GLIBC_2.2.5");
__asm__(".symver pthread_key_create,pthread_key_create@GLIBC_2.2.5");
__asm__(".symver pthread_setspecific,pthread_setspecific@GLIBC_2.2.5");
__asm__(".symver pthread_sigmask,pthread_sigmask@GLIBC_2.2.5");
#endif
