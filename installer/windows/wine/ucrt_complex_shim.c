/* MSVC-ABI complex functions for Wine 8.0's ucrtbase, which leaves most of them
 * unimplemented (numpy 2.x calls crealf while importing). Test-only: built by
 * build_wine_shims.sh into a native ucrtbase.dll that forwards every other export
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

/* Each function in its three MSVC forms: double (name), long double (namel: the
 * same as double on MSVC) and float (namef). */
#define COMPLEX_TO_COMPLEX(name) \
    EXPORT Dc shim_##name(Dc z) { return d_out(name(d_in(z))); } \
    EXPORT Dc shim_##name##l(Dc z) { return d_out(name(d_in(z))); } \
    EXPORT Fc shim_##name##f(Fc z) { return f_out(name##f(f_in(z))); }
#define COMPLEX_TO_REAL(name) \
    EXPORT double shim_##name(Dc z) { return name(d_in(z)); } \
    EXPORT double shim_##name##l(Dc z) { return name(d_in(z)); } \
    EXPORT float shim_##name##f(Fc z) { return name##f(f_in(z)); }

COMPLEX_TO_COMPLEX(ccos)
COMPLEX_TO_COMPLEX(ccosh)
COMPLEX_TO_COMPLEX(cexp)
COMPLEX_TO_COMPLEX(csin)
COMPLEX_TO_COMPLEX(csinh)
COMPLEX_TO_COMPLEX(ctan)
COMPLEX_TO_COMPLEX(ctanh)
COMPLEX_TO_COMPLEX(clog)
COMPLEX_TO_COMPLEX(csqrt)
COMPLEX_TO_COMPLEX(cproj)
COMPLEX_TO_COMPLEX(conj)
COMPLEX_TO_COMPLEX(cacos)
COMPLEX_TO_COMPLEX(cacosh)
COMPLEX_TO_COMPLEX(casin)
COMPLEX_TO_COMPLEX(casinh)
COMPLEX_TO_COMPLEX(catan)
COMPLEX_TO_COMPLEX(catanh)
COMPLEX_TO_REAL(cabs)
COMPLEX_TO_REAL(carg)
COMPLEX_TO_REAL(cimag)
COMPLEX_TO_REAL(creal)
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
