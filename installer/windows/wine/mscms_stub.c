/* Test-only mscms.dll for Wine 8, whose WcsCreateIccProfile is unimplemented
 * (Qt's qwindows.dll calls it for the screen colour profile and the process
 * aborts). Every call reports "no profile", and Qt keeps sRGB. Never shipped to
 * clinics: a real Windows has its own mscms.dll. */
#include <windows.h>

#define EXPORT __declspec(dllexport)

EXPORT HANDLE WINAPI OpenColorProfileW(void *profile, DWORD access, DWORD share, DWORD creation)
{ (void)profile; (void)access; (void)share; (void)creation; SetLastError(ERROR_NOT_SUPPORTED); return NULL; }
EXPORT BOOL WINAPI CloseColorProfile(HANDLE profile) { (void)profile; return TRUE; }
EXPORT HANDLE WINAPI WcsCreateIccProfile(HANDLE profile, DWORD options)
{ (void)profile; (void)options; SetLastError(ERROR_NOT_SUPPORTED); return NULL; }
EXPORT BOOL WINAPI GetColorProfileFromHandle(HANDLE profile, BYTE *buffer, DWORD *size)
{ (void)profile; (void)buffer; (void)size; SetLastError(ERROR_NOT_SUPPORTED); return FALSE; }
