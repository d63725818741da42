/* SPDX-License-Identifier: MIT */
/* The object registry and its operations (see objects.h). */
#include "objects.h"

#include "device.h"
#include "writer.h"
#include "gcov.h"
#include "gcov_llvm.h"
#include "pgo.h"
#include "task.h"
#include "ucov/port.h"

#define MODULES_NAME "modules"
/* Xen's coverage blob (xencov read, xencov_split): u32 magic "XCOV", then for
 * each gcov unit its .gcda path with a NUL, u32 size and the .gcda bytes;
 * words in the target's order, as Xen writes them. */
#define XENCOV_NAME "xencov"
#define XENCOV_MAGIC 0x58434f56u

/* "gcov" + an absolute .gcda path, "gcov/" + a relative one. */
static UCOV_NOTRACE int gcov_name(const char *filename, char *out, size_t len) {
  const char *prefix = filename[0] == '/' ? "gcov" : "gcov/";
  size_t n = 0;
  for (const char *p = prefix; *p; p++)
    out[n++] = *p;
  for (const char *p = filename; *p; p++) {
    if (n + 1 >= len)
      return -1;
    out[n++] = *p;
  }
  out[n] = 0;
  return 0;
}

UCOV_NOTRACE int ucov_gcov_object_name(const struct ucov_gcov_unit *u, char *out, size_t len) {
  return gcov_name(u->info->filename, out, len);
}

UCOV_NOTRACE int ucov_llvm_object_name(const struct ucov_llvm_unit *u, char *out, size_t len) {
  return gcov_name(u->filename, out, len);
}

static UCOV_NOTRACE int str_eq(const char *a, const char *b) {
  while (*a && *a == *b)
    a++, b++;
  return *a == *b;
}

/* "pgo/<module>.profraw" of module i's LLVM profile: 0; 1 if that module
 * was unloaded; -1 past the last. */
static UCOV_NOTRACE int pgo_object(unsigned i, struct ucov_llvm_sections *s, char *name,
                                   size_t len) {
  int r = ucov_port_llvm_sections(i, s);
  if (r)
    return r;
  static const char pre[] = "pgo/", post[] = ".profraw";
  size_t n = 0;
  for (const char *p = pre; *p; p++)
    name[n++] = *p;
  for (const char *p = s->name; *p && n + sizeof(post) < len; p++)
    name[n++] = *p;
  for (const char *p = post; *p; p++)
    name[n++] = *p;
  name[n] = 0;
  return 0;
}

/* A gcov unit of either compiler. */
struct unit_ref {
  struct ucov_gcov_unit *gcc;
  struct ucov_llvm_unit *llvm;
};

/* The unit named `name` (both NULL if none). Lock held. */
static UCOV_NOTRACE struct unit_ref find_unit(const char *name) {
  char buf[UCOV_OBJECT_NAME_MAX];
  struct unit_ref r = {0, 0};
  for (struct ucov_gcov_unit *u = ucov_gcov_units(); u && !r.gcc; u = u->next)
    if (!ucov_gcov_object_name(u, buf, sizeof(buf)) && str_eq(buf, name))
      r.gcc = u;
  for (struct ucov_llvm_unit *u = ucov_llvm_units(); u && !r.gcc && !r.llvm; u = u->next)
    if (!ucov_llvm_object_name(u, buf, sizeof(buf)) && str_eq(buf, name))
      r.llvm = u;
  return r;
}

/* A live read: one run (and for gcc, sum_max of what is being read program-wide). */
static UCOV_NOTRACE int read_unit(struct unit_ref r, struct ucov_sink *sink, int reset) {
  unsigned flags = reset ? UCOV_GCOV_RESET : 0;
  if (r.llvm)
    return ucov_llvm_write(sink, r.llvm, 0, 0, 1, flags);
  if (!r.gcc)
    return -UCOV_ENOENT;
  struct ucov_gcov_summary sum = {1, ucov_gcov_run_max()};
  return ucov_gcov_write(sink, r.gcc, &sum, 0, flags);
}

