/* SPDX-License-Identifier: MIT */
/*
 * Loads COPIES copies of a library (DIR/copy<i>.so) and unloads a quarter
 * of them each round, calling lib_call in every loaded copy: ROUNDS rounds.
 * Prints the calls made; with "linger", waits for its stdin to close before
 * it exits (pulls run meanwhile).
 *   main DIR COPIES ROUNDS [linger]
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv) {
  if (argc < 4)
    return 2;
  int copies = atoi(argv[2]), rounds = atoi(argv[3]);
  void **h = calloc((size_t)copies, sizeof(*h));
  long calls = 0;
  if (!h)
    return 1;
  for (int r = 0; r < rounds; r++) {
    for (int i = 0; i < copies; i++) {
      if (h[i])
        continue;
      char path[4096];
      snprintf(path, sizeof(path), "%s/copy%d.so", argv[1], i);
      if (!(h[i] = dlopen(path, RTLD_NOW | RTLD_LOCAL))) {
        fprintf(stderr, "%s\n", dlerror());
        return 1;
      }
    }
    for (int i = 0; i < copies; i++) {
      int (*f)(int) = (int (*)(int))dlsym(h[i], "lib_call");
      for (int k = 0; k <= i % 5; k++, calls++)
        f(k + r);
    }
    for (int i = r % 4; i < copies; i += 4) { /* a quarter goes */
      dlclose(h[i]);
      h[i] = NULL;
    }
    struct timespec ts = {0, 2000000};
    nanosleep(&ts, NULL);
  }
  printf("calls %ld\n", calls);
  fflush(stdout);
  char line[8];
  if (argc > 4 && !strcmp(argv[4], "linger"))
    while (fgets(line, sizeof(line), stdin))
      ;
  return 0;
}
