/* SPDX-License-Identifier: MIT */
/* Built without -g and linked after endrow.s: code with no line. */
int with_lines(void);

__attribute__((noinline)) int no_lines(int x) {
  return x * 3 + 1;
}

int main(void) {
  with_lines();
  return no_lines(2) == 7 ? 0 : 1;
}
