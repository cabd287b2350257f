/* Test-only icuuc.dll for Wine 8, which has no ICU: Qt6Core.dll imports the
 * Windows system ICU (icuuc.dll, in Windows 10 since 1703) for its optional
 * legacy text codecs only. Every converter fails to open, so Qt keeps to its
 * built-in UTF-8/UTF-16/Latin-1 codecs, which is all the app uses. Never
 * shipped to clinics: a real Windows has its own icuuc.dll. */
#define EXPORT __declspec(dllexport)
#define U_FILE_ACCESS_ERROR 4

typedef int UErrorCode;

static void fail(UErrorCode *err) { if (err && *err <= 0) *err = U_FILE_ACCESS_ERROR; }

EXPORT void *ucnv_open(const char *name, UErrorCode *err) { (void)name; fail(err); return 0; }
EXPORT void ucnv_close(void *conv) { (void)conv; }
EXPORT void UCNV_FROM_U_CALLBACK_SUBSTITUTE(void) {}
EXPORT void UCNV_TO_U_CALLBACK_SUBSTITUTE(void) {}
EXPORT void ucnv_reset(void *conv) { (void)conv; }
EXPORT signed char ucnv_getMaxCharSize(const void *conv) { (void)conv; return 1; }
EXPORT const char *ucnv_getName(const void *conv, UErrorCode *err) { (void)conv; fail(err); return ""; }
EXPORT void ucnv_getToUCallBack(const void *c, void **action, const void **ctx) { (void)c; *action = 0; *ctx = 0; }
EXPORT void ucnv_getFromUCallBack(const void *c, void **action, const void **ctx) { (void)c; *action = 0; *ctx = 0; }
EXPORT void ucnv_setToUCallBack(void *c, void *a, const void *x, void **oa, const void **ox, UErrorCode *err)
{ (void)c; (void)a; (void)x; if (oa) *oa = 0; if (ox) *ox = 0; fail(err); }
EXPORT void ucnv_setFromUCallBack(void *c, void *a, const void *x, void **oa, const void **ox, UErrorCode *err)
{ (void)c; (void)a; (void)x; if (oa) *oa = 0; if (ox) *ox = 0; fail(err); }
EXPORT void ucnv_cbToUWriteUChars(void *args, const void *s, int n, int off, UErrorCode *err)
{ (void)args; (void)s; (void)n; (void)off; fail(err); }
EXPORT void ucnv_cbFromUWriteUChars(void *args, const void **s, const void *e, int off, UErrorCode *err)
{ (void)args; (void)s; (void)e; (void)off; fail(err); }
EXPORT void ucnv_toUnicode(void *c, void **t, const void *tl, const char **s, const char *sl, int *o, signed char f, UErrorCode *err)
{ (void)c; (void)t; (void)tl; (void)s; (void)sl; (void)o; (void)f; fail(err); }
EXPORT void ucnv_fromUnicode(void *c, char **t, const char *tl, const void **s, const void *sl, int *o, signed char f, UErrorCode *err)
{ (void)c; (void)t; (void)tl; (void)s; (void)sl; (void)o; (void)f; fail(err); }
EXPORT int ucnv_toUCountPending(const void *c, UErrorCode *err) { (void)c; fail(err); return 0; }
EXPORT int ucnv_fromUCountPending(const void *c, UErrorCode *err) { (void)c; fail(err); return 0; }
EXPORT const char *ucnv_getStandardName(const char *n, const char *std, UErrorCode *err) { (void)n; (void)std; fail(err); return 0; }
EXPORT const char *ucnv_getAvailableName(int n) { (void)n; return 0; }
EXPORT int ucnv_countAvailable(void) { return 0; }
