// SPDX-License-Identifier: MIT
/*
 * ucov's demo module: /dev/ucov-demo, an integer expression evaluator with
 * real logic (the bare-metal example's recursive-descent parser). Write an
 * expression, read its value ("42\n") or what is wrong with it ("error:
 * missing )\n"); the first read of each open evaluates the expression
 * written last (then end of file). Built with
 * ucov's instrumentation by its Kbuild file, and nothing here.
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/uaccess.h>

#include "subsys.h"

#define EXPR_MAX 256

static DEFINE_MUTEX(demo_lock);
static char expr[EXPR_MAX];
static size_t expr_len;

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
