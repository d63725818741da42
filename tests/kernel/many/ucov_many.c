// SPDX-License-Identifier: MIT
/*
 * ucov_many.ko: registers `units` gcov units with ucov.ko (at most
 * MANY_MAX), each one function of four arcs with counts of its own, at
 * /ucov-many/uNNNNN.gcda: what a kernel of that many instrumented objects
 * serves through /dev/ucov, without compiling them. tests/kernel/linux.sh
 * times `ucov ls`, `pull` and `pull --reset` at two sizes. The units live in
 * this module's memory, so ucov.ko forgets them as it goes.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/types.h>

#define MANY_MAX 8192
#define ARCS 4
/* merge[]'s length in struct gcov_info (GCOV_COUNTERS) for the compiler that
 * builds this module, which the version word below names */
#if __GNUC__ == 12 || __GNUC__ == 13
#define COUNTERS 8
#elif __GNUC__ == 14
#define COUNTERS 9
#elif __GNUC__ == 15
#define COUNTERS 10
#else
#error "a compiler whose gcov layout ucov.ko does not know"
#endif

typedef s64 gcov_type;
struct many_ctr {
  u32 num;
  gcov_type *values;
};
struct many_fn {
  const void *key;
  u32 ident, lineno_checksum, cfg_checksum;
  struct many_ctr ctrs[1];
};
struct many_info {
  u32 version;
  struct many_info *next;
  u32 stamp, checksum;
  const char *filename;
  void (*merge[COUNTERS])(gcov_type *, unsigned int);
  unsigned int n_functions;
  const struct many_fn *const *functions;
};

/* ucov.ko's (kernel/linux/gcov_debugfs.c) */
void __gcov_init(struct many_info *info);
void __gcov_merge_add(gcov_type *counters, unsigned int n);

static struct many_info infos[MANY_MAX];
static struct many_fn many_fns[MANY_MAX];
static const struct many_fn *fn_of[MANY_MAX];
static gcov_type counts[MANY_MAX][ARCS];
static char names[MANY_MAX][32];

static int units = 1000;
module_param(units, int, 0444);
MODULE_PARM_DESC(units, "how many gcov units to register (at most 8192)");

static int __init many_init(void) {
  /* gcc's version word: "B22*" for 12.2 */
  u32 version = (u32)(__GNUC__ / 10 + 'A') << 24 | (u32)(__GNUC__ % 10 + '0') << 16 |
                (u32)(__GNUC_MINOR__ + '0') << 8 | '*';
  int i, k;

  if (units < 0 || units > MANY_MAX)
    return -EINVAL;
  for (i = 0; i < units; i++) {
    snprintf(names[i], sizeof(names[i]), "/ucov-many/u%05d.gcda", i);
    for (k = 0; k < ARCS; k++)
      counts[i][k] = i % 7 + k;
    many_fns[i].key = &infos[i];
    many_fns[i].ident = 1;
    many_fns[i].lineno_checksum = 0x1234 + i;
    many_fns[i].cfg_checksum = 0x5678;
    many_fns[i].ctrs[0].num = ARCS;
    many_fns[i].ctrs[0].values = counts[i];
    fn_of[i] = &many_fns[i];
    infos[i].version = version;
    infos[i].stamp = 0x6d616e79;
    infos[i].filename = names[i];
    infos[i].merge[0] = __gcov_merge_add;
    infos[i].n_functions = 1;
    infos[i].functions = &fn_of[i];
    __gcov_init(&infos[i]);
  }
  return 0;
}

static void __exit many_exit(void) {}

module_init(many_init);
module_exit(many_exit);
MODULE_LICENSE("Dual MIT/GPL");
MODULE_DESCRIPTION("ucov test: many gcov units at once");
