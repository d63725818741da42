/* SPDX-License-Identifier: MIT */
/*
 * Where control sockets live, shared by the target's server and the ucov
 * command, and the checks both sides make before trusting a directory.
 *
 * A directory is trusted only if it is private: a real directory (lstat, not
 * a link), owned by the effective uid, with no permission for group or
 * others. Without a configured directory the default is /tmp/ucov-<euid>; any
 * local user can create that name first, so a target that finds it squatted
 * serves from a private directory of its own, /tmp/ucov-<euid>.XXXXXX
 * (mkdtemp), and clients look in every such directory that passes the checks.
 */
#define _GNU_SOURCE
#include "protocol.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ucov/port/compiler.h"

/* Where defaults live: fixed, so that a target and a client agree whatever
 * their TMPDIR says. */
#define CONTROL_TMP "/tmp"

UCOV_NOTRACE int ucov_dir_is_private(const char *dir) {
  struct stat st;
  return lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
         (st.st_mode & 077) == 0;
}

/*
 * A configured runtime directory: $UCOV_RUNTIME_DIR, else
 * $XDG_RUNTIME_DIR/ucov (both read with secure_getenv). 1 with the path in
 * out, 0 when neither is set, -1 if it does not fit.
 */
static UCOV_NOTRACE int ucov_control_dir_configured(char *out, size_t len) {
  /* secure_getenv: a setuid program takes no path from its caller. */
  const char *dir = secure_getenv("UCOV_RUNTIME_DIR");
  int n;
  if (dir && *dir)
    n = snprintf(out, len, "%s", dir);
  else if ((dir = secure_getenv("XDG_RUNTIME_DIR")) && *dir)
    n = snprintf(out, len, "%s/ucov", dir);
  else
    return 0;
  return n > 0 && (size_t)n < len ? 1 : -1;
}

UCOV_NOTRACE int ucov_control_dir(char *out, size_t len) {
  int r = ucov_control_dir_configured(out, len);
  if (r)
    return r > 0 ? 0 : -1;
  int n = snprintf(out, len, CONTROL_TMP "/ucov-%u", (unsigned)geteuid());
  return n > 0 && (size_t)n < len ? 0 : -1;
}

UCOV_NOTRACE int ucov_control_path(pid_t pid, char *out, size_t len) {
  char dir[UCOV_CONTROL_DIR_MAX];
  if (ucov_control_dir(dir, sizeof(dir)))
    return -1;
  int n = snprintf(out, len, "%s/%d.sock", dir, (int)pid);
  return n > 0 && (size_t)n < len ? 0 : -1;
}

/*
 * Call fn for every private fallback of directory dir: "<dir>.XXXXXX" beside
 * it (mkdtemp's names). Stops at fn's first non-zero return and returns it.
 */
static UCOV_NOTRACE int each_fallback(const char *dir, int (*fn)(const char *dir, void *arg),
                                      void *arg) {
  char parent[UCOV_CONTROL_DIR_MAX], path[UCOV_CONTROL_DIR_MAX];
  const char *slash = strrchr(dir, '/');
  if (!slash || snprintf(parent, sizeof(parent), "%.*s", (int)(slash - dir), dir) < 0)
    return 0;
  const char *base = slash + 1;
  size_t bl = strlen(base);
  DIR *d = opendir(*parent ? parent : "/");
  if (!d)
    return 0;
  int r = 0;
  struct dirent *e;
  while (!r && (e = readdir(d))) {
    if (strncmp(e->d_name, base, bl) != 0 || e->d_name[bl] != '.' ||
        strlen(e->d_name + bl + 1) != 6)
      continue;
    int n = snprintf(path, sizeof(path), "%s/%s", parent, e->d_name);
    if (n > 0 && (size_t)n < sizeof(path) && ucov_dir_is_private(path))
      r = fn(path, arg);
  }
  closedir(d);
  return r;
}

UCOV_NOTRACE int ucov_control_dirs(int (*fn)(const char *dir, void *arg), void *arg) {
  char dir[UCOV_CONTROL_DIR_MAX];
  int r = ucov_control_dir_configured(dir, sizeof(dir));
  if (r < 0)
    return 0;
  if (r > 0) /* a configured directory is the only one */
    return ucov_dir_is_private(dir) ? fn(dir, arg) : 0;
  if (ucov_control_dir(dir, sizeof(dir)) == 0 && ucov_dir_is_private(dir) && (r = fn(dir, arg)))
    return r;
  return each_fallback(dir, fn, arg);
}

static UCOV_NOTRACE int take_first(const char *dir, void *arg) {
  char *out = arg;
  snprintf(out, UCOV_CONTROL_DIR_MAX, "%s", dir);
  return 1;
}

UCOV_NOTRACE int ucov_private_dir(const char *dir, int configured, const char *doing, char *out,
                                  size_t len, char *why, size_t whylen) {
  why[0] = 0;
  if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
    snprintf(why, whylen, "%s: %s", dir, strerror(errno));
    return -1;
  }
  if (ucov_dir_is_private(dir)) {
    snprintf(out, len, "%s", dir);
    return 0;
  }
  if (configured) {
    snprintf(why, whylen, "%s: not a private directory of this user (0700, owned, no link)", dir);
    return -1;
  }
  /* The default name is taken by someone else: a private one of our own,
   * which no one else can create or enter. An earlier one's first. */
  char found[UCOV_CONTROL_DIR_MAX];
  if (each_fallback(dir, take_first, found)) {
    snprintf(out, len, "%s", found);
  } else {
    char tmpl[UCOV_CONTROL_DIR_MAX];
    snprintf(tmpl, sizeof(tmpl), "%s.XXXXXX", dir);
    if (!mkdtemp(tmpl)) {
      snprintf(why, whylen, "%s: %s", tmpl, strerror(errno));
      return -1;
    }
    snprintf(out, len, "%s", tmpl);
  }
  snprintf(why, whylen, "%s is not a private directory of this user: %s %s", dir, doing, out);
  return 0;
}

UCOV_NOTRACE int ucov_control_serve_dir(char *out, size_t len, char *why, size_t whylen) {
  char dir[UCOV_CONTROL_DIR_MAX];
  int configured = ucov_control_dir_configured(dir, sizeof(dir));
  if (configured < 0 || (!configured && ucov_control_dir(dir, sizeof(dir)))) {
    snprintf(why, whylen, "runtime directory path too long");
    return -1;
  }
  return ucov_private_dir(dir, configured, "serving from", out, len, why, whylen);
}
