/* Test-only bcryptprimitives.dll for Wine 8, which lacks it: Rust's standard
 * library (tokenizers, cryptography) imports ProcessPrng from it on Windows 10+.
 * Backed by BCryptGenRandom. Never shipped: a real Windows has its own. */
#include <windows.h>
#include <bcrypt.h>

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
    while (len > 0) {
        ULONG chunk = len > 0x10000000 ? 0x10000000 : (ULONG)len;
        if (BCryptGenRandom(NULL, data, chunk, BCRYPT_USE_SYSTEM_PREFERRED_RNG) != 0)
            return FALSE;
        data += chunk;
        len -= chunk;
    }
    return TRUE;
}
