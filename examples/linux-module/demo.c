// SPDX-License-Identifier: MIT
/*
 * ucov's demo module: /dev/ucov-demo, an integer expression evaluator with
 * real logic (the bare-metal example's recursive-descent parser). Write an
 * expression, read its value ("42\n") or what is wrong with it ("error:
 * missing )\n"); the first read of each open evaluates the expression
 * written last (then end of file). An expression written with a leading '&'
 * is also evaluated at once by a work item on the writer's behalf, inside a
 * KCOV REMOTE section of the writer's common handle (kcov.rst's
 * kcov_remote_start_common, as vhost does for its owner), before the write
 * returns. Built with
 * ucov's instrumentation by its Kbuild file, and nothing here.
 */
#include <linux/fs.h>
#include <linux/kcov.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include "subsys.h"

#define EXPR_MAX 256

static DEFINE_MUTEX(demo_lock);
static char expr[EXPR_MAX];
static size_t expr_len;

/* The background evaluation: the expression's value, for its writer. */
struct bg_eval {
  struct work_struct work;
  u64 handle; /* the writer's common handle */
  long value;
  int err;
};

static void bg_eval_fn(struct work_struct *w) {
  struct bg_eval *b = container_of(w, struct bg_eval, work);
  const char *err = NULL;

  kcov_remote_start_common(b->handle);
  b->err = parse_expr(expr, expr_len, &b->value, &err);
  kcov_remote_stop();
}

static ssize_t demo_write(struct file *f, const char __user *buf, size_t n, loff_t *pos) {
  if (n > EXPR_MAX)
    return -EINVAL;
  mutex_lock(&demo_lock);
  if (copy_from_user(expr, buf, n)) {
    mutex_unlock(&demo_lock);
    return -EFAULT;
  }
  expr_len = n;
  while (expr_len && (expr[expr_len - 1] == '\n' || expr[expr_len - 1] == 0))
    expr_len--;
  if (expr_len && expr[0] == '&') {
    struct bg_eval b = {.handle = kcov_common_handle()};

    memmove(expr, expr + 1, --expr_len);
    INIT_WORK_ONSTACK(&b.work, bg_eval_fn);
    queue_work(system_unbound_wq, &b.work);
    flush_work(&b.work);
    destroy_work_on_stack(&b.work);
  }
  mutex_unlock(&demo_lock);
  return n;
}

static ssize_t demo_read(struct file *f, char __user *buf, size_t n, loff_t *pos) {
  char out[64];
  const char *err = NULL;
  long value = 0;
  int len;

  if (*pos) /* one answer per open: then end of file */
    return 0;
  mutex_lock(&demo_lock);
  if (parse_expr(expr, expr_len, &value, &err) == 0)
    len = scnprintf(out, sizeof(out), "%ld\n", value);
  else
    len = scnprintf(out, sizeof(out), "error: %s\n", err);
  mutex_unlock(&demo_lock);
  if (n < (size_t)len)
    return -EINVAL;
  if (copy_to_user(buf, out, len))
    return -EFAULT;
  *pos += len;
  return len;
}

static const struct file_operations demo_fops = {
    .owner = THIS_MODULE,
    .read = demo_read,
    .write = demo_write,
    .llseek = noop_llseek,
};

static struct miscdevice demo_dev = {
    .minor = MISC_DYNAMIC_MINOR,
    .name = "ucov-demo",
    .fops = &demo_fops,
    .mode = 0666,
};

module_misc_device(demo_dev);
MODULE_LICENSE("Dual MIT/GPL");
MODULE_DESCRIPTION("ucov's demo module: an expression evaluator");
