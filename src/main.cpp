// repro: a thin main; everything lives in the library (see src/cli/cli.cpp).
#include "cli/cli.h"

int main(int argc, char** argv) { return repro::cli_main(argc, argv); }
