/* SPDX-License-Identifier: MIT */
/* The library tests/e2e/dormant/many.c loads many copies of. */
int many_work(int x) {
  return x % 5 == 7 ? x : x * 3 + 1;
}
