/* A stand-in for libcublas with the C signatures numtorch binds (cublas_api.h), computing on
 * host memory: under Numba's CUDA simulator "device" pointers are host pointers, so the
 * cuBLAS path of numtorch/cuda/_matmul.py (operand order, ops, leading dimensions, batch
 * strides) runs against a column-major reference that checks cuBLAS's argument rules. */
#include <stdint.h>
#include <string.h>

int fake_calls[4];   /* Sgemm, Dgemm, GemmEx, GemmStridedBatchedEx */
int fake_last_ops[2]; /* transa, transb of the last call */
int fake_last_compute; /* the cublasComputeType_t of the last GemmEx / GemmStridedBatchedEx */
long long fake_last_batch_strides[2]; /* strideA, strideB of the last GemmStridedBatchedEx */
int fake_destroyed; /* cublasDestroy_v2 calls on a live handle */
static int handle_storage;

int cublasCreate_v2(void **handle) { *handle = &handle_storage; return 0; }
int cublasDestroy_v2(void *handle) { if (handle != &handle_storage) return 1; fake_destroyed++; return 0; }
int cublasSetStream_v2(void *handle, void *stream) { return handle == &handle_storage && stream == 0 ? 0 : 7; }

static int bad(void *h, int ta, int tb, int m, int n, int k, int lda, int ldb, int ldc) {
    if (h != &handle_storage || ta < 0 || ta > 1 || tb < 0 || tb > 1 || m < 0 || n < 0 || k < 0) return 1;
    if (lda < (ta ? (k > 1 ? k : 1) : (m > 1 ? m : 1))) return 1;
    if (ldb < (tb ? (n > 1 ? n : 1) : (k > 1 ? k : 1))) return 1;
    return ldc < (m > 1 ? m : 1);
}

/* element (i, j) of op(X), X column-major with leading dimension ld */
#define AT(X, t, i, j, ld) ((t) ? (X)[(j) + (int64_t)(i) * (ld)] : (X)[(i) + (int64_t)(j) * (ld)])
#define GEMM(T, ACC)                                                                  \
    for (int j = 0; j < n; j++)                                                       \
        for (int i = 0; i < m; i++) {                                                 \
            ACC s = 0;                                                                \
            for (int p = 0; p < k; p++) s += (ACC)AT(A, ta, i, p, lda) * (ACC)AT(B, tb, p, j, ldb); \
            ACC old = beta == 0 ? 0 : (ACC)C[i + (int64_t)j * ldc];                   \
            C[i + (int64_t)j * ldc] = (T)(alpha * s + beta * old);                    \
        }

static int gemm(int dt, int ta, int tb, int m, int n, int k, const void *al, const void *a, int lda,
                const void *b, int ldb, const void *be, void *c, int ldc) {
    fake_last_ops[0] = ta; fake_last_ops[1] = tb;
    if (dt == 0) { const float *A = a, *B = b; float *C = c, alpha = *(const float *)al, beta = *(const float *)be; GEMM(float, double) }
    else if (dt == 1) { const double *A = a, *B = b; double *C = c, alpha = *(const double *)al, beta = *(const double *)be; GEMM(double, double) }
    else if (dt == 2) { const _Float16 *A = a, *B = b; _Float16 *C = c; float alpha = *(const float *)al, beta = *(const float *)be; GEMM(_Float16, float) }
    else return 7;
    return 0;
}

int cublasSgemm_v2(void *h, int ta, int tb, int m, int n, int k, const float *al, const float *a, int lda,
                   const float *b, int ldb, const float *be, float *c, int ldc) {
    if (bad(h, ta, tb, m, n, k, lda, ldb, ldc)) return 7;
    fake_calls[0]++;
    return gemm(0, ta, tb, m, n, k, al, a, lda, b, ldb, be, c, ldc);
}

int cublasDgemm_v2(void *h, int ta, int tb, int m, int n, int k, const double *al, const double *a, int lda,
                   const double *b, int ldb, const double *be, double *c, int ldc) {
    if (bad(h, ta, tb, m, n, k, lda, ldb, ldc)) return 7;
    fake_calls[1]++;
    return gemm(1, ta, tb, m, n, k, al, a, lda, b, ldb, be, c, ldc);
}

static int types_ok(int at, int bt, int ct, int compute, int algo) {
    fake_last_compute = compute;
    if (at != bt || bt != ct || algo != -1) return 0;
    return at == 1 ? compute == 70 : at == 2 ? compute == 68 : at == 0 && (compute == 68 || compute == 77);
}

int cublasGemmEx(void *h, int ta, int tb, int m, int n, int k, const void *al, const void *a, int at, int lda,
                 const void *b, int bt, int ldb, const void *be, void *c, int ct, int ldc, int compute, int algo) {
    if (bad(h, ta, tb, m, n, k, lda, ldb, ldc) || !types_ok(at, bt, ct, compute, algo)) return 7;
    fake_calls[2]++;
    return gemm(at, ta, tb, m, n, k, al, a, lda, b, ldb, be, c, ldc);
}

int cublasGemmStridedBatchedEx(void *h, int ta, int tb, int m, int n, int k, const void *al, const void *a,
                               int at, int lda, long long sa, const void *b, int bt, int ldb, long long sb,
                               const void *be, void *c, int ct, int ldc, long long sc, int count, int compute,
                               int algo) {
    if (bad(h, ta, tb, m, n, k, lda, ldb, ldc) || !types_ok(at, bt, ct, compute, algo) || count < 0) return 7;
    fake_calls[3]++;
    fake_last_batch_strides[0] = sa; fake_last_batch_strides[1] = sb;
    if (sc == 0 && count > 1) return 7; /* every product would write the same output */
    int size = at == 1 ? 8 : at == 0 ? 4 : 2;
    for (int z = 0; z < count; z++)
        gemm(at, ta, tb, m, n, k, al, (const char *)a + z * sa * size, lda, (const char *)b + z * sb * size, ldb,
             be, (char *)c + z * sc * size, ldc);
    return 0;
}
