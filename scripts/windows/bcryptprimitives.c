/*
 * A stand-in for Windows' bcryptprimitives.dll, for the Wine lane only (scripts/test-windows.sh).
 *
 * Rust's standard library (1.78+) takes its random bytes from `ProcessPrng` in
 * bcryptprimitives.dll, which Windows 10+ has and Wine 8 does not: without it the addon
 * fails to load. This DLL exports `ProcessPrng` and forwards to `BCryptGenRandom`, which
 * Wine implements. It is built from this source by the lane, placed beside the Windows
 * node.exe, and never shipped.
 */
#include <windows.h>
#include <bcrypt.h>

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    /* BCryptGenRandom takes a ULONG length: fill larger buffers in slices. */
    while (len > 0) {
        ULONG n = len > 0x7fffffff ? 0x7fffffff : (ULONG)len;
        if (!BCRYPT_SUCCESS(BCryptGenRandom(NULL, data, n, BCRYPT_USE_SYSTEM_PREFERRED_RNG)))
            return FALSE;
        data += n;
        len -= n;
    }
    return TRUE;
}
