/* Test set-up for running claude-acp.exe (and claude.exe) under Wine 8, never shipped: Rust's std
 * imports ProcessPrng from bcryptprimitives.dll, which Wine 8.0 lacks. This stand-in DLL, put
 * beside the exe, fills the buffer with RtlGenRandom (advapi32's SystemFunction036), as Windows'
 * own ProcessPrng does from the system's generator. Built by .ci/windows with MinGW. */
#include <windows.h>
#include <ntsecapi.h>

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    while (len > 0) {
        ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
        if (!RtlGenRandom(data, n)) {
            return FALSE;
        }
        data += n;
        len -= n;
    }
    return TRUE;
}
