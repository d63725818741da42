/* SPDX-License-Identifier: MIT */
/*
 * POSIX port, x86-64: dormant hook sites (`ucov cc --dormant`).
 *
 * A dormant module's file holds its hook call sites as NOPs (and tail jumps
 * as returns), with their table in the section .ucov_sites (ucov/dormant.h).
 * The module registers itself from a constructor (libucov-dormant.a). When
 * the first device of the process is enabled, the core calls
 * ucov_port_trace_live(1) before the enable returns: the table of every
 * registered module is read from its file (once; its build-id must be the
 * loaded module's) and every site is made live again. When the last device
 * is disabled, ucov_port_trace_live(0) makes them dormant. A module loaded
 * while sites are live is made live from its constructor.
 *
 * Patching is safe while other threads run the code, as the kernel's
 * text_poke_bp does it: the first byte of each site becomes int3, every core
 * is synchronised (membarrier SYNC_CORE), the rest of the site is written,
 * cores synchronised, then the first byte, and cores synchronised again. A
 * thread that meets an int3 meanwhile gets SIGTRAP: the handler here does
 * what the site's new form does (a call, a jump, a return, a jump into a
 * twin, or nothing) and resumes it after the site. Traps that are not at a site go to the
 * program's own SIGTRAP handler, or take the default action. Text is written
 * through a temporary PROT_WRITE on its segment, put back before the patch
 * returns, or through /proc/self/mem where that is refused. Sites whose bytes
 * are neither form (a debugger's breakpoint on one) are left as they are.
 * Without membarrier's SYNC_CORE (Linux 4.16 on) nothing is patched: the
 * enable fails with EOPNOTSUPP and a message, rather than trust a weaker
 * barrier to keep other cores from running half-written instructions.
 *
 * A trap handler may run late (its thread trapped during a patch and ran
 * again after it): a site whose int3 is gone is run again as it now is,
 * whatever its module's state, and what the handler reads stays valid:
 * module records are never freed, a module's table is one immutable block
 * behind one pointer, and a table replaced (the module loaded again) is
 * freed only once no handler is inside a search (trap_readers), or else
 * kept.
 *
 * All of this runs with the port lock held, never on a hook's path.
 */
#define _GNU_SOURCE
#include "ucov/port/compiler.h"
#include "ucov/dormant.h"
#include "ucov/port/port.h"
#include "ucov/port/task.h"

#if defined(__x86_64__)
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <linux/membarrier.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "dormant_sites.h"

static struct dmod *mods; /* the list; appended with release stores */
static int trace_live;    /* the form every site goes to (the lock's) */
static int patch_target;  /* what a trapped site does: 1 live, 0 dormant */
static struct sigaction prev_trap;
static int membarrier_mode = -1; /* -1 not probed, 0 none, 1 expedited, 2 sync-core */
static int procmem_fd = -1;
static int trap_readers;       /* trap handlers searching the tables now */
static struct ptable *retired; /* tables replaced while a handler searched: kept */

UCOV_NOTRACE void ucov_dormant_say(const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  ucov_port_log(msg);
}

/* --- cores in step ------------------------------------------------------ */

/*
 * Registering for membarrier's expedited commands waits for an RCU grace
 * period (milliseconds) once the process has a second thread: it is done at
 * the first module's registration, from a constructor, while the process is
 * still one thread, not at the first enable. Lock held.
 */
static UCOV_NOTRACE void membarrier_setup(void) {
  if (membarrier_mode < 0) {
    long q = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
    membarrier_mode = 0;
    if (q > 0 && (q & MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE) &&
        syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0) == 0)
      membarrier_mode = 2;
    else if (q > 0 && (q & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
             syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0)
      membarrier_mode = 1; /* an IPI: on x86 its return to user space serialises */
  }
}

/* Every core of the process serialised (only with SYNC_CORE: patch()
 * refuses to run without it). */
static UCOV_NOTRACE void sync_cores(void) {
  syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0);
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* --- the trap handler ------------------------------------------------------ */

/* The site at pc, copied into *out: 1 (its module present), 2 (its module
 * unregistered: a reload's moment, or unloaded), or 0 (none). The tables
 * it reads are not freed meanwhile: trap_readers counts it in (sequentially
 * consistent with ucov_dormant_table_publish's swap). */
