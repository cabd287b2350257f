/* MSVC-ABI complex functions for Wine 8.0's ucrtbase, which leaves most of them
 * unimplemented (numpy 2.x calls crealf while importing). Test-only: built by
 * build_ucrt_shim.sh into a native ucrtbase.dll that forwards every other export
 * to Wine's own ucrtbase (renamed ucrtwine.dll). Never shipped to clinics. */
#include <complex.h>

#define CMPLX(x, y) __builtin_complex((double)(x), (double)(y))
#define CMPLXF(x, y) __builtin_complex((float)(x), (float)(y))

/* MSVC: _Dcomplex and _Lcomplex (long double == double) are two doubles, _Fcomplex two floats. */
typedef struct { double v[2]; } Dc;
typedef struct { float v[2]; } Fc;

static double _Complex d_in(Dc z) { return CMPLX(z.v[0], z.v[1]); }
static Dc d_out(double _Complex z) { Dc r = {{creal(z), cimag(z)}}; return r; }
static float _Complex f_in(Fc z) { return CMPLXF(z.v[0], z.v[1]); }
static Fc f_out(float _Complex z) { Fc r = {{crealf(z), cimagf(z)}}; return r; }

#define EXPORT __declspec(dllexport)

EXPORT Dc shim_ccos(Dc z) { return d_out(ccos(d_in(z))); }
EXPORT Dc shim_ccosl(Dc z) { return d_out(ccos(d_in(z))); }
EXPORT Fc shim_ccosf(Fc z) { return f_out(ccosf(f_in(z))); }
EXPORT Dc shim_ccosh(Dc z) { return d_out(ccosh(d_in(z))); }
EXPORT Dc shim_ccoshl(Dc z) { return d_out(ccosh(d_in(z))); }
EXPORT Fc shim_ccoshf(Fc z) { return f_out(ccoshf(f_in(z))); }
EXPORT Dc shim_cexp(Dc z) { return d_out(cexp(d_in(z))); }
EXPORT Dc shim_cexpl(Dc z) { return d_out(cexp(d_in(z))); }
EXPORT Fc shim_cexpf(Fc z) { return f_out(cexpf(f_in(z))); }
EXPORT Dc shim_csin(Dc z) { return d_out(csin(d_in(z))); }
EXPORT Dc shim_csinl(Dc z) { return d_out(csin(d_in(z))); }
EXPORT Fc shim_csinf(Fc z) { return f_out(csinf(f_in(z))); }
EXPORT Dc shim_csinh(Dc z) { return d_out(csinh(d_in(z))); }
EXPORT Dc shim_csinhl(Dc z) { return d_out(csinh(d_in(z))); }
EXPORT Fc shim_csinhf(Fc z) { return f_out(csinhf(f_in(z))); }
EXPORT Dc shim_ctan(Dc z) { return d_out(ctan(d_in(z))); }
EXPORT Dc shim_ctanl(Dc z) { return d_out(ctan(d_in(z))); }
EXPORT Fc shim_ctanf(Fc z) { return f_out(ctanf(f_in(z))); }
EXPORT Dc shim_ctanh(Dc z) { return d_out(ctanh(d_in(z))); }
EXPORT Dc shim_ctanhl(Dc z) { return d_out(ctanh(d_in(z))); }
EXPORT Fc shim_ctanhf(Fc z) { return f_out(ctanhf(f_in(z))); }
EXPORT Dc shim_clog(Dc z) { return d_out(clog(d_in(z))); }
EXPORT Dc shim_clogl(Dc z) { return d_out(clog(d_in(z))); }
EXPORT Fc shim_clogf(Fc z) { return f_out(clogf(f_in(z))); }
EXPORT Dc shim_csqrt(Dc z) { return d_out(csqrt(d_in(z))); }
EXPORT Dc shim_csqrtl(Dc z) { return d_out(csqrt(d_in(z))); }
EXPORT Fc shim_csqrtf(Fc z) { return f_out(csqrtf(f_in(z))); }
EXPORT Dc shim_cproj(Dc z) { return d_out(cproj(d_in(z))); }
EXPORT Dc shim_cprojl(Dc z) { return d_out(cproj(d_in(z))); }
EXPORT Fc shim_cprojf(Fc z) { return f_out(cprojf(f_in(z))); }
EXPORT Dc shim_conj(Dc z) { return d_out(conj(d_in(z))); }
EXPORT Dc shim_conjl(Dc z) { return d_out(conj(d_in(z))); }
EXPORT Fc shim_conjf(Fc z) { return f_out(conjf(f_in(z))); }
EXPORT Dc shim_cacos(Dc z) { return d_out(cacos(d_in(z))); }
EXPORT Dc shim_cacosl(Dc z) { return d_out(cacos(d_in(z))); }
EXPORT Fc shim_cacosf(Fc z) { return f_out(cacosf(f_in(z))); }
EXPORT Dc shim_cacosh(Dc z) { return d_out(cacosh(d_in(z))); }
EXPORT Dc shim_cacoshl(Dc z) { return d_out(cacosh(d_in(z))); }
EXPORT Fc shim_cacoshf(Fc z) { return f_out(cacoshf(f_in(z))); }
EXPORT Dc shim_casin(Dc z) { return d_out(casin(d_in(z))); }
EXPORT Dc shim_casinl(Dc z) { return d_out(casin(d_in(z))); }
EXPORT Fc shim_casinf(Fc z) { return f_out(casinf(f_in(z))); }
EXPORT Dc shim_casinh(Dc z) { return d_out(casinh(d_in(z))); }
EXPORT Dc shim_casinhl(Dc z) { return d_out(casinh(d_in(z))); }
EXPORT Fc shim_casinhf(Fc z) { return f_out(casinhf(f_in(z))); }
EXPORT Dc shim_catan(Dc z) { return d_out(catan(d_in(z))); }
EXPORT Dc shim_catanl(Dc z) { return d_out(catan(d_in(z))); }
EXPORT Fc shim_catanf(Fc z) { return f_out(catanf(f_in(z))); }
EXPORT Dc shim_catanh(Dc z) { return d_out(catanh(d_in(z))); }
EXPORT Dc shim_catanhl(Dc z) { return d_out(catanh(d_in(z))); }
EXPORT Fc shim_catanhf(Fc z) { return f_out(catanhf(f_in(z))); }
EXPORT double shim_cabs(Dc z) { return cabs(d_in(z)); }
EXPORT double shim_cabsl(Dc z) { return cabs(d_in(z)); }
EXPORT float shim_cabsf(Fc z) { return cabsf(f_in(z)); }
EXPORT double shim_carg(Dc z) { return carg(d_in(z)); }
EXPORT double shim_cargl(Dc z) { return carg(d_in(z)); }
EXPORT float shim_cargf(Fc z) { return cargf(f_in(z)); }
EXPORT double shim_cimag(Dc z) { return cimag(d_in(z)); }
EXPORT double shim_cimagl(Dc z) { return cimag(d_in(z)); }
EXPORT float shim_cimagf(Fc z) { return cimagf(f_in(z)); }
EXPORT double shim_creal(Dc z) { return creal(d_in(z)); }
EXPORT double shim_creall(Dc z) { return creal(d_in(z)); }
EXPORT float shim_crealf(Fc z) { return crealf(f_in(z)); }
EXPORT Dc shim_cpow(Dc a, Dc b) { return d_out(cpow(d_in(a), d_in(b))); }
EXPORT Dc shim_cpowl(Dc a, Dc b) { return d_out(cpow(d_in(a), d_in(b))); }
EXPORT Fc shim_cpowf(Fc a, Fc b) { return f_out(cpowf(f_in(a), f_in(b))); }
EXPORT Dc shim_clog10(Dc z) { return d_out(clog(d_in(z)) / 2.302585092994045684); }
EXPORT Dc shim_clog10l(Dc z) { return d_out(clog(d_in(z)) / 2.302585092994045684); }
EXPORT Fc shim_clog10f(Fc z) { return f_out(clogf(f_in(z)) / 2.3025851f); }
EXPORT Dc shim__Cbuild(double re, double im) { Dc r = {{re, im}}; return r; }
EXPORT Dc shim__LCbuild(double re, double im) { Dc r = {{re, im}}; return r; }
EXPORT Fc shim__FCbuild(float re, float im) { Fc r = {{re, im}}; return r; }
EXPORT Dc shim__Cmulcc(Dc a, Dc b) { return d_out(d_in(a) * d_in(b)); }
EXPORT Dc shim__LCmulcc(Dc a, Dc b) { return d_out(d_in(a) * d_in(b)); }
EXPORT Fc shim__FCmulcc(Fc a, Fc b) { return f_out(f_in(a) * f_in(b)); }
EXPORT Dc shim__Cmulcr(Dc a, double b) { return d_out(d_in(a) * b); }
EXPORT Dc shim__LCmulcr(Dc a, double b) { return d_out(d_in(a) * b); }
EXPORT Fc shim__FCmulcr(Fc a, float b) { return f_out(f_in(a) * b); }
EXPORT double shim_norm(Dc z) { double _Complex c = d_in(z); return creal(c) * creal(c) + cimag(c) * cimag(c); }
EXPORT double shim_norml(Dc z) { return shim_norm(z); }
EXPORT float shim_normf(Fc z) { return z.v[0] * z.v[0] + z.v[1] * z.v[1]; }