static UCOV_NOTRACE int reset_unit(struct unit_ref r) {
  if (r.llvm)
    return ucov_llvm_reset(r.llvm);
  return r.gcc ? ucov_gcov_reset(r.gcc) : -UCOV_ENOENT;
}

/* ---- the xencov blob: every gcov unit, as Xen's sysctl returns them ---- */

static UCOV_NOTRACE int xencov_record(struct ucov_sink *sink, const char *filename,
                                      struct unit_ref r, int reset) {
  /* The unit whole first: its size leads it, and counts move meanwhile. */
  struct ucov_buf_sink unit;
  ucov_buf_sink_init(&unit);
  int err = read_unit(r, &unit.sink, reset);
  size_t n = 0;
  while (filename[n])
    n++;
  uint32_t size = (uint32_t)unit.len;
  if (!err)
    err = sink->write(sink, filename, n + 1);
  if (!err)
    err = sink->write(sink, &size, 4);
  if (!err && unit.len)
    err = sink->write(sink, unit.buf, unit.len);
  ucov_port_free(unit.buf);
  return err;
}

static UCOV_NOTRACE int xencov_write(struct ucov_sink *sink, int reset) {
  uint32_t magic = XENCOV_MAGIC;
  int err = sink->write(sink, &magic, 4);
  for (struct ucov_gcov_unit *u = ucov_gcov_units(); u && !err; u = u->next)
    err = xencov_record(sink, u->info->filename, (struct unit_ref){u, 0}, reset);
  for (struct ucov_llvm_unit *u = ucov_llvm_units(); u && !err; u = u->next)
    err = xencov_record(sink, u->filename, (struct unit_ref){0, u}, reset);
  return err;
}

/* ---- trace buffers: "kcov/<id>.kcov", the area of a KCOV device in PC mode ---- */

static UCOV_NOTRACE int is_pc_trace(const struct ucov_device *dev) {
  return dev->area && (dev->last_mode & UCOV_TASK_PC) &&
         !(dev->last_mode & (UCOV_TASK_CMP | UCOV_TASK_UNIQUE));
}

static UCOV_NOTRACE void trace_name(uint32_t id, char *out) {
  static const char pre[] = "kcov/", post[] = ".kcov";
  char digits[10];
  int n = 0, o = 0;
  do
    digits[n++] = (char)('0' + id % 10);
  while ((id /= 10) && n < 10);
  for (int i = 0; pre[i]; i++)
    out[o++] = pre[i];
  while (n)
    out[o++] = digits[--n];
  for (int i = 0; post[i]; i++)
    out[o++] = post[i];
  out[o] = 0;
}

/* The device a trace object name names, or NULL. */
static UCOV_NOTRACE struct ucov_device *trace_find(const char *name) {
  char buf[32];
  uint32_t id;
  for (struct ucov_device *d = ucov_port_device_next(0, &id); d;
       d = ucov_port_device_next(d, &id)) {
    trace_name(id, buf);
    if (is_pc_trace(d) && str_eq(buf, name))
      return d;
  }
  return 0;
}

/*
 * The area as a KCOV buffer dump: the count word, then that many PCs. With
 * reset the count is exchanged with 0 first, as a KCOV client resets its
 * buffer: PCs appended from then on are the next read's.
 */
/* The count n (bounded by the area, *n set to it) and that many PCs. */
static UCOV_RACY_READS UCOV_NOTRACE int trace_dump(struct ucov_sink *sink, struct ucov_device *dev,
                                                   uint64_t *n) {
  if (*n > dev->size - 1)
    *n = dev->size - 1;
  struct ucov_writer o;
  ucov_w_init(&o, sink);
  ucov_w_u64(&o, *n);
  for (uint64_t i = 1; i <= *n; i++)
    ucov_w_u64(&o, UCOV_LOAD_RACY(&dev->area[i]));
  ucov_w_flush(&o);
  return o.err;
}

static UCOV_RACY_READS UCOV_NOTRACE int trace_write(struct ucov_sink *sink, struct ucov_device *dev,
                                                    int reset) {
  uint64_t n = reset ? UCOV_TAKE_RACY(&dev->area[0]) : UCOV_LOAD_RACY(&dev->area[0]);
  return trace_dump(sink, dev, &n);
}

