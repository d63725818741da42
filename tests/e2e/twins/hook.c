/* The hooks of tests/e2e/twins_gcc.sh's program: each counted, the counts
 * printed at exit. */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>

static unsigned long pcs, cmps, enters, exits;

static void report(void) {
  fprintf(stderr, "hooks pc %lu cmp %lu enter %lu exit %lu\n", pcs, cmps, enters, exits);
}

__attribute__((constructor)) static void start(void) {
  atexit(report);
}

void __sanitizer_cov_trace_pc(void) {
  pcs++;
}
#define CMP(name, type)                                                                            \
  void __sanitizer_cov_trace_##name(type a, type b) {                                              \
    (void)a, (void)b, cmps++;                                                                      \
  }
CMP(cmp1, uint8_t)
CMP(cmp2, uint16_t)
CMP(cmp4, uint32_t)
CMP(cmp8, uint64_t)
CMP(const_cmp1, uint8_t)
CMP(const_cmp2, uint16_t)
CMP(const_cmp4, uint32_t)
CMP(const_cmp8, uint64_t)
CMP(cmpf, float)
CMP(cmpd, double)
void __sanitizer_cov_trace_switch(uint64_t v, uint64_t *cases) {
  (void)v, (void)cases, cmps++;
}
void __cyg_profile_func_enter(void *fn, void *site) {
  (void)fn, (void)site, enters++;
}
void __cyg_profile_func_exit(void *fn, void *site) {
  (void)fn, (void)site, exits++;
}
