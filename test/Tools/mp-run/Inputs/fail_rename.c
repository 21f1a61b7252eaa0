/* A fault for mp-run's checkpoint tests: rename() fails with ENOSPC on the
 * calls listed in FAIL_RENAME_CALLS (comma-separated, counted from 1), as a
 * disk that is full for a moment. Loaded with LD_PRELOAD. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int calls;

int rename(const char *from, const char *to) {
  static int (*real)(const char *, const char *);
  if (!real)
    real = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
  ++calls;
  const char *list = getenv("FAIL_RENAME_CALLS");
  if (list) {
    char copy[256];
    snprintf(copy, sizeof copy, "%s", list);
    for (char *item = strtok(copy, ","); item; item = strtok(NULL, ","))
      if (atoi(item) == calls) {
        errno = ENOSPC;
        return -1;
      }
  }
  return real(from, to);
}
