/* SPDX-License-Identifier: MIT */
/* The object registry and its operations (see objects.h). */
#include "objects.h"
#include "kinds.h"

#include "gcov.h"
#include "gcov_llvm.h"
#include "pgo.h"
#include "ucov/port/port.h"

#define MODULES_NAME "modules"
/* Xen's coverage blob (xencov read, xencov_split): u32 magic "XCOV", then for
 * each gcov unit its .gcda path with a NUL, u32 size and the .gcda bytes;
 * words in the target's order, as Xen writes them. */
#define XENCOV_NAME "xencov"
#define XENCOV_MAGIC 0x58434f56u

/* "gcov" + an absolute .gcda path, "gcov/" + a relative one, made normal as
 * Linux's kernel/gcov names its files: "." and empty components dropped, a
 * ".." taking the component before it away (gcc names a unit built from
 * ../../x.c in a directory of its own so: arch/x86/kvm/../../../virt/kvm/
 * pfncache.gcda is virt/kvm/pfncache.gcda, where its notes file is). */
static UCOV_NOTRACE int gcov_name(const char *filename, char *out, size_t len) {
  static const char prefix[] = "gcov";
  size_t n = 0, base = sizeof(prefix) - 1;
  if (len <= base)
    return -1;
  for (; n < base; n++)
    out[n] = prefix[n];
  for (const char *p = filename; *p;) {
    const char *c = p;
    while (*p && *p != '/')
      p++;
    size_t clen = (size_t)(p - c);
    if (*p)
      p++;
    if (clen == 0 || (clen == 1 && c[0] == '.'))
      continue;
    if (clen == 2 && c[0] == '.' && c[1] == '.') {
      size_t last = n; /* the last component's start */
      while (last > base && out[last - 1] != '/')
        last--;
      if (n > base && !(n - last == 2 && out[last] == '.' && out[last + 1] == '.')) {
        n = last - 1; /* it goes, with its slash */
        continue;
      }
      if (filename[0] == '/')
        continue; /* "/.." is "/" */
      /* (a relative name's leading ".." stays) */
    }
    if (n + 1 + clen + 1 > len)
      return -1;
    out[n++] = '/';
    for (size_t i = 0; i < clen; i++)
      out[n++] = c[i];
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

UCOV_NOTRACE int ucov_str_eq(const char *a, const char *b) {
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

/* ---- kinds: one table of operations each (as Xen's coverage ops) ---- */

static UCOV_NOTRACE void copy_name(char *out, const char *name) {
  size_t n = 0;
  while (name[n] && n + 1 < UCOV_OBJECT_NAME_MAX) {
    out[n] = name[n];
    n++;
  }
  out[n] = 0;
}

/* -- modules: the module map (the port's; read-only) -- */

static UCOV_NOTRACE int modules_next(struct obj *o) {
  if (o->started)
    return 0;
  copy_name(o->name, MODULES_NAME);
  return 1;
}

static UCOV_NOTRACE int modules_read(struct obj *o, struct ucov_sink *sink, int reset) {
  (void)o;
  return reset ? -UCOV_EOPNOTSUPP : ucov_port_modules_write(sink);
}

static const struct kind modules_kind = {.next = modules_next, .read = modules_read};

/* -- gcov units of gcc: "gcov" + the .gcda path -- */

/* One object per .gcda path: a group's first unit stands for the group. */
static UCOV_NOTRACE int gcc_next(struct obj *o) {
  struct ucov_gcov_unit *u = o->started ? o->u.gcc->next : ucov_gcov_units();
  while (u && (!u->grp.primary || ucov_gcov_object_name(u, o->name, sizeof(o->name))))
    u = u->next; /* a twin (its group's first serves it), or a name too long to serve */
  o->u.gcc = u;
  return u != 0;
}

/* Is name a gcov object's ("gcov/...")? */
static UCOV_NOTRACE int gcov_named(const char *name) {
  return name[0] == 'g' && name[1] == 'c' && name[2] == 'o' && name[3] == 'v' && name[4] == '/';
}

/* The .gcda paths whose object name is name ("gcov" + an absolute path,
 * "gcov/" + a relative one: both are tried), each to fn until it finds. */
static UCOV_NOTRACE int gcov_seek(struct obj *o, const char *name,
                                  int (*fn)(struct obj *o, const char *filename)) {
  if (!gcov_named(name))
    return 0;
  if (fn(o, name + 4) || fn(o, name + 5))
    return ucov_str_eq(o->name, name);
  return 0;
}

static UCOV_NOTRACE int gcc_at(struct obj *o, const char *filename) {
  struct ucov_gcov_unit *u = ucov_gcov_unit_named(ucov_gcov_units(), filename);
  if (!u || ucov_gcov_object_name(u, o->name, sizeof(o->name)))
    return 0;
  o->u.gcc = u;
  o->started = 1;
  return 1;
}

/* The unit whose object name is name, by a walk: one whose .gcda path was
 * not normal (gcov_name), which gcc_at's lookup by path does not find. */
static UCOV_NOTRACE int gcc_walk(struct obj *o, const char *name) {
  if (!gcov_named(name))
    return 0;
  for (struct ucov_gcov_unit *u = ucov_gcov_units(); u; u = u->next)
    if (u->grp.primary && !ucov_gcov_object_name(u, o->name, sizeof(o->name)) &&
        ucov_str_eq(o->name, name)) {
      o->u.gcc = u;
      o->started = 1;
      return 1;
    }
  return 0;
}

static UCOV_NOTRACE int gcc_seek(struct obj *o, const char *name) {
  return gcov_seek(o, name, gcc_at) || gcc_walk(o, name);
}

/* A live read: one run, and sum_max of what is being read program-wide (once
 * per session: ucov_gcov_run_max_kept). */
static UCOV_NOTRACE int gcc_read(struct obj *o, struct ucov_sink *sink, int reset) {
  struct ucov_gcov_summary sum = {1, ucov_gcov_run_max_kept()};
  return ucov_gcov_group_write(sink, o->u.gcc, &sum, reset ? UCOV_TAKE_RESET : UCOV_TAKE_READ, 0);
}

static UCOV_NOTRACE int gcc_reset(struct obj *o) {
  return ucov_gcov_group_reset(o->u.gcc);
}

static UCOV_NOTRACE int gcc_snapshot(struct obj *o, struct ucov_sink *sink, uint64_t token) {
  struct ucov_gcov_summary sum = {1, ucov_gcov_run_max_kept()};
  return ucov_gcov_group_write(sink, o->u.gcc, &sum, UCOV_TAKE_SNAPSHOT, token);
}

static UCOV_NOTRACE uint64_t *gcc_pending(struct obj *o, int *stale) {
  return ucov_group_pending(&o->u.gcc->grp, stale);
}

static UCOV_NOTRACE void gcc_commit(struct obj *o) {
  ucov_group_commit(&o->u.gcc->grp);
}

static const struct kind gcc_kind = {.next = gcc_next,
                                     .seek = gcc_seek,
                                     .read = gcc_read,
                                     .reset = gcc_reset,
                                     .snapshot = gcc_snapshot,
                                     .pending = gcc_pending,
                                     .commit = gcc_commit,
                                     .reset_all = 1};

/* -- gcov units of clang: the same names -- */

static UCOV_NOTRACE int llvm_next(struct obj *o) {
  struct ucov_llvm_unit *u = o->started ? o->u.llvm->next : ucov_llvm_units();
  while (u && (!u->grp.primary || ucov_llvm_object_name(u, o->name, sizeof(o->name))))
    u = u->next;
  o->u.llvm = u;
  return u != 0;
}

static UCOV_NOTRACE int llvm_at(struct obj *o, const char *filename) {
  struct ucov_llvm_unit *u = ucov_llvm_unit_named(filename);
  if (!u || ucov_llvm_object_name(u, o->name, sizeof(o->name)))
    return 0;
  o->u.llvm = u;
  o->started = 1;
  return 1;
}

static UCOV_NOTRACE int llvm_walk(struct obj *o, const char *name) {
  if (!gcov_named(name))
    return 0;
  for (struct ucov_llvm_unit *u = ucov_llvm_units(); u; u = u->next)
    if (u->grp.primary && !ucov_llvm_object_name(u, o->name, sizeof(o->name)) &&
        ucov_str_eq(o->name, name)) {
      o->u.llvm = u;
      o->started = 1;
      return 1;
    }
  return 0;
}

static UCOV_NOTRACE int llvm_seek(struct obj *o, const char *name) {
  return gcov_seek(o, name, llvm_at) || llvm_walk(o, name);
}

static UCOV_NOTRACE int llvm_read(struct obj *o, struct ucov_sink *sink, int reset) {
  return ucov_llvm_group_write(sink, o->u.llvm, reset ? UCOV_TAKE_RESET : UCOV_TAKE_READ, 0);
}

static UCOV_NOTRACE int llvm_reset(struct obj *o) {
  return ucov_llvm_group_reset(o->u.llvm);
}

static UCOV_NOTRACE int llvm_snapshot(struct obj *o, struct ucov_sink *sink, uint64_t token) {
  return ucov_llvm_group_write(sink, o->u.llvm, UCOV_TAKE_SNAPSHOT, token);
}

static UCOV_NOTRACE uint64_t *llvm_pending(struct obj *o, int *stale) {
  return ucov_group_pending(&o->u.llvm->grp, stale);
}

static UCOV_NOTRACE void llvm_commit(struct obj *o) {
  ucov_group_commit(&o->u.llvm->grp);
}

static const struct kind llvm_kind = {.next = llvm_next,
                                      .seek = llvm_seek,
                                      .read = llvm_read,
                                      .reset = llvm_reset,
                                      .snapshot = llvm_snapshot,
                                      .pending = llvm_pending,
                                      .commit = llvm_commit,
                                      .reset_all = 1};

/* -- LLVM raw profiles: "pgo/<module>.profraw", one per module -- */

static UCOV_NOTRACE int pgo_next(struct obj *o) {
  if (!o->started)
    o->index = 0;
  else
    o->index++;
  for (;; o->index++) {
    int r = pgo_object(o->index, &o->pgo, o->name, sizeof(o->name));
    if (r < 0)
      return 0;
    if (r == 0)
      return 1; /* (1: that module was unloaded) */
  }
}

/* A read-and-reset is a snapshot committed at once: a reply that could not
 * be written resets nothing (and a snapshot a client has pending goes stale). */
static UCOV_NOTRACE int pgo_read(struct obj *o, struct ucov_sink *sink, int reset) {
  if (!reset)
    return ucov_pgo_write(sink, &o->pgo, 0);
  int err = ucov_pgo_snapshot(sink, &o->pgo, ~(uint64_t)0);
  if (!err)
    ucov_pgo_commit(&o->pgo);
  return err;
}

static UCOV_NOTRACE int pgo_reset(struct obj *o) {
  return ucov_pgo_reset(&o->pgo);
}

static UCOV_NOTRACE int pgo_snapshot(struct obj *o, struct ucov_sink *sink, uint64_t token) {
  return ucov_pgo_snapshot(sink, &o->pgo, token);
}

static UCOV_NOTRACE uint64_t *pgo_pending(struct obj *o, int *stale) {
  struct ucov_pgo_state *c = ucov_pgo_state_of(&o->pgo);
  if (!c)
    return 0;
  *stale = c->pending_gen != c->gen;
  return &c->pending_token;
}

static UCOV_NOTRACE void pgo_commit(struct obj *o) {
  ucov_pgo_commit(&o->pgo);
}

static const struct kind pgo_kind = {.next = pgo_next,
                                     .read = pgo_read,
                                     .reset = pgo_reset,
                                     .snapshot = pgo_snapshot,
                                     .pending = pgo_pending,
                                     .commit = pgo_commit,
                                     .reset_all = 1};

/* -- xencov: Xen's coverage blob of every gcov unit (read and reset only) -- */

static UCOV_NOTRACE int xencov_next(struct obj *o) {
  if (o->started || (o->listing && !ucov_gcov_units() && !ucov_llvm_units()))
    return 0;
  copy_name(o->name, XENCOV_NAME);
  return 1;
}

/* One record: the unit's .gcda path with its NUL, u32 size, the .gcda. */
static UCOV_NOTRACE int xencov_record(struct ucov_sink *sink, struct obj *unit, int reset) {
  /* The unit whole first: its size leads it, and counts move meanwhile. */
  struct ucov_buf_sink data;
  ucov_buf_sink_init(&data);
  int err = unit->k->read(unit, &data.sink, reset);
  const char *filename =
      unit->k == &gcc_kind ? unit->u.gcc->info->filename : unit->u.llvm->filename;
  size_t n = 0;
  while (filename[n])
    n++;
  uint32_t size = (uint32_t)data.len;
  if (!err)
    err = sink->write(sink, filename, n + 1);
  if (!err)
    err = sink->write(sink, &size, 4);
  if (!err && data.len)
    err = sink->write(sink, data.buf, data.len);
  ucov_port_free(data.buf);
  return err;
}

/* Call fn on every gcov unit of either compiler. */
static UCOV_NOTRACE int each_unit(int (*fn)(struct obj *unit, void *arg), void *arg) {
  static const struct kind *const units[] = {&gcc_kind, &llvm_kind};
  struct obj unit;
  int err = 0;
  unit.listing = 0;
  for (unsigned k = 0; k < 2 && !err; k++)
    for (unit.k = units[k], unit.started = 0; !err && unit.k->next(&unit); unit.started = 1)
      err = fn(&unit, arg);
  return err;
}

struct xencov_arg {
  struct ucov_sink *sink;
  int reset;
};

static UCOV_NOTRACE int xencov_one(struct obj *unit, void *arg) {
  struct xencov_arg *a = arg;
  return xencov_record(a->sink, unit, a->reset);
}

static UCOV_NOTRACE int xencov_read(struct obj *o, struct ucov_sink *sink, int reset) {
  (void)o;
  uint32_t magic = XENCOV_MAGIC;
  int err = sink->write(sink, &magic, 4);
  struct xencov_arg a = {sink, reset};
  return err ? err : each_unit(xencov_one, &a);
}

static UCOV_NOTRACE int reset_one(struct obj *unit, void *arg) {
  (void)arg;
  return unit->k->reset(unit);
}

/* Xen's reset: every gcov unit. (No snapshot: snapshot the units instead.) */
static UCOV_NOTRACE int xencov_reset(struct obj *o) {
  (void)o;
  return each_unit(reset_one, 0);
}

static const struct kind xencov_kind = {
    .next = xencov_next, .read = xencov_read, .reset = xencov_reset};

/* ---- the registry: every kind, in the order LIST shows them ---- */

static const struct kind *const kinds[] = {&modules_kind, &xencov_kind, &pgo_kind,
                                           &gcc_kind,     &llvm_kind,   &ucov_trace_kind};
#define N_KINDS (sizeof(kinds) / sizeof(kinds[0]))

/* Find the object named name into o: 1, or 0 if there is none. Lock held.
 * The kinds with many objects (units) are sought, the others walked. */
static UCOV_NOTRACE int find(const char *name, struct obj *o) {
  o->listing = 0;
  for (unsigned k = 0; k < N_KINDS; k++) {
    o->k = kinds[k];
    o->started = 0;
    if (o->k->seek) {
      if (o->k->seek(o, name))
        return 1;
      continue;
    }
    for (; o->k->next(o); o->started = 1)
      if (ucov_str_eq(o->name, name))
        return 1;
  }
  return 0;
}

UCOV_NOTRACE int ucov_objects_list(int (*fn)(const char *name, uint64_t size, void *arg),
                                   void *arg) {
  struct obj o;
  int ret = 0;
  ucov_port_lock();
  if (ucov_gcov_exited()) {
    ucov_port_unlock();
    return -UCOV_ESHUTDOWN;
  }
  o.listing = 1;
  ucov_gcov_run_max_forget(); /* measured once for the listing */
  for (unsigned k = 0; k < N_KINDS && !ret; k++)
    for (o.k = kinds[k], o.started = 0; !ret && o.k->next(&o); o.started = 1) {
      struct ucov_count_sink count;
      ucov_count_sink_init(&count);
      int err = o.k->read(&o, &count.sink, 0);
      if (err == 0)
        ret = fn(o.name, count.bytes, arg);
      else if (err == -UCOV_ENOMEM)
        ret = err; /* a list without it would say it is gone */
      /* (others: not an object this target has, as a port without a module map) */
    }
  ucov_port_unlock();
  return ret;
}

UCOV_NOTRACE int ucov_object_read(const char *name, struct ucov_sink *sink, int reset) {
  struct obj o;
  int ret;
  ucov_port_lock();
  if (ucov_gcov_exited())
    ret = -UCOV_ESHUTDOWN;
  else if (!find(name, &o))
    ret = -UCOV_ENOENT;
  else if (o.k == &ucov_trace_kind && sink->total &&
           !reset) /* (a reset's count goes first: copied) */
    ret = ucov_trace_stream(&o, sink, 0);
  else
    ret = o.k->read(&o, sink, reset);
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
  struct obj o;
  int ret;
  ucov_port_lock();
  if (ucov_gcov_exited())
    ret = -UCOV_ESHUTDOWN;
  else if (!find(name, &o))
    ret = -UCOV_ENOENT;
  else
    ret = o.k->reset ? o.k->reset(&o) : -UCOV_EOPNOTSUPP;
  ucov_port_unlock();
  return ret;
}

UCOV_NOTRACE int ucov_objects_reset_all(void) {
  struct obj o;
  int ret = 0;
  ucov_port_lock();
  if (ucov_gcov_exited()) {
    ucov_port_unlock();
    return -UCOV_ESHUTDOWN;
  }
  o.listing = 0;
  for (unsigned k = 0; k < N_KINDS; k++) {
    if (!kinds[k]->reset_all)
      continue;
    for (o.k = kinds[k], o.started = 0; o.k->next(&o); o.started = 1) {
      int err = o.k->reset(&o);
      if (err && !ret)
        ret = err; /* the first error; the others are reset still */
    }
  }
  ucov_port_unlock();
  return ret;
}

/* ------------------------------------------------------ two-phase reset */

UCOV_NOTRACE int ucov_object_snapshot(const char *name, struct ucov_sink *sink, uint64_t *token) {
  struct obj o;
  int ret;
  ucov_port_lock();
  if (ucov_gcov_exited()) {
    ret = -UCOV_ESHUTDOWN;
  } else if (*token > ucov_token_last() || (*token && ucov_token_committed(*token))) {
    ret = -UCOV_EINVAL;
  } else if (!find(name, &o)) {
    ret = -UCOV_ENOENT;
  } else if (!o.k->snapshot) {
    ret = -UCOV_EOPNOTSUPP; /* modules; xencov (snapshot its units, each an object) */
  } else {
    if (!*token)
      *token = ucov_token_issue();
    uint8_t t[8];
    for (int i = 0; i < 8; i++)
      t[i] = (uint8_t)(*token >> (8 * i));
    ret = sink->write(sink, t, sizeof(t));
    if (!ret && o.k == &ucov_trace_kind && sink->total)
      ret = ucov_trace_stream(&o, sink, *token);
    else if (!ret)
      ret = o.k->snapshot(&o, sink, *token);
  }
  ucov_port_unlock();
  return ret;
}

/* What a commit does to each object with a pending snapshot of its token. */
enum { COMMIT_COUNT, COMMIT_APPLY, COMMIT_DROP };

/* Walk every object pending under token: count them (and whether any is
 * stale), apply them, or drop them. Lock held. */
static UCOV_NOTRACE uint32_t commit_walk(uint64_t token, int what, int *stale) {
  struct obj o;
  uint32_t n = 0;
  o.listing = 0;
  for (unsigned k = 0; k < N_KINDS; k++) {
    if (!kinds[k]->pending)
      continue;
    for (o.k = kinds[k], o.started = 0; o.k->next(&o); o.started = 1) {
      int stale_one = 0;
      uint64_t *pending = o.k->pending(&o, &stale_one);
      if (!pending || *pending != token)
        continue;
      n++;
      *stale |= stale_one;
      if (what == COMMIT_APPLY)
        o.k->commit(&o);
      else if (what == COMMIT_DROP)
        *pending = 0;
    }
  }
  return n;
}

UCOV_NOTRACE int ucov_objects_commit(uint64_t token, uint32_t n) {
  int ret, stale = 0;
  ucov_port_lock();
  if (ucov_gcov_exited()) {
    ret = -UCOV_ESHUTDOWN;
  } else if (!token || token > ucov_token_last()) {
    ret = -UCOV_EINVAL;
  } else if (ucov_token_committed(token)) {
    ret = 1;
  } else {
    uint32_t pending = commit_walk(token, COMMIT_COUNT, &stale);
    if (!pending && ucov_token_forgotten(token)) {
      ret = -UCOV_ENODATA; /* committed or not: forgotten */
    } else if (pending != n || stale) {
      commit_walk(token, COMMIT_DROP, &stale);
      ret = -UCOV_ESTALE;
    } else if (ucov_token_record(token)) {
      ret = -UCOV_ENOMEM; /* nothing moved: the counts stay */
    } else {
      commit_walk(token, COMMIT_APPLY, &stale);
      ret = 0;
    }
  }
  ucov_port_unlock();
  return ret;
}
