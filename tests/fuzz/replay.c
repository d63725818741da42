/* SPDX-License-Identifier: MIT */
/*
 * A harness without libFuzzer: every file named (directories: every file in
 * them) is one input. A crash or a sanitizer report fails the test; the
 * corpus is the regression suite.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    return -1;
  }
  uint8_t *buf = NULL;
  size_t len = 0, cap = 0;
  for (;;) {
    if (len == cap) {
      uint8_t *g = realloc(buf, cap = cap ? 2 * cap : 4096);
      if (!g) {
        free(buf);
        fclose(f);
        return -1;
      }
      buf = g;
    }
    size_t n = fread(buf + len, 1, cap - len, f);
    if (!n)
      break;
    len += n;
  }
  fclose(f);
  LLVMFuzzerTestOneInput(buf, len);
  free(buf);
  return 0;
}

int main(int argc, char **argv) {
  int inputs = 0, bad = 0;
  for (int i = 1; i < argc; i++) {
    struct stat st;
    if (stat(argv[i], &st) != 0) {
      perror(argv[i]);
      bad++;
      continue;
    }
    if (!S_ISDIR(st.st_mode)) {
      bad += run_file(argv[i]) != 0;
      inputs++;
      continue;
    }
    struct dirent **names;
    int n = scandir(argv[i], &names, NULL, alphasort);
    for (int k = 0; k < n; k++) {
      char path[4096];
      snprintf(path, sizeof(path), "%s/%s", argv[i], names[k]->d_name);
      if (names[k]->d_name[0] != '.' && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
        bad += run_file(path) != 0;
        inputs++;
      }
      free(names[k]);
    }
    free(names);
  }
  printf("%d inputs replayed, %d unreadable\n", inputs, bad);
  return bad || !inputs;
}
