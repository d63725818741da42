// clang-format off
#include "lib.h"
int main(int argc, char **argv)
{
  (void)argv;
  touch(argc);
  return classify(argc) + loop(3) - 4;
}
