/* SPDX-License-Identifier: MIT */
/*
 * Built with `ucov cc --trace -O2` (gcc): the hook call that ends each path
 * of maybe() becomes a tail jump to the hook, whose traced PC is the return
 * address in the caller, after its call to maybe().
 */
int total;

__attribute__((noinline)) void sink(int x) {
  total += x;
}

__attribute__((noinline)) void maybe(int x) {
  if (x > 3)
    sink(x);
}
