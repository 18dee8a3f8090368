/* The declarations alone: must compile with no CUDA headers and no implementation. */
#include "../aicf.h"
#include "../aicf.h"

int aicf_header_decl_probe(void);
int aicf_header_decl_probe(void) {
    aicf_tensor_desc d;
    (void)d;
    return (int)sizeof(aicf_plan_desc) + (int)AICF_ERROR_NO_DEVICE;
}
