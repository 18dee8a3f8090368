/* libFuzzer target: the ONNX TensorProto reader (aicf_tensor_read_pb_memory).

   The input is a serialized TensorProto (the .pb files of ONNX test data sets). When it reads,
   the result must be consistent: rank 0..AICF_MAX_RANK, non-negative dims, bytes == element
   count * element size, every data byte readable; then it is written back with
   aicf_tensor_write_pb (to /dev/shm, or $TMPDIR when /dev/shm is absent), read again, and the two
   reads must agree. 1 input in 16 also fails one allocation (fault injection). */
#define _POSIX_C_SOURCE 200809L
#define AICF_IMPLEMENTATION
#define AICF_NO_KERNEL_TABLE
#include "../../aicf.h"
#include "fuzz_common.h"

#include <unistd.h>

static int fz_tensor_ok(const aicf_host_tensor* t) {
    size_t n = 1, es;
    int j;
    if (t->rank < 0 || t->rank > AICF_MAX_RANK || !t->name) return 0;
    for (j = 0; j < t->rank; j++) {
        if (t->dims[j] < 0) return 0;
        if (!aicf__mul_size(n, (size_t)t->dims[j], &n)) return 0;
    }
    es = aicf_dtype_size(t->dtype);
    if (es == 0) return 1; /* a dtype without a fixed size (e.g. STRING) if the reader returns one */
    if (!aicf__mul_size(n, es, &n) || n != t->bytes) return 0;
    if (t->bytes && !t->data) return 0;
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    fz_heap heap;
    aicf_context* ctx;
    aicf_host_tensor t, t2;
    aicf_result r;
    uint64_t h = fz_hash(data, size);
    ctx = fz_context(&heap, h, 1);
    if (!ctx) return 0;
    r = aicf_tensor_read_pb_memory(ctx, data, size, &t);
    fz_check_err(ctx, r, "aicf_tensor_read_pb_memory");
    if (r == AICF_SUCCESS) {
        if (!fz_tensor_ok(&t)) fz_fail("aicf_tensor_read_pb_memory", "inconsistent tensor");
        fz_consume(t.name, strlen(t.name));
        fz_consume(t.data, t.bytes);
        if (t.bytes <= ((size_t)1 << 20) && aicf_dtype_size(t.dtype) != 0) {
            char path[256];
            const char* dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
            snprintf(path, sizeof path, "%s/aicf_fuzz_pb_%ld.pb", dir, (long)getpid());
            r = aicf_tensor_write_pb(ctx, path, &t);
            fz_check_err(ctx, r, "aicf_tensor_write_pb");
            if (r == AICF_SUCCESS) {
                r = aicf_tensor_read_pb(ctx, path, &t2);
                fz_check_err(ctx, r, "aicf_tensor_read_pb");
                if (r == AICF_SUCCESS) {
                    if (strcmp(t.name, t2.name) != 0 || t.dtype != t2.dtype || t.rank != t2.rank ||
                        memcmp(t.dims, t2.dims, sizeof(int64_t) * (size_t)t.rank) != 0 || t.bytes != t2.bytes ||
                        (t.bytes && memcmp(t.data, t2.data, t.bytes) != 0))
                        fz_fail("aicf_tensor_write_pb + read_pb", "round trip changed the tensor");
                    aicf_host_tensor_free(ctx, &t2);
                } else if (r != AICF_ERROR_OUT_OF_MEMORY) {
                    fz_fail("aicf_tensor_read_pb", "cannot read what aicf_tensor_write_pb wrote");
                }
            }
            unlink(path);
        }
        aicf_host_tensor_free(ctx, &t);
    }
    fz_context_done(ctx, &heap);
    return 0;
}
