#ifndef CLIBFUZZER_H
#define CLIBFUZZER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver (in the runtime `-sanitize=fuzzer` links): parses its
/// flags from argv and fuzzes `callback`. Called from the binary's own `main`,
/// which SwiftPM's debug build renames for testability, so libFuzzer's cannot be used.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
