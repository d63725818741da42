/* SPDX-License-Identifier: MIT */
/*
 * LLVM raw profile layouts, built by hand: the version read from the data
 * records (48-byte v8; 64-byte v10, or v9 when the bitmap sizes sit at v9's
 * offset), versions and variants refused, records that do not match their
 * counters refused; the value profiler's policy (a full site hands its
 * coldest node to a new value, memop size ranges); and merging into a pool:
 * every truncation and corruption of an old profile is refused or read
 * safely, never read out of bounds (this test runs under ASan too).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "core/pgo.h"
#include "posix/memsink.h"
#include "ucov/port/port.h"

struct rec8 {
  uint64_t name, hash;
  int64_t cnts;
  uint64_t fn;
  void *values;
  uint32_t ncnts;
  uint16_t sites[2];
};
struct rec9 {
  uint64_t name, hash;
  int64_t cnts, bits;
  uint64_t fn;
  void *values;
  uint32_t ncnts;
  uint16_t sites[2];
  uint32_t nbits;
};
struct rec10 {
  uint64_t name, hash;
  int64_t cnts, bits;
  uint64_t fn;
  void *values;
  uint32_t ncnts;
  uint16_t sites[3];
  uint32_t nbits;
};
_Static_assert(sizeof(struct rec8) == 48, "v8 record");
_Static_assert(sizeof(struct rec9) == 64, "v9 record");
_Static_assert(sizeof(struct rec10) == 64, "v10 record");

static uint64_t cnts[6];
static uint8_t bits[4];
static const uint8_t names[] = {5, 0, 'a', 'b', 'c', 'd', 'e', 0};

#define FILL(r, i, n_cnts, cnt_at)                                                                 \
  do {                                                                                             \
    (r).name = 0x9e3779b97f4a7c15ull * ((i) + 1);                                                  \
    (r).hash = 0x1234 + (i);                                                                       \
    (r).cnts = (int64_t)((uintptr_t)&cnts[cnt_at] - (uintptr_t) & (r));                            \
    (r).ncnts = n_cnts;                                                                            \
  } while (0)

static struct ucov_llvm_sections sections(const void *data, size_t size) {
  struct ucov_llvm_sections s;
  memset(&s, 0, sizeof(s));
  s.data = data;
  s.data_end = (const uint8_t *)data + size;
  s.cnts = cnts;
  s.cnts_end = cnts + 6;
  s.names = names;
  s.names_end = names + 7;
  s.name = "t";
  return s;
}

static void test_versions(void) {
  struct ucov_pgo_layout l;
  /* Four v8 records and three v10 ones take 192 bytes alike. */
  static struct rec8 r8[4];
  for (int i = 0; i < 4; i++)
    FILL(r8[i], i, 1, i);
  struct ucov_llvm_sections s = sections(r8, sizeof(r8));
  CHECK_EQ(ucov_pgo_layout(&s, &l), 0);
  CHECK_EQ(l.version, 8);
  CHECK_EQ(l.header_words, 11);

  static struct rec10 r10[3];
  for (int i = 0; i < 3; i++)
    FILL(r10[i], i, 2, 2 * i);
  s = sections(r10, sizeof(r10));
  CHECK_EQ(ucov_pgo_layout(&s, &l), 0);
  CHECK_EQ(l.version, 10);
  CHECK_EQ(l.kinds, 3);
  /* With bitmaps, their sizes tell 9 from 10. */
  r10[1].nbits = 4;
  s.bits = bits;
  s.bits_end = bits + 4;
  CHECK_EQ(ucov_pgo_layout(&s, &l), 0);
  CHECK_EQ(l.version, 10);
  static struct rec9 r9[3];
  for (int i = 0; i < 3; i++)
    FILL(r9[i], i, 2, 2 * i);
  r9[2].nbits = 4;
  s = sections(r9, sizeof(r9));
  s.bits = bits;
  s.bits_end = bits + 4;
  CHECK_EQ(ucov_pgo_layout(&s, &l), 0);
  CHECK_EQ(l.version, 9);
  CHECK_EQ(l.header_words, 14);

  /* The version symbol decides; with its variant bits kept in the header. */
  s = sections(r10, sizeof(r10));
  s.version = 10 | 1ull << 56; /* IR-level */
  CHECK_EQ(ucov_pgo_layout(&s, &l), 0);
  CHECK_EQ(l.version, 10 | 1ull << 56);
  s.version = 8; /* but 64-byte records are not v8's */
  CHECK_EQ(ucov_pgo_layout(&s, &l), -UCOV_EINVAL);
  s.version = 7;
  CHECK_EQ(ucov_pgo_layout(&s, &l), -UCOV_EOPNOTSUPP);
  s.version = 10 | 1ull << 60; /* single-byte counters */
  CHECK_EQ(ucov_pgo_layout(&s, &l), -UCOV_EOPNOTSUPP);
  /* Records whose counters lie elsewhere, or a cut record. */
  s.version = 0;
  r10[2].cnts += 4096;
  CHECK_EQ(ucov_pgo_layout(&s, &l), -UCOV_EINVAL);
  r10[2].cnts -= 4096;
  s.data_end -= 8;
  CHECK_EQ(ucov_pgo_layout(&s, &l), -UCOV_EINVAL);
}

