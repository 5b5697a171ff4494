/* ProcessPrng for Wine 8 (Debian bookworm's), which lacks it.
 *
 * Rust's standard library on Windows draws its random numbers from
 * ProcessPrng in bcryptprimitives.dll (Windows 10 and later have it); Wine
 * 8 has no such export, so a Rust program there stops before main. This
 * stand-in, placed beside the program (scripts/cross-test windows builds
 * it with mingw), answers from Wine's RtlGenRandom (advapi32's
 * SystemFunction036). It is for running ferrex under Wine here only: it is
 * never shipped, and real Windows uses its own. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
    while (length > 0) {
        ULONG chunk = length > 0x7fffffff ? 0x7fffffff : (ULONG)length;
        if (!SystemFunction036(data, chunk)) {
            return FALSE;
        }
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
