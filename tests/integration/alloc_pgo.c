/* SPDX-License-Identifier: MIT */
/* Work counted by an LLVM profile (clang -fprofile-instr-generate) for test_alloc_fail. */
int alloc_pgo_work(int n);

static int twice(int x) {
  return 2 * x;
}

static int thrice(int x) {
  return 3 * x;
}

int alloc_pgo_work(int n) {
  int (*volatile f)(int) = n % 2 ? twice : thrice; /* an indirect call: value profiling */
  int s = 0;
  for (int i = 0; i < n; i++)
    s += i % 3 ? f(i) : -i;
  return s;
}
