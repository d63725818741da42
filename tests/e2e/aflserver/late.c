/* SPDX-License-Identifier: MIT */
/* A target (ucov cc --afl) that loads ./late_lib.so in each execution, after
 * the fork server started (tests/e2e/aflserver.sh). */
#include <dlfcn.h>

int main(void) {
  void *h = dlopen("./late_lib.so", RTLD_NOW);
  int (*f)(int) = h ? (int (*)(int))dlsym(h, "late_work") : 0;
  return f ? f(3) == 0x7fffffff : 1;
}
