/* The header included twice, the implementation once (C99 and C++17, gcc and clang). */
#include "../aicf.h"
#define AICF_IMPLEMENTATION
#include "../aicf.h"
#include "../aicf.h"

int aicf_header_twice_probe(void);
int aicf_header_twice_probe(void) { return (int)aicf_dtype_size(AICF_DTYPE_FLOAT16); }
