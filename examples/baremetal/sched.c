/* SPDX-License-Identifier: MIT */
/* A round-robin scheduler of three tasks with priorities (time slices). */
#include "subsys.h"

struct task {
  const char *name;
  int slice; /* ticks per turn */
  int work;  /* what the task has left to do; 0: blocked */
};

static void step_counter(struct task *t) {
  t->work = t->work > 0 ? t->work - 1 : 5;
}

static void step_worker(struct task *t) {
  if (t->work % 3 == 0)
    t->work += 2;
  else
    t->work--;
}

static void step_idle(struct task *t) {
  (void)t;
}

void sched_run(int ticks, int counts[SCHED_TASKS]) {
  struct task tasks[SCHED_TASKS] = {{"counter", 2, 5}, {"worker", 3, 7}, {"idle", 1, 1}};
  void (*step[SCHED_TASKS])(struct task *) = {step_counter, step_worker, step_idle};
  for (int i = 0; i < SCHED_TASKS; i++)
    counts[i] = 0;
  int current = 0, used = 0;
  for (int tick = 0; tick < ticks; tick++) {
    struct task *t = &tasks[current];
    if (t->work == 0 && current != 2) {
      current = (current + 1) % SCHED_TASKS; /* blocked: give the CPU away */
      used = 0;
      continue;
    }
    ktask_switch(1 + current); /* the task's own context: its KCOV device, if any */
    step[current](t);
    ktask_switch(0);
    counts[current]++;
    if (++used >= t->slice) {
      current = (current + 1) % SCHED_TASKS;
      used = 0;
    }
  }
}
