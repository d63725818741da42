/* SPDX-License-Identifier: MIT */
/*
 * struct gcov_info layouts of GCC 13, 14 and 15 (more counter kinds move the
 * fields after merge[]), chosen by the version word: units built by hand,
 * registered with __gcov_init, read back as .gcda through the object registry;
 * GCC 11 (no checksum word) is refused. Reset and read-and-reset by baseline.
 * A .gcda path with "..", "." or "//" in it is named as its normal form.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "core/gcov.h"
#include "ucov/port/objects.h"
#include "posix/memsink.h"
#include "ucov/port/port.h"

void __gcov_init(struct gcov_info *info);
void __gcov_merge_add(gcov_type *counters, unsigned n);
void __gcov_merge_ior(gcov_type *counters, unsigned n);

/* A unit with `nc` counter kinds: arcs, and (kind 8, GCC 14+) conditions. */
#define FAKE_INFO(nc)                                                                              \
  struct {                                                                                         \
    uint32_t version;                                                                              \
    void *next;                                                                                    \
    uint32_t stamp, checksum;                                                                      \
    const char *filename;                                                                          \
    gcov_merge_fn merge[nc];                                                                       \
    unsigned n_functions;                                                                          \
    const struct gcov_fn_info *const *functions;                                                   \
  }

struct fake_fn {
  const void *key;
  uint32_t ident, lineno_checksum, cfg_checksum;
  struct gcov_ctr_info ctrs[2];
};

static gcov_type arcs[3] = {5, 0, 7};
static gcov_type conds[2] = {0x3, 0x1};

static uint32_t word(const uint8_t *p, size_t i) {
  uint32_t v;
  memcpy(&v, p + 4 * i, 4);
  return v;
}

/* READ (or READ_AND_RESET) of an object into a fresh buffer. */
static struct ucov_mem_sink read_object(const char *name, int reset, int *err) {
  struct ucov_mem_sink s;
  ucov_mem_sink_init(&s);
  *err = ucov_object_read(name, &s.sink, reset);
  return s;
}

#define CHECK_UNIT(nc, version_word, name, with_conds, supported)                                  \
  do {                                                                                             \
    static struct fake_fn fn;                                                                      \
    static const struct gcov_fn_info *fns[1];                                                      \
    static FAKE_INFO(nc) info;                                                                     \
    info.version = version_word;                                                                   \
    info.stamp = 0x1234;                                                                           \
    info.checksum = 0xabcd;                                                                        \
    info.filename = "/fake/" name ".gcda";                                                         \
    info.merge[0] = __gcov_merge_add;                                                              \
    if (with_conds)                                                                                \
      info.merge[8] = __gcov_merge_ior;                                                            \
    info.n_functions = 1;                                                                          \
    info.functions = fns;                                                                          \
    fn.key = &info;                                                                                \
    fn.ident = 42;                                                                                 \
    fn.lineno_checksum = 0x11;                                                                     \
    fn.cfg_checksum = 0x22;                                                                        \
    fn.ctrs[0].num = 3;                                                                            \
    fn.ctrs[0].values = arcs;                                                                      \
    fn.ctrs[1].num = 2;                                                                            \
    fn.ctrs[1].values = conds;                                                                     \
    fns[0] = (const struct gcov_fn_info *)&fn;                                                     \
    __gcov_init((struct gcov_info *)&info);                                                        \
    int err_;                                                                                      \
    struct ucov_mem_sink s_ = read_object("gcov/fake/" name ".gcda", 0, &err_);                    \
    CHECK_EQ(err_, (supported) ? 0 : -UCOV_ENOENT); /* an unsupported GCC is not registered */     \
    CHECK((s_.len >= 4 * 15) == (supported));                                                      \
    if (s_.len >= 4 * 15) {                                                                        \
      CHECK_EQ(word(s_.data, 0), GCOV_DATA_MAGIC);                                                 \
      CHECK_EQ(word(s_.data, 1), version_word);                                                    \
      CHECK_EQ(word(s_.data, 2), 0x1234);                                                          \
      CHECK_EQ(word(s_.data, 3), 0xabcd);                                                          \
      CHECK_EQ(word(s_.data, 4), GCOV_TAG_OBJECT_SUMMARY);                                         \
      CHECK_EQ(word(s_.data, 6), 1); /* runs */                                                    \
      CHECK_EQ(word(s_.data, 7), 7); /* sum_max: the largest arc */                                \
      CHECK_EQ(word(s_.data, 8), GCOV_TAG_FUNCTION);                                               \
      CHECK_EQ(word(s_.data, 10), 42);                                                             \
      CHECK_EQ(word(s_.data, 13), GCOV_TAG_FOR_COUNTER(0));                                        \
      CHECK_EQ(word(s_.data, 14), 24);                                                             \
      CHECK_EQ(word(s_.data, 15), 5);                                                              \
      CHECK_EQ(word(s_.data, 19), 7);                                                              \
      size_t conds_at = 21;                                                                        \
      if (with_conds) {                                                                            \
        CHECK_EQ(word(s_.data, conds_at), GCOV_TAG_FOR_COUNTER(8));                                \
        CHECK_EQ(word(s_.data, conds_at + 1), 16);                                                 \
        CHECK_EQ(word(s_.data, conds_at + 2), 3);                                                  \
        conds_at += 6;                                                                             \
      }                                                                                            \
      CHECK_EQ(word(s_.data, conds_at), 0); /* end */                                              \
      CHECK_EQ(s_.len, 4 * (conds_at + 1));                                                        \
    }                                                                                              \
    ucov_mem_sink_free(&s_);                                                                       \
  } while (0)