static UCOV_NOTRACE int site_at(uintptr_t pc, struct psite *out) {
  int found = 0;
  __atomic_add_fetch(&trap_readers, 1, __ATOMIC_SEQ_CST);
  for (const struct dmod *m = __atomic_load_n(&mods, __ATOMIC_ACQUIRE); m && found != 1;
       m = __atomic_load_n(&m->next, __ATOMIC_ACQUIRE)) {
    const struct ptable *t = __atomic_load_n(&m->table, __ATOMIC_SEQ_CST);
    if (!t || pc < t->lo || pc >= t->hi)
      continue;
    uint64_t addr = (uint64_t)(pc - t->bias);
    size_t lo = 0, hi = t->count;
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (t->sites[mid].addr < addr)
        lo = mid + 1;
      else
        hi = mid;
    }
    if (lo < t->count && t->sites[lo].addr == addr) {
      *out = t->sites[lo];
      found = __atomic_load_n(&m->present, __ATOMIC_ACQUIRE) ? 1 : 2;
    }
  }
  __atomic_sub_fetch(&trap_readers, 1, __ATOMIC_SEQ_CST);
  return found;
}

UCOV_NOTRACE void ucov_dormant_table_publish(struct dmod *m, struct ptable *t, uint8_t *mark) {
  struct ptable *old = m->table;
  free(m->mark);
  m->mark = mark;
  __atomic_store_n(&m->table, t, __ATOMIC_SEQ_CST);
  if (!old)
    return;
  /* Once the count is zero, every handler that could have loaded old has
   * finished; searches take microseconds, and a handler interrupted for
   * long leaves old kept (leaked, one per reload at most). */
  for (int i = 0; i < 1000; i++) {
    if (__atomic_load_n(&trap_readers, __ATOMIC_SEQ_CST) == 0) {
      free(old);
      return;
    }
    sched_yield();
  }
  old->retired = retired;
  retired = old;
}

static UCOV_NOTRACE int32_t rel32(const uint8_t *p) {
  return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                   (uint32_t)p[3] << 24);
}

/* Is the condition of jcc code cc (0-15) true under flags? */
static UCOV_NOTRACE int cond_true(unsigned cc, uint64_t fl) {
  int cf = fl & 1, pf = (fl >> 2) & 1, zf = (fl >> 6) & 1, sf = (fl >> 7) & 1, of = (fl >> 11) & 1;
  int r;
  switch (cc >> 1) {
  case 0:
    r = of;
    break;
  case 1:
    r = cf;
    break;
  case 2:
    r = zf;
    break;
  case 3:
    r = cf || zf;
    break;
  case 4:
    r = sf;
    break;
  case 5:
    r = pf;
    break;
  case 6:
    r = sf != of;
    break;
  default:
    r = zf || sf != of;
    break;
  }
  return (cc & 1) ? !r : r;
}

/* The live target of site s at run-time address at: where its call or jump goes. */
static UCOV_NOTRACE uintptr_t live_target(const struct psite *s, uintptr_t at) {
  const uint8_t *f = s->live + s->len - 4;
  uintptr_t next = at + s->len;
  if (s->live[0] == 0xff) /* through the GOT */
    return *(const uintptr_t *)(next + (intptr_t)rel32(f));
  return next + (intptr_t)rel32(f);
}

static UCOV_NOTRACE void trap_chain(int sig, siginfo_t *info, void *uc) {
  struct sigaction p = prev_trap;
  /* The program's handler may meet a site in mid-patch: SIGTRAP must be
   * open while it runs. Ours asked for that (SA_NODEFER, a mask without
   * it), but a layer between the kernel and us may block every signal
   * around our handler (TSan's own handler does), and a trap while SIGTRAP
   * is blocked kills the process. The mask is restored on return. */
  sigset_t trap;
  sigemptyset(&trap);
  sigaddset(&trap, SIGTRAP);
  pthread_sigmask(SIG_UNBLOCK, &trap, NULL);
  if (p.sa_flags & SA_SIGINFO) {
    if (p.sa_sigaction)
      p.sa_sigaction(sig, info, uc);
    return;
  }
  if (p.sa_handler == SIG_IGN)
    return;
  if (p.sa_handler != SIG_DFL) {
    p.sa_handler(sig);
    return;
  }
  /* The default action, as if no handler were installed. */
  signal(SIGTRAP, SIG_DFL);
  raise(SIGTRAP);
}

/* Is the byte at `at` an int3 now? (Text has no TSan shadow: a plain
 * volatile read that TSan does not see.) */
static UCOV_NOTRACE UCOV_RACY_READS int text_is_int3(uintptr_t at) {
  return *(volatile const uint8_t *)at == 0xcc;
}