UCOV_NOTRACE int ucov_objects_list(int (*fn)(const char *name, uint64_t size, void *arg),
                                   void *arg) {
  char name[UCOV_OBJECT_NAME_MAX];
  int ret = 0;
  struct ucov_count_sink count;
  ucov_port_lock();
  if (ucov_gcov_exited()) {
    ucov_port_unlock();
    return -UCOV_ESHUTDOWN;
  }
  ucov_count_sink_init(&count);
  if (ucov_port_modules_write(&count.sink) == 0)
    ret = fn(MODULES_NAME, count.bytes, arg);
  ucov_count_sink_init(&count);
  if (!ret && (ucov_gcov_units() || ucov_llvm_units()) && xencov_write(&count.sink, 0) == 0)
    ret = fn(XENCOV_NAME, count.bytes, arg);
  struct ucov_llvm_sections pgo;
  for (unsigned i = 0, r; !ret && (r = (unsigned)pgo_object(i, &pgo, name, sizeof(name))) != ~0u;
       i++) {
    ucov_count_sink_init(&count);
    if (r == 0 && ucov_pgo_write(&count.sink, &pgo, 0) == 0)
      ret = fn(name, count.bytes, arg);
  }
  for (struct ucov_gcov_unit *u = ucov_gcov_units(); u && !ret; u = u->next) {
    struct unit_ref r = {u, 0};
    ucov_count_sink_init(&count);
    if (!ucov_gcov_object_name(u, name, sizeof(name)) && read_unit(r, &count.sink, 0) == 0)
      ret = fn(name, count.bytes, arg);
  }
  for (struct ucov_llvm_unit *u = ucov_llvm_units(); u && !ret; u = u->next) {
    struct unit_ref r = {0, u};
    ucov_count_sink_init(&count);
    if (!ucov_llvm_object_name(u, name, sizeof(name)) && read_unit(r, &count.sink, 0) == 0)
      ret = fn(name, count.bytes, arg);
  }
  uint32_t id;
  for (struct ucov_device *d = ucov_port_device_next(0, &id); d && !ret;
       d = ucov_port_device_next(d, &id)) {
    if (!is_pc_trace(d))
      continue;
    ucov_count_sink_init(&count);
    trace_name(id, name);
    if (trace_write(&count.sink, d, 0) == 0)
      ret = fn(name, count.bytes, arg);
  }
  ucov_port_unlock();
  return ret;
}

/* Is name a module's LLVM profile object? Fills *s if so. */
static UCOV_NOTRACE int is_pgo(const char *name, struct ucov_llvm_sections *s) {
  char buf[UCOV_OBJECT_NAME_MAX];
  for (unsigned i = 0, r; (r = (unsigned)pgo_object(i, s, buf, sizeof(buf))) != ~0u; i++)
    if (r == 0 && str_eq(buf, name))
      return 1;
  return 0;
}

UCOV_NOTRACE int ucov_object_read(const char *name, struct ucov_sink *sink, int reset) {
  struct ucov_llvm_sections pgo;
  struct ucov_device *trace;
  int ret;
  ucov_port_lock();
  if (ucov_gcov_exited()) {
    ret = -UCOV_ESHUTDOWN;
  } else if (str_eq(name, MODULES_NAME)) {
    ret = reset ? -UCOV_EOPNOTSUPP : ucov_port_modules_write(sink);
  } else if (str_eq(name, XENCOV_NAME)) {
    ret = xencov_write(sink, reset);
  } else if (is_pgo(name, &pgo)) {
    ret = ucov_pgo_write(sink, &pgo, reset);
  } else if ((trace = trace_find(name))) {
    ret = trace_write(sink, trace, reset);
  } else {
    ret = read_unit(find_unit(name), sink, reset);
  }
  ucov_port_unlock();
  return ret;
}

UCOV_NOTRACE int ucov_object_size(const char *name, uint64_t *size) {
  struct ucov_count_sink count;
  ucov_count_sink_init(&count);
  int ret = ucov_object_read(name, &count.sink, 0);
  *size = count.bytes;
  return ret;
}

