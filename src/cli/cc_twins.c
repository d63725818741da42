/* SPDX-License-Identifier: MIT */
/* ucov cc --dormant at a compile: the twins plugin of the compiler it runs. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "cc.h"

/* The major version that compiler cc0 says it is (-dumpversion), 0 if none. */
static int compiler_major(const char *cc0) {
  char *cmd = NULL;
  if (asprintf(&cmd, "'%s' -dumpversion 2>/dev/null", cc0) < 0)
    return 0;
  FILE *p = strchr(cc0, '\'') ? NULL : popen(cmd, "r");
  free(cmd);
  if (!p)
    return 0;
  char line[64] = "";
  int got = fgets(line, sizeof(line), p) != NULL;
  pclose(p);
  return got ? atoi(line) : 0;
}

/*
 * --dormant at a compile: the twins plugin of this compiler (src/plugins),
 * which gives every function a plain body and a traced twin, onto out[*n...]
 * (gcc's wants -fno-ipa-ra and -fno-ipa-icf: see gcc_twins.cc). Without one
 * (headers missing when ucov was built, a compiler it was not built for),
 * ucov cc says so and the hook calls are patched one by one, as before.
 */
void cc_twins_flags(const char *cc0, int clang, const char *libdir, char **out, int *n) {
  int major = compiler_major(cc0);
  char *name = NULL, *path = NULL;
  if (clang ? asprintf(&name, "ucov-twins-clang-%d.so", major) < 0
            : asprintf(&name, "ucov-twins-gcc.so") < 0)
    name = NULL;
  if (libdir && name && asprintf(&path, "%s/%s", libdir, name) < 0)
    path = NULL;
  int usable = path && access(path, R_OK) == 0 && (clang || major == UCOV_GCC_PLUGIN_MAJOR);
  if (!usable) {
    UCOV_ERR("--dormant: no twins plugin for %s %d (%s was not built: %s); its hook calls are "
             "patched one by one instead\n",
             clang ? "clang" : "gcc", major, name ? name : "?",
             clang ? "LLVM's headers (llvm-N-dev) missing, or a version ucov does not know"
                   : "gcc's plugin headers (gcc-N-plugin-dev) missing, or another gcc");
    free(path);
    free(name);
    return;
  }
  char *flag = NULL;
  if (asprintf(&flag, clang ? "-fpass-plugin=%s" : "-fplugin=%s", path) > 0)
    out[(*n)++] = flag;
  if (!clang) {
    out[(*n)++] = "-fno-ipa-ra";
    out[(*n)++] = "-fno-ipa-icf";
  }
  free(path);
  free(name);
}
