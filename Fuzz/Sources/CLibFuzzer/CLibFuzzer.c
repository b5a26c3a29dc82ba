// Declarations only: the driver itself is in the runtime that -sanitize=fuzzer links.
#include "CLibFuzzer.h"
