// repro: a thin main; everything lives in the library (src/cli/entry.cpp, src/cli/cli.cpp).
#include "cli/cli.h"

int main(int argc, char** argv) { return repro::repro_main(argc, argv); }
