// SPDX-License-Identifier: MIT
/* The bare-metal example's parser, compiled as it is into the demo module. */
#include "../baremetal/parser.c"
