/*
 * bcryptprimitives.c: a stand-in for Windows' bcryptprimitives.dll, for
 * running cordon's Windows binary under wine 8 (Debian 12), whose own
 * lacks ProcessPrng. Go's runtime (1.22 and later) needs only that one
 * function, for its random numbers; here it fills the buffer from
 * RtlGenRandom (advapi32's SystemFunction036). Test machines only: see
 * docs/windows.md.
 *
 *   x86_64-w64-mingw32-gcc -shared -O2 -o bcryptprimitives.dll bcryptprimitives.c
 */
#include <windows.h>

typedef BOOLEAN(WINAPI *genrandom)(PVOID, ULONG);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T n)
{
	static genrandom gen;
	if (gen == NULL) {
		HMODULE advapi = LoadLibraryA("advapi32.dll");
		if (advapi == NULL)
			return FALSE;
		gen = (genrandom)(void *)GetProcAddress(advapi, "SystemFunction036");
		if (gen == NULL)
			return FALSE;
	}
	while (n > 0) {
		ULONG chunk = n > 0x10000000 ? 0x10000000 : (ULONG)n;
		if (!gen(data, chunk))
			return FALSE;
		data += chunk;
		n -= chunk;
	}
	return TRUE;
}
