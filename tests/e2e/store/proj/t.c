/* tests/e2e/store.sh: test program TEST (1, 2 or 3) of three. */
int lib_add(int a, int b);
int lib_sign(int x);
int lib_loop(int n);

int main(int argc, char **argv) {
  (void)argv;
#if TEST == 1
  return lib_add(argc, 1) - 2;
#elif TEST == 2
  return lib_sign(argc - 2) + 1;
#else
  return lib_loop(argc + 6) - lib_loop(7);
#endif
}