/* Value sites of the profile written below: record 0 has 2 indirect-call
 * sites and 1 memop site, record 1 none, record 2 one indirect-call site. */
static struct rec10 vr[3];
static struct ucov_vp_node *heads0[3], *heads2[1];
static struct ucov_vp_node vnds[9];

/* Called through pointers: clang -O2 drops direct calls to these names (LLVM
 * knows them as its own instrumentation's). */
static void (*volatile target)(uint64_t, void *, uint32_t) = __llvm_profile_instrument_target;
static void (*volatile target_value)(uint64_t, void *, uint32_t,
                                     uint64_t) = __llvm_profile_instrument_target_value;
static void (*volatile memop)(uint64_t, void *, uint32_t) = __llvm_profile_instrument_memop;

static unsigned site_values(struct ucov_vp_node *n, uint64_t value, uint64_t *count) {
  unsigned k = 0;
  *count = 0;
  for (; n; n = n->next, k++)
    if (n->value == value)
      *count = n->count;
  return k;
}

static void test_values(void) {
  for (int i = 0; i < 3; i++)
    FILL(vr[i], i, 2, 2 * i);
  vr[0].values = heads0;
  vr[0].sites[0] = 2;
  vr[0].sites[1] = 1;
  vr[2].values = heads2;
  vr[2].sites[0] = 1;
  struct ucov_llvm_sections s = sections(vr, sizeof(vr));
  s.vnds = vnds;
  /* The section may end in padding (clang aligns it to 16): 8 whole nodes. */
  s.vnds_end = (struct ucov_vp_node *)((char *)(vnds + 8) + 8);
  struct ucov_pgo_layout l;
  CHECK_EQ(ucov_pgo_layout(&s, &l), 0);
  ucov_vp_setup(&s, &l, 2);
  CHECK_EQ(ucov_vp_nodes(), 8 + UCOV_VP_POOL_NODES);

  /* Two values fit the site; a third takes the coldest node once it is cold enough. */
  uint64_t c;
  for (int i = 0; i < 5; i++)
    target(0xa, &vr[0], 0);
  target(0xb, &vr[0], 0);
  target_value(0xb, &vr[0], 0, 2);
  CHECK_EQ(site_values(heads0[0], 0xb, &c), 2);
  CHECK_EQ(c, 3);
  target(0xc, &vr[0], 0); /* b (3) cools to 2 */
  CHECK_EQ(site_values(heads0[0], 0xb, &c), 2);
  CHECK_EQ(c, 2);
  target_value(0xc, &vr[0], 0, 2); /* b (2) <= 2: replaced */
  CHECK_EQ(site_values(heads0[0], 0xc, &c), 2);
  CHECK_EQ(c, 2);
  CHECK_EQ(site_values(heads0[0], 0xb, &c), 2);
  CHECK_EQ(c, 0);
  CHECK_EQ(site_values(heads0[0], 0xa, &c), 2);
  CHECK_EQ(c, 5);
  /* Memop sizes by range: 0-8 and powers of two as they are, others down to
   * the power of two below plus one, 513 and up as 513. */
  static const uint64_t size[] = {0, 8, 16, 100, 4096};
  static const uint64_t rep[] = {0, 8, 16, 65, 513};
  for (int i = 0; i < 5; i++) {
    heads0[2] = 0;
    memop(size[i], &vr[0], 2);
    CHECK(heads0[2] && heads0[2]->value == rep[i]);
  }
  target(0x77, &vr[2], 0);
  target(0x77, 0, 0);                  /* no record: nothing */
  CHECK_EQ(ucov_vp_used(), 2 + 5 + 1); /* a and b (c took b's), 5 memop sizes, 0x77 */
  CHECK_EQ(ucov_vp_dropped(), 0);

  cnts[0] = 10;
  cnts[5] = 7;
  struct ucov_mem_sink one, two;
  ucov_mem_sink_init(&one);
  ucov_mem_sink_init(&two);
  CHECK_EQ(ucov_pgo_write(&one.sink, &s, 0), 0);
  /* Merged into itself: counters and value counts double. */
  CHECK_EQ(ucov_pgo_write_merged(&two.sink, &s, 0, one.data, one.len), 0);
  CHECK_EQ(two.len, one.len);
  uint64_t hdr = 16 * 8 + 0 /* no build-id */ + sizeof(vr), v;
  memcpy(&v, two.data + hdr, 8);
  CHECK_EQ(v, 20);
  memcpy(&v, two.data + hdr + 5 * 8, 8);
  CHECK_EQ(v, 14);
  /* Record 0's value data: {total, kinds}, kind 0 {0, 2 sites, counts 2 0,
   * pad}, its 2 values; kind 1 {1, 1 site, count 1, pad}, 1 value. */
  size_t vat = hdr + 6 * 8 + 8 /* names, padded */;
  uint32_t w[2];
  memcpy(w, two.data + vat, 8);
  CHECK_EQ(w[0], 8 + 16 + 2 * 16 + 16 + 16);
  CHECK_EQ(w[1], 2);
  CHECK_EQ(two.data[vat + 16], 2);
  memcpy(&v, two.data + vat + 24 + 8, 8); /* the first value's count: a, 5 twice */
  CHECK_EQ(v, 10);

  /* Every truncation of the old profile is refused, and writes nothing. */
  int refused = 0;
  for (size_t n = 0; n < one.len; n++) {
    struct ucov_mem_sink t;
    ucov_mem_sink_init(&t);
    uint8_t *cut = malloc(n ? n : 1);
    memcpy(cut, one.data, n);
    refused += ucov_pgo_write_merged(&t.sink, &s, 0, cut, n) == -UCOV_EINVAL && t.len == 0;
    free(cut);
    ucov_mem_sink_free(&t);
  }
  CHECK_EQ(refused, one.len);
  /* Every byte of the value data changed: refused or read within bounds. */
  for (size_t at = vat; at < one.len; at++) {
    struct ucov_mem_sink t;
    ucov_mem_sink_init(&t);
    uint8_t *bad = malloc(one.len);
    memcpy(bad, one.data, one.len);
    bad[at] ^= 0xff;
    int err = ucov_pgo_write_merged(&t.sink, &s, 0, bad, one.len);
    CHECK(err == 0 || err == -UCOV_EINVAL);
    free(bad);
    ucov_mem_sink_free(&t);
  }

  /* A reset: counters and value counts start again; the live ones are untouched. */
  CHECK_EQ(ucov_pgo_reset(&s), 0);
  target(0xa, &vr[0], 0);
  struct ucov_mem_sink three;
  ucov_mem_sink_init(&three);
  CHECK_EQ(ucov_pgo_write(&three.sink, &s, 0), 0);
  memcpy(&v, three.data + hdr, 8);
  CHECK_EQ(v, 0);
  memcpy(&v, three.data + vat + 24 + 8, 8);
  CHECK_EQ(v, 1);
  CHECK_EQ(cnts[0], 10);
  CHECK_EQ(site_values(heads0[0], 0xa, &c), 2);
  CHECK_EQ(c, 6);
  ucov_mem_sink_free(&one);
  ucov_mem_sink_free(&two);
  ucov_mem_sink_free(&three);
}

int main(void) {
  setenv("UCOV_CONTROL", "0", 1);
  test_versions();
  test_values();
  return check_report("test_pgo_layouts");
}
