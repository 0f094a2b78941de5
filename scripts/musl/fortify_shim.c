/* For the x86_64 musl build of scripts/release-archives: Debian's LLVM libunwind (the unwinder
 * std links on musl) is built against glibc and calls glibc's fortified __fprintf_chk in its
 * error paths; musl has no such symbol. This gives it one, the plain fprintf it stands for. */
#include <stdarg.h>
#include <stdio.h>

int __fprintf_chk(FILE *stream, int flag, const char *format, ...) {
  (void)flag;
  va_list args;
  va_start(args, format);
  int written = vfprintf(stream, format, args);
  va_end(args);
  return written;
}