static UCOV_NOTRACE void trap_handler(int sig, siginfo_t *info, void *ctx) {
  ucontext_t *uc = ctx;
  greg_t *g = uc->uc_mcontext.gregs;
  uintptr_t at = (uintptr_t)g[REG_RIP] - 1; /* int3 is one byte */
  struct psite site;
  const struct psite *s = NULL;
  if (info && info->si_code == SI_KERNEL) {
    int found = site_at(at, &site);
    /* A handler that runs late (its thread was preempted between the trap
     * and here) may find its int3 gone, the patch finished, and the module
     * even unregistered for a moment (loaded again): the site's bytes are
     * whole again, so it runs them, as kprobes do with a probe removed
     * under them. */
    if (found && !text_is_int3(at)) {
      g[REG_RIP] = (greg_t)at;
      return;
    }
    if (found == 1)
      s = &site;
    /* A debugger that took the trap for a breakpoint of its own and passed
     * it on has moved the PC back onto the int3 (gdb does, on x86). */
    else if (!found && site_at(at + 1, &site) == 1)
      s = &site, at++;
  }
  if (!s) {
    trap_chain(sig, info, ctx);
    return;
  }
  int live = __atomic_load_n(&patch_target, __ATOMIC_ACQUIRE);
  uintptr_t next = at + s->len, *sp = (uintptr_t *)g[REG_RSP];
  if (s->kind == UCOV_SITE_TWIN) { /* into the twin, or on in the plain body */
    g[REG_RIP] = (greg_t)(live ? live_target(s, at) : next);
    return;
  }
  int jump = s->kind == UCOV_SITE_JMP || s->kind == K_XEXIT ||
             (s->kind == UCOV_SITE_JCC && cond_true(s->live[1] & 15, (uint64_t)g[REG_EFL]));
  if (s->kind == K_XENTRY || (s->kind == K_XEXIT && live))
    g[REG_R10] = (greg_t)s->idx; /* (the sled's mov) */
  if (s->kind == UCOV_SITE_CALL || s->kind == K_XENTRY) {
    if (live) { /* the call: push the return address, go to the hook */
      sp--;
      *sp = next;
      g[REG_RSP] = (greg_t)sp;
      g[REG_RIP] = (greg_t)live_target(s, at);
    } else {
      g[REG_RIP] = (greg_t)next;
    }
  } else if (!jump) {
    g[REG_RIP] = (greg_t)next; /* a conditional jump not taken */
  } else if (live) {
    g[REG_RIP] = (greg_t)live_target(s, at);
  } else { /* a return */
    g[REG_RIP] = (greg_t)*sp;
    g[REG_RSP] = (greg_t)(sp + 1);
  }
}

/* Ours on SIGTRAP, the program's kept to chain to (checked before each patch:
 * a handler the program installed since is the one to chain to now). */
static UCOV_NOTRACE int trap_install(void) {
  struct sigaction cur;
  if (sigaction(SIGTRAP, NULL, &cur) != 0)
    return -1;
  if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == trap_handler)
    return 0;
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_sigaction = trap_handler;
  /* SIGTRAP stays unblocked in the handler: the program's handler, which it
   * calls, may be instrumented and meet a site in mid-patch, and a trap
   * while SIGTRAP is blocked would kill the process. */
  sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK | SA_NODEFER;
  sigfillset(&sa.sa_mask);
  sigdelset(&sa.sa_mask, SIGTRAP);
  prev_trap = cur;
  return sigaction(SIGTRAP, &sa, NULL);
}

/* --- a module's table ------------------------------------------------------ */

/* --- writing text -------------------------------------------------------------- */

/* Make [lo, hi) writable for a moment (0), or say that /proc/self/mem must
 * write it (1); -1 if neither can. */
static UCOV_NOTRACE int text_open(uintptr_t lo, uintptr_t hi) {
  long pg = sysconf(_SC_PAGESIZE);
  uintptr_t a = lo & ~(uintptr_t)(pg - 1);
  if (mprotect((void *)a, hi - a, PROT_READ | PROT_WRITE | PROT_EXEC) == 0)
    return 0;
  if (procmem_fd < 0)
    procmem_fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
  return procmem_fd >= 0 ? 1 : -1;
}

static UCOV_NOTRACE void text_close(uintptr_t lo, uintptr_t hi, int how) {
  long pg = sysconf(_SC_PAGESIZE);
  uintptr_t a = lo & ~(uintptr_t)(pg - 1);
  if (how == 0)
    mprotect((void *)a, hi - a, PROT_READ | PROT_EXEC);
}

