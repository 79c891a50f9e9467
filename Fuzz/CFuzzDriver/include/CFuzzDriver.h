// Runs a fuzz target under libFuzzer when the fuzz build links it in, and otherwise replays inputs,
// so the same executable is a fuzzer (scripts/fuzz) and a regression runner (plain `swift build`).
#ifndef CFUZZDRIVER_H
#define CFUZZDRIVER_H

#include <stddef.h>
#include <stdint.h>

/// The fuzz target: one input, return 0.
typedef int (*cfd_target)(const uint8_t *data, size_t size);

/// Under libFuzzer: hands `argc`/`argv` and `target` to `LLVMFuzzerRunDriver` and returns its result.
/// Otherwise: calls `target` once with the contents of every file named in `argv` (directories are read one
/// level deep; arguments starting with `-` are skipped), prints how many, and returns 0, or 1 when a file
/// could not be read.
int cfd_run(int *argc, char ***argv, cfd_target target);

/// Whether libFuzzer is linked in.
int cfd_is_fuzzing(void);

#endif