UCOV_NOTRACE int ucov_object_reset(const char *name) {
  struct ucov_llvm_sections pgo;
  struct ucov_device *trace;
  int ret;
  ucov_port_lock();
  if (ucov_gcov_exited()) {
    ret = -UCOV_ESHUTDOWN;
  } else if (str_eq(name, MODULES_NAME)) {
    ret = -UCOV_EOPNOTSUPP;
  } else if (str_eq(name, XENCOV_NAME)) { /* Xen's reset: every gcov unit */
    ret = 0;
    for (struct ucov_gcov_unit *u = ucov_gcov_units(); u && !ret; u = u->next)
      ret = ucov_gcov_reset(u);
    for (struct ucov_llvm_unit *u = ucov_llvm_units(); u && !ret; u = u->next)
      ret = ucov_llvm_reset(u);
  } else if (is_pgo(name, &pgo)) {
    ret = ucov_pgo_reset(&pgo);
  } else if ((trace = trace_find(name))) {
    UCOV_TAKE_RACY(&trace->area[0]);
    ret = 0;
  } else {
    ret = reset_unit(find_unit(name));
  }
  ucov_port_unlock();
  return ret;
}

UCOV_NOTRACE int ucov_objects_reset_all(void) {
  int ret = 0;
  ucov_port_lock();
  if (ucov_gcov_exited()) {
    ucov_port_unlock();
    return -UCOV_ESHUTDOWN;
  }
  for (struct ucov_gcov_unit *u = ucov_gcov_units(); u; u = u->next) {
    int err = ucov_gcov_reset(u);
    if (err && !ret)
      ret = err;
  }
  for (struct ucov_llvm_unit *u = ucov_llvm_units(); u; u = u->next) {
    int err = ucov_llvm_reset(u);
    if (err && !ret)
      ret = err;
  }
  struct ucov_llvm_sections pgo;
  for (unsigned i = 0, r; (r = (unsigned)ucov_port_llvm_sections(i, &pgo)) != ~0u; i++) {
    int err = r ? 0 : ucov_pgo_reset(&pgo);
    if (err && !ret)
      ret = err;
  }
  ucov_port_unlock();
  return ret;
}

/* ------------------------------------------------------ two-phase reset */

static uint64_t last_token; /* tokens issued: 1 .. last_token */
#define COMMITTED_MAX 256   /* committed tokens remembered, for retried commits */
static uint64_t committed[COMMITTED_MAX];
static unsigned n_committed; /* how many were ever committed */

static UCOV_NOTRACE int token_committed(uint64_t token) {
  unsigned n = n_committed < COMMITTED_MAX ? n_committed : COMMITTED_MAX;
  for (unsigned i = 0; i < n; i++)
    if (committed[i] == token)
      return 1;
  return 0;
}

static UCOV_RACY_READS UCOV_NOTRACE int trace_snapshot(struct ucov_sink *sink,
                                                       struct ucov_device *dev, uint64_t token) {
  uint64_t n = UCOV_LOAD_RACY(&dev->area[0]);
  int err = trace_dump(sink, dev, &n);
  dev->pending_count = n;
  dev->pending_token = err ? 0 : token;
  return err;
}

/* The snapshot of one object by its kind. Lock held. */
static UCOV_NOTRACE int snapshot_one(const char *name, struct ucov_sink *sink, uint64_t token) {
  struct ucov_llvm_sections pgo;
  struct ucov_device *trace;
  struct unit_ref r;
  if (is_pgo(name, &pgo))
    return ucov_pgo_snapshot(sink, &pgo, token);
  if ((trace = trace_find(name)))
    return trace_snapshot(sink, trace, token);
  if ((r = find_unit(name)).llvm)
    return ucov_llvm_snapshot(sink, r.llvm, token);
  if (!r.gcc)
    return -UCOV_ENOENT;
  struct ucov_gcov_summary sum = {1, ucov_gcov_run_max()};
  return ucov_gcov_snapshot(sink, r.gcc, &sum, token);
}