/* Text has no TSan shadow (it maps none for code): these read and write it
 * with plain volatile accesses that TSan does not see. */
static UCOV_NOTRACE UCOV_RACY_READS int text_equal(uintptr_t at, const uint8_t *bytes, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (((volatile const uint8_t *)at)[i] != bytes[i])
      return 0;
  return 1;
}

static UCOV_NOTRACE UCOV_RACY_READS void text_write(uintptr_t at, const uint8_t *bytes, size_t n,
                                                    int how) {
  if (how == 0) {
    for (size_t i = 0; i < n; i++)
      ((volatile uint8_t *)at)[i] = bytes[i];
  } else if (pwrite(procmem_fd, bytes, n, (off_t)at) != (ssize_t)n) {
    /* (the site keeps what it had: its first byte is written last) */
  }
}

/* The bytes of site s in form live. */
static UCOV_NOTRACE const uint8_t *form_of(const struct psite *s, int live) {
  return live ? s->live : s->dormant;
}

/* How many leading bytes tell site s's forms apart (a sled: its first two). */
static UCOV_NOTRACE size_t telling(const struct psite *s) {
  return s->kind >= K_XENTRY ? 2 : s->len;
}

/* Write the marked sites of ms[0..n) in form live: their bytes from `from`
 * on (1: all but the first, a sled going dormant only its second; 0: the
 * first only, which unmarks them). */
static UCOV_NOTRACE void write_marked(struct dmod **ms, size_t n, const int *how, int live,
                                      int from) {
  for (size_t k = 0; k < n; k++)
    for (size_t i = 0; how[k] >= 0 && i < ms[k]->table->count; i++) {
      const struct psite *s = &ms[k]->table->sites[i];
      if (!ms[k]->mark[i])
        continue;
      size_t len = !from ? 1 : s->kind >= K_XENTRY && !live ? 1 : s->len - 1u;
      text_write(ms[k]->table->bias + s->addr + (unsigned)from, form_of(s, live) + from, len,
                 how[k]);
      if (!from)
        ms[k]->mark[i] = 0;
    }
}

/* Put the sites of modules ms[0..n) (PATCH_BATCH at most) into form live
 * (see the top). 0, or -UCOV_EOPNOTSUPP (no core-serialising barrier:
 * nothing patched, said once). */
#define PATCH_BATCH 64
static UCOV_NOTRACE int patch(struct dmod **ms, size_t n, int live) {
  static int said;
  if (!n)
    return 0;
  membarrier_setup();
  if (membarrier_mode != 2) {
    if (!said++)
      ucov_dormant_say("ucov: dormant sites: this kernel has no membarrier SYNC_CORE (Linux 4.16 "
                       "and later): sites are not patched, and tracing is refused");
    return -UCOV_EOPNOTSUPP;
  }
  if (trap_install() != 0) {
    ucov_dormant_say("ucov: dormant sites: cannot install a SIGTRAP handler: %s", strerror(errno));
    return 0;
  }
  __atomic_store_n(&patch_target, live, __ATOMIC_RELEASE);
  int how[PATCH_BATCH];
  for (size_t k = 0; k < n; k++) {
    struct dmod *m = ms[k];
    const struct ptable *t = m->table;
    how[k] = text_open(t->lo, t->hi);
    if (how[k] < 0) {
      ucov_dormant_say("ucov: dormant sites: cannot write the text at %#lx: %s",
                       (unsigned long)t->lo, strerror(errno));
      continue;
    }
    m->skipped = 0;
    for (size_t i = 0; i < t->count; i++) {
      const struct psite *s = &t->sites[i];
      uintptr_t at = t->bias + s->addr;
      m->mark[i] = (uint8_t)text_equal(at, form_of(s, !live), telling(s));
      if (m->mark[i])
        text_write(at, (const uint8_t[]){0xcc}, 1, how[k]);
      else if (!text_equal(at, form_of(s, live), telling(s)))
        m->skipped++; /* neither form: someone else's bytes */
    }
  }
  sync_cores();
  write_marked(ms, n, how, live, 1); /* the rest of each site */
  sync_cores();
  write_marked(ms, n, how, live, 0); /* then its first byte */
  sync_cores();
  for (size_t k = 0; k < n; k++)
    if (how[k] >= 0) {
      text_close(ms[k]->table->lo, ms[k]->table->hi, how[k]);
      ms[k]->live = live;
      if (ms[k]->skipped)
        ucov_dormant_say(
            "ucov: dormant sites: %lu sites were neither form (a debugger's breakpoints?) "
            "and were left as they are",
            ms[k]->skipped);
    }
  return 0;
}

