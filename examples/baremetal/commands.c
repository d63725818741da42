/* SPDX-License-Identifier: MIT */
/*
 * The kernel's commands, run on the host's COMMAND requests:
 *   parse EXPR   evaluate an integer expression
 *   sched N      run the scheduler for N ticks
 *   alloc N      take N blocks from the allocator (some freed again), report
 *   help         list the commands
 */
#include "hw.h"
#include "subsys.h"

struct out {
  char *buf;
  size_t len, cap;
};

static void put(struct out *o, const char *s) {
  while (*s && o->len < o->cap)
    o->buf[o->len++] = *s++;
}

static void put_num(struct out *o, long v) {
  char tmp[24];
  int n = 0;
  unsigned long u = v < 0 ? -(unsigned long)v : (unsigned long)v;
  do
    tmp[n++] = (char)('0' + u % 10);
  while ((u /= 10) && n < 23);
  if (v < 0)
    put(o, "-");
  while (n && o->len < o->cap)
    o->buf[o->len++] = tmp[--n];
}

static int word_is(const char *s, size_t n, const char *w) {
  size_t i = 0;
  for (; w[i]; i++)
    if (i >= n || s[i] != w[i])
      return 0;
  return i == n;
}

static long number(const char *s, size_t n, int *ok) {
  long v = 0;
  *ok = n > 0 && n < 10;
  for (size_t i = 0; *ok && i < n; i++) {
    if (s[i] < '0' || s[i] > '9')
      *ok = 0;
    v = v * 10 + (s[i] - '0');
  }
  return v;
}

static void cmd_alloc(struct out *o, long n) {
  void *taken[64];
  int got = 0;
  for (long i = 0; i < n && i < 64; i++) {
    void *p = kalloc((size_t)(16 + i % 48));
    if (!p)
      break;
    taken[got++] = p;
  }
  for (int i = 0; i < got; i += 2)
    kfree(taken[i]);
  put(o, "allocated ");
  put_num(o, got);
  put(o, ", free blocks ");
  put_num(o, kalloc_free_blocks());
  put(o, "\n");
  for (int i = 1; i < got; i += 2)
    kfree(taken[i]);
}

void kernel_command(const char *cmd, size_t len, char *buf, size_t cap, size_t *n) {
  struct out o = {buf, 0, cap};
  size_t w = 0;
  while (w < len && cmd[w] != ' ')
    w++;
  const char *arg = cmd + (w < len ? w + 1 : w);
  size_t arg_len = w < len ? len - w - 1 : 0;
  int ok;
  if (word_is(cmd, w, "parse")) {
    long v;
    const char *err;
    if (parse_expr(arg, arg_len, &v, &err) == 0) {
      put_num(&o, v);
      put(&o, "\n");
    } else {
      put(&o, "parse error: ");
      put(&o, err);
      put(&o, "\n");
    }
  } else if (word_is(cmd, w, "sched")) {
    long ticks = number(arg, arg_len, &ok);
    int counts[SCHED_TASKS];
    if (!ok) {
      put(&o, "usage: sched TICKS\n");
    } else {
      sched_run((int)ticks, counts);
      put(&o, "counter ");
      put_num(&o, counts[0]);
      put(&o, " worker ");
      put_num(&o, counts[1]);
      put(&o, " idle ");
      put_num(&o, counts[2]);
      put(&o, "\n");
    }
  } else if (word_is(cmd, w, "alloc")) {
    long count = number(arg, arg_len, &ok);
    if (ok)
      cmd_alloc(&o, count);
    else
      put(&o, "usage: alloc N\n");
  } else if (word_is(cmd, w, "help")) {
    put(&o, "parse EXPR | sched TICKS | alloc N | help\n");
  } else {
    put(&o, "unknown command\n");
  }
  *n = o.len;
}