UCOV_NOTRACE int ucov_object_snapshot(const char *name, struct ucov_sink *sink, uint64_t *token) {
  int ret;
  ucov_port_lock();
  if (ucov_gcov_exited()) {
    ret = -UCOV_ESHUTDOWN;
  } else if (*token > last_token || (*token && token_committed(*token))) {
    ret = -UCOV_EINVAL;
  } else if (str_eq(name, MODULES_NAME) || str_eq(name, XENCOV_NAME)) {
    ret = -UCOV_EOPNOTSUPP; /* (xencov: snapshot its units, each an object) */
  } else {
    if (!*token)
      *token = ++last_token;
    uint8_t t[8];
    for (int i = 0; i < 8; i++)
      t[i] = (uint8_t)(*token >> (8 * i));
    ret = sink->write(sink, t, sizeof(t));
    if (!ret)
      ret = snapshot_one(name, sink, *token);
  }
  ucov_port_unlock();
  return ret;
}

/* What a commit does to each object with a pending snapshot of its token. */
enum { COMMIT_COUNT, COMMIT_APPLY, COMMIT_DROP };

/*
 * One object's part in a walk: is it in token's set (counted in *n, *stale
 * noted)? 1 if the walk applies it; a drop forgets its snapshot here.
 */
static UCOV_NOTRACE int walk_one(uint64_t *pending_token, int stale_one, uint64_t token, int what,
                                 uint32_t *n, int *stale) {
  if (*pending_token != token)
    return 0;
  ++*n;
  *stale |= stale_one;
  if (what == COMMIT_DROP)
    *pending_token = 0;
  return what == COMMIT_APPLY;
}

/* Walk every object pending under token: count them (and whether any is
 * stale), apply them, or drop them. Lock held. */
static UCOV_NOTRACE uint32_t commit_walk(uint64_t token, int what, int *stale) {
  uint32_t n = 0;
  for (struct ucov_gcov_unit *u = ucov_gcov_units(); u; u = u->next)
    if (walk_one(&u->base.pending_token, ucov_baseline_stale(&u->base), token, what, &n, stale))
      ucov_gcov_commit(u);
  for (struct ucov_llvm_unit *u = ucov_llvm_units(); u; u = u->next)
    if (walk_one(&u->base.pending_token, ucov_baseline_stale(&u->base), token, what, &n, stale))
      ucov_llvm_commit(u);
  struct ucov_llvm_sections pgo;
  for (unsigned i = 0, r; (r = (unsigned)ucov_port_llvm_sections(i, &pgo)) != ~0u; i++) {
    struct ucov_pgo_state *c = r ? 0 : ucov_pgo_state_of(&pgo);
    if (c && walk_one(&c->pending_token, c->pending_gen != c->gen, token, what, &n, stale))
      ucov_pgo_commit(&pgo);
  }
  uint32_t id;
  for (struct ucov_device *d = ucov_port_device_next(0, &id); d;
       d = ucov_port_device_next(d, &id)) {
    if (!is_pc_trace(d) || !walk_one(&d->pending_token, 0, token, what, &n, stale))
      continue;
    /* The count goes to 0 only if nothing was appended since: else the PCs
     * stay (read again, never lost). */
    uint64_t expect = d->pending_count;
    if (expect)
      __atomic_compare_exchange_n(&d->area[0], &expect, 0, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
    d->pending_token = 0;
  }
  return n;
}

UCOV_NOTRACE int ucov_objects_commit(uint64_t token, uint32_t n) {
  int ret, stale = 0;
  ucov_port_lock();
  if (ucov_gcov_exited()) {
    ret = -UCOV_ESHUTDOWN;
  } else if (!token || token > last_token) {
    ret = -UCOV_EINVAL;
  } else if (token_committed(token)) {
    ret = 1;
  } else if (commit_walk(token, COMMIT_COUNT, &stale) != n || stale) {
    commit_walk(token, COMMIT_DROP, &stale);
    ret = -UCOV_ESTALE;
  } else {
    commit_walk(token, COMMIT_APPLY, &stale);
    committed[n_committed++ % COMMITTED_MAX] = token;
    ret = 0;
  }
  ucov_port_unlock();
  return ret;
}