/* Read m's table if not yet: 1 if m has sites to patch. */
static UCOV_NOTRACE int ready(struct dmod *m) {
  if (m->present && m->state == 0)
    m->state = ucov_dormant_table_read(m) == 0 ? 1 : -1;
  return m->present && m->state == 1;
}

/* The core's hook: the first device enabled (1) or the last disabled (0).
 * Lock held. */
UCOV_NOTRACE int ucov_port_trace_live(int live) {
  struct dmod *ms[PATCH_BATCH];
  size_t n = 0;
  int err = 0;
  for (struct dmod *m = mods; m && !err; m = m->next) {
    if (ready(m) && m->live != live)
      ms[n++] = m;
    if (n == PATCH_BATCH || (!m->next && n)) { /* (every module, a batch at a time) */
      err = patch(ms, n, live);
      n = 0;
    }
  }
  if (!err)
    trace_live = live;
  return err;
}

UCOV_EXPORT UCOV_NOTRACE void ucov_dormant_register(const struct ucov_dormant_module *reg) {
  ucov_port_lock();
  membarrier_setup();
  struct dmod *m = mods;
  while (m && m->ehdr != reg->ehdr)
    m = m->next;
  if (m && !m->present) { /* loaded again where it was: read its file again */
    m->reg = *reg;
    m->state = 0;
    m->live = 0;
    __atomic_store_n(&m->present, 1, __ATOMIC_RELEASE);
  } else if (!m && (m = calloc(1, sizeof(*m)))) {
    m->reg = *reg;
    m->ehdr = reg->ehdr;
    m->present = 1;
    struct dmod **tail = &mods;
    while (*tail)
      tail = &(*tail)->next;
    __atomic_store_n(tail, m, __ATOMIC_RELEASE);
  }
  if (m && trace_live && ready(m))
    (void)patch(&m, 1, 1); /* (refused: said; its sites stay dormant) */
  ucov_port_unlock();
}

/*
 * An XRay sled of the module whose ELF header is ehdr called its
 * trampoline (libucov-dormant.a): sled idx of its map, an entry (kind 0),
 * exit (1) or tail call (2). In PC_EXT mode, an ENTRY or EXIT record just
 * after the sled (in the function, near its start or where it returns).
 * A hook: no lock.
 */
UCOV_EXPORT UCOV_NOTRACE void ucov_xray_hit(const void *ehdr, uint32_t idx, uint32_t kind) {
  if (!(__atomic_load_n(&ucov_task_self.hot, __ATOMIC_RELAXED) & UCOV_TASK_EXT))
    return;
  for (const struct dmod *m = __atomic_load_n(&mods, __ATOMIC_ACQUIRE); m;
       m = __atomic_load_n(&m->next, __ATOMIC_ACQUIRE)) {
    if (m->ehdr != ehdr || !m->reg.xray_start)
      continue;
    const uint8_t *e = (const uint8_t *)m->reg.xray_start + (size_t)idx * XRAY_ENTRY;
    if ((const void *)e >= m->reg.xray_stop)
      return;
    uintptr_t sled = xray_sled(e);
    /* The PC just after the sled, as a hook's return address: symbolized
     * (one byte back, as every PC), it is inside the function. */
    ucov_trace_ext_event((uint64_t)(sled + PSITE_MAX), kind != 0);
    return;
  }
}

UCOV_EXPORT UCOV_NOTRACE void ucov_dormant_unregister(const void *ehdr) {
  ucov_port_lock();
  for (struct dmod *m = mods; m; m = m->next)
    if (m->ehdr == ehdr)
      __atomic_store_n(&m->present, 0, __ATOMIC_RELEASE);
  ucov_port_unlock();
}

#else /* not x86-64: dormant builds keep their hooks live (ucov cc says so) */

UCOV_EXPORT UCOV_NOTRACE void ucov_dormant_register(const struct ucov_dormant_module *reg) {
  (void)reg;
}

UCOV_EXPORT UCOV_NOTRACE void ucov_xray_hit(const void *ehdr, uint32_t idx, uint32_t kind) {
  (void)ehdr;
  (void)idx;
  (void)kind;
}

UCOV_EXPORT UCOV_NOTRACE void ucov_dormant_unregister(const void *ehdr) {
  (void)ehdr;
}

#endif