static void test_reset(void) {
  int err;
  /* Read-and-reset, then counts since: arcs all zero (negative length), conds as they are. */
  struct ucov_mem_sink s = read_object("gcov/fake/gcc14.gcda", 1, &err);
  CHECK_EQ(err, 0);
  ucov_mem_sink_free(&s);
  arcs[1] += 4;
  s = read_object("gcov/fake/gcc14.gcda", 0, &err);
  CHECK_EQ(word(s.data, 15), 0);
  CHECK_EQ(word(s.data, 17), 4);
  ucov_mem_sink_free(&s);
  CHECK_EQ(ucov_object_reset("gcov/fake/gcc14.gcda"), 0);
  s = read_object("gcov/fake/gcc14.gcda", 0, &err);
  CHECK_EQ(word(s.data, 14), (uint32_t)-24); /* all zero: no values */
  CHECK_EQ(word(s.data, 15), GCOV_TAG_FOR_COUNTER(8));
  ucov_mem_sink_free(&s);
  /* The live counters were never written. */
  CHECK_EQ(arcs[0], 5);
  CHECK_EQ(arcs[1], 4);
  CHECK_EQ(ucov_object_reset("gcov/fake/none.gcda"), -UCOV_ENOENT);
}

/* A .gcda path that is not normal (gcc's, for a unit built from ../x.c into
 * a directory of its own) is listed and read by its normal name, as Linux's
 * kernel/gcov names its file; the name as gcc gave it is none. */
static int listed(const char *name, uint64_t size, void *arg) {
  (void)size;
  if (!strcmp(name, "gcov/fake/norm/gcc14n.gcda") || !strcmp(name, "gcov/../../rel14.gcda") ||
      !strcmp(name, "gcov/root14.gcda"))
    ++*(int *)arg;
  else if (strstr(name, "..") || strstr(name, "/./") || strstr(name, "//"))
    *(int *)arg += 100;
  return 0;
}

/* Another unit like the first, of .gcda path `filename`. */
static void register_named(const char *filename) {
  static struct fake_fn fn[2];
  static const struct gcov_fn_info *fns[2][1];
  static FAKE_INFO(9) info[2];
  static int k;
  info[k].version = 0x4234302a;
  info[k].filename = filename;
  info[k].merge[0] = __gcov_merge_add;
  info[k].n_functions = 1;
  info[k].functions = fns[k];
  fn[k].key = &info[k];
  fn[k].ctrs[0].num = 3;
  fn[k].ctrs[0].values = arcs;
  fns[k][0] = (const struct gcov_fn_info *)&fn[k];
  __gcov_init((struct gcov_info *)&info[k]);
  k++;
}

static void test_normal_names(void) {
  static struct fake_fn fn;
  static const struct gcov_fn_info *fns[1];
  static FAKE_INFO(9) info;
  info.version = 0x4234302a;
  info.filename = "/fake/sub/../norm/./gcc14n.gcda";
  info.merge[0] = __gcov_merge_add;
  info.n_functions = 1;
  info.functions = fns;
  fn.key = &info;
  fn.ident = 7;
  fn.ctrs[0].num = 3;
  fn.ctrs[0].values = arcs;
  fns[0] = (const struct gcov_fn_info *)&fn;
  __gcov_init((struct gcov_info *)&info);
  /* a relative name's leading ".." stay, one does not take another away;
   * "/.." is "/" */
  register_named("../../rel14.gcda");
  register_named("/../root14.gcda");
  int n = 0, err;
  CHECK_EQ(ucov_objects_list(listed, &n), 0);
  CHECK_EQ(n, 3);
  struct ucov_mem_sink s = read_object("gcov/fake/norm/gcc14n.gcda", 0, &err);
  CHECK_EQ(err, 0);
  CHECK(s.len > 4 * 8 && word(s.data, 0) == GCOV_DATA_MAGIC);
  ucov_mem_sink_free(&s);
  s = read_object("gcov/fake/sub/../norm/./gcc14n.gcda", 0, &err);
  CHECK_EQ(err, -UCOV_ENOENT);
  ucov_mem_sink_free(&s);
  CHECK_EQ(ucov_object_reset("gcov/fake/norm/gcc14n.gcda"), 0);
}

int main(void) {
  setenv("UCOV_CONTROL", "0", 1);
  CHECK_UNIT(8, 0x4233302a, "gcc13", 0, 1);  /* "B30*" */
  CHECK_UNIT(9, 0x4234302a, "gcc14", 1, 1);  /* "B40*" */
  CHECK_UNIT(10, 0x4235302a, "gcc15", 1, 1); /* "B50*" */
  CHECK_UNIT(8, 0x4231302a, "gcc11", 0, 0);  /* "B10*": GCC 11, refused */
  test_reset();
  test_normal_names();
  return check_report("test_gcov_layouts");
}
