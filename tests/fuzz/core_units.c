/* SPDX-License-Identifier: MIT */
/* A gcov unit and LLVM profile sections for the runtime's harnesses (core_units.h). */
#include "core_units.h"

#include <string.h>

#include "core/pgo.h"

void __gcov_init(struct gcov_info *info);
void __gcov_merge_add(gcov_type *counters, unsigned n);
void __gcov_merge_ior(gcov_type *counters, unsigned n);

#define GCC14 0x42343420u /* "B44 " */
#define UNIT_NAME "/fuzz/unit.gcda"

static struct {
  uint32_t version;
  void *next;
  uint32_t stamp, checksum;
  const char *filename;
  gcov_merge_fn merge[9];
  unsigned n_functions;
  const struct gcov_fn_info *const *functions;
} info;

static struct fake_fn {
  const void *key;
  uint32_t ident, lineno_checksum, cfg_checksum;
  struct gcov_ctr_info ctrs[2];
} fns[2];
static const struct gcov_fn_info *fn_list[2];
static gcov_type arcs[2][3] = {{5, 0, 7}, {1, 2, 3}};
static gcov_type conds[2][2] = {{0x3, 0x1}, {0, 0x2}};

struct ucov_gcov_unit *fuzz_gcov_unit(void) {
  static int done;
  if (!done) {
    done = 1;
    info.version = GCC14;
    info.stamp = 0x1234;
    info.checksum = 0xabcd;
    info.filename = UNIT_NAME;
    info.merge[0] = __gcov_merge_add;
    info.merge[8] = __gcov_merge_ior;
    info.n_functions = 2;
    info.functions = fn_list;
    for (int i = 0; i < 2; i++) {
      fns[i].key = &info;
      fns[i].ident = 42 + (uint32_t)i;
      fns[i].lineno_checksum = 0x11;
      fns[i].cfg_checksum = 0x22;
      fns[i].ctrs[0].num = 3;
      fns[i].ctrs[0].values = arcs[i];
      fns[i].ctrs[1].num = 2;
      fns[i].ctrs[1].values = conds[i];
      fn_list[i] = (const struct gcov_fn_info *)&fns[i];
    }
    __gcov_init((struct gcov_info *)&info);
  }
  for (struct ucov_gcov_unit *u = ucov_gcov_units(); u; u = u->next)
    if (u->info == (const struct gcov_info *)&info)
      return u;
  return NULL;
}

/* A v10 data record (64 bytes). */
struct rec10 {
  uint64_t name, hash;
  int64_t cnts, bits;
  uint64_t fn;
  void *values;
  uint32_t ncnts;
  uint16_t sites[3];
  uint32_t nbits;
};

static struct rec10 recs[3];
static uint64_t cnts[6] = {10, 0, 3, 4, 0, 7};
static uint8_t bits[8];
static const uint8_t names[] = {5, 0, 'a', 'b', 'c', 'd', 'e', 0};
static struct ucov_vp_node *heads0[3];

const struct ucov_llvm_sections *fuzz_llvm_sections(void) {
  static struct ucov_llvm_sections s;
  static int done;
  if (!done) {
    done = 1;
    for (int i = 0; i < 3; i++) {
      recs[i].name = 0x9e3779b97f4a7c15ull * (uint64_t)(i + 1);
      recs[i].hash = 0x1234 + (uint64_t)i;
      recs[i].cnts = (int64_t)((uintptr_t)&cnts[2 * i] - (uintptr_t)&recs[i]);
      recs[i].bits = (int64_t)((uintptr_t)&bits[2 * i] - (uintptr_t)&recs[i]);
      recs[i].ncnts = 2;
      recs[i].nbits = i == 1 ? 2 : 0;
    }
    recs[0].values = heads0;
    recs[0].sites[0] = 2;
    recs[0].sites[2] = 1;
    s.data = (const uint8_t *)recs;
    s.data_end = (const uint8_t *)(recs + 3);
    s.cnts = cnts;
    s.cnts_end = cnts + 6;
    s.bits = bits;
    s.bits_end = bits + 6;
    s.names = names;
    s.names_end = names + 7;
    s.version = 10;
    s.name = "fuzz";
  }
  return &s;
}
