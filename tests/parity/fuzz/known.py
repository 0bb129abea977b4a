"""Findings still open, by class and call label (regular expressions over ``Call.label()``).

The fuzz tests fail on any finding not listed here, so a new bug (or a regression of a fixed
one) fails them, while the per-op bugs issue 10 lists stay visible until their fixes land.
Remove an entry with the fix that makes it pass; the CLI report shows what each one covers.
"""

from __future__ import annotations

import re

# (class, label pattern, why it is still open)
KNOWN: list[tuple[str, str, str]] = [
    ("accepted", r"^fn:operator\(str, float16|^torch\.where\(.*float16.*complex|^torch\.(true_divide|divide|div)\(float16\w*, complex",
     "complex half (numtorch promotes to complex64)"),
    # found by the long profile after session 3's merges; open (issue 10)
    ("wrong", r"^F\.group_norm\(", "group_norm with a 1e30 element: float32 variance overflows where torch accumulates in double"),
    ("wrong", r"^F\.gelu\(", "gelu(+inf): torch 2.13 gives nan, numtorch inf (the limit)"),
    ("nt_raises", r"^torch\.take_along_dim\(", "torch reads out of bounds for an out-of-range index; numtorch raises (kept)"),
    ("nt_raises", r"^linalg\.eigvalsh\(int64e", "an empty integer matrix"),
    ("wrong", r"^(torch|m)\.n?a?n?median\(\w+/expand", "torch 2.13 reads garbage for the median of a stride-0 tensor (float16, uint8, int64, NaN float32 seen: "
     "119 for [9, 9, 9, 9]; an oracle bug; numtorch is right)"),
    ("wrong", r"^torch\.mode\(float", "mode of a slice holding NaN: torch's std::sort with NaN has no defined order (its answer depends on where the NaN sits)"),
    ("nt_raises", r"^linalg\.lstsq\(", "lstsq of a matrix holding inf: torch's default gelsy returns zeros; numtorch refuses non-finite input as LAPACK's scaling does for NaN"),
    # session 7 (fuzz7): torch quirks kept, not mimicked
    ("accepted", r"^(torch|m)\.logsumexp\([\w/]+, \[\]\)", "logsumexp(x, dim=()): torch 2.13 fails resizing its own output "
     "(an oracle bug); numtorch reduces every dim as logsumexp(x, dim=None) does"),
    ("exc_type", r"^torch\.randn?\(\[int\], dtype=(u?int|bool)", "an allocation too large for memory with an integer dtype: torch "
     "allocates before its dtype check (OOM), numtorch refuses the dtype first (kept)"),
    ("wrong", r"^torch\.matmul\(float16, complex64e", "torch 2.13 gives float16 for an empty float16 @ complex64 "
     "product (no promotion on its empty path); numtorch promotes (kept)"),
    # found by seeds 26-29 after session 7's fixes; open
    ("wrong", r"^linalg\.cholesky_ex\(float32", "a float32 matrix whose last pivot is within rounding of 0: NumPy's "
     "spotrf (OpenBLAS) and torch's (MKL) sum in different orders, so one finds it positive-definite and the other "
     "not (neither is wrong; float64 agrees)"),
    ("accepted", r"^linalg\.cholesky\(float32", "near-singular float32 input (as cholesky_ex above)"),
    ("wrong", r"^linalg\.pinv\(", "a matrix holding inf/NaN: torch's gesdd (MKL) propagates NaN differently from "
     "NumPy's SVD (torch all-NaN or zeros; neither is meaningful; inv follows torch's getrf + getrs since session 10)"),
    ("nt_raises", r"^linalg\.(eigh|eigvalsh)\(", "eigh of a matrix holding inf/NaN: torch's syevd returns NaN or "
     "arbitrary eigenvalues; numtorch raises torch's LinAlgError where LAPACK reports non-convergence (kept)"),
    ("wrong", r"^torch\.(var|std)_mean\(", "var_mean of a slice holding inf: torch's Welford mean turns inf into NaN "
     "(inf - inf); numtorch's mean is inf, as torch.mean gives (kept)"),
    ("exc_type", r"^(m|torch)\.index_(fill|copy)_?\(\w+e[/,]", "an out-of-range index into a zero-size dim: torch 2.13 fails "
     "in setStorage (RuntimeError, a storage-size message) where numtorch raises its usual IndexError (kept)"),
    # session 8 (fuzz8), seeds 36-41: open, numtorch's defects
    # session 8 (fuzz8b), seeds 42-: torch's own
    ("wrong", r"^torch\.nansum\(float16\b.*dtype=u?int", "a float16 inf cast to an integer dtype: undefined in C++; "
     "torch 2.13's nansum casts it to -32 (-34 for [-2.04, 0.5, inf] as int16) where its own .to() and sum give 0; "
     "numtorch gives 0 (kept)"),
    ("wrong", r"^torch\.(addmm|mm|matmul|bmm|mv|addmv|einsum)\((str, )?complex", "a complex product holding inf: torch's "
     "BLAS gemm/gemv gives nan+nanj (its einsum sometimes inf+infj) where numtorch's product gives inf+infj or "
     "nan+infj (C99 leaves the parts unspecified; seeds 96, 201 found mv and einsum)"),
    ("nt_raises", r"^(torch|m)\.cumm(ax|in)\(.*out=\[\w+/(expand|overlap)", "cummax/cummin out= into expanded "
     "memory: torch's kernel writes through the aliases (last write wins); numtorch refuses it as torch's "
     "TensorIterator ops do (kept)"),
    ("accepted", r"^torch\.kron\(", "torch 2.13's kron calls view() on a non-contiguous operand's reshape and "
     "raises 'view size is not compatible'; numtorch computes the product (kept)"),
    ("accepted", r"^torch\.ldexp\(.*out=", "ldexp(float16, int64, out=float64): torch 2.13 fails its own "
     "INTERNAL ASSERT (needs_dynamic_casting); numtorch casts into out as torch's other ops do (kept)"),
    # session 9 (fuzz9a)
    ("wrong", r"^F\.layer_norm\(float32", "a float32 row holding 1e30: torch's float32 moments overflow (inf variance, "
     "NaN out); numtorch's kernel sums in float64 and normalises it (seed 60; kept: the float64 sums are the "
     "layer_norm kernel's accuracy choice, as group_norm's entry above)"),
    ("wrong", r"^(torch|m)\.ldexp_?\([\w/]+, u?int(32|64)", "an integer exponent outside int32 (seed 57: 2**63-1): "
     "torch 2.13's ldexp kernel casts it to C int, which wraps (ldexp(1.0, 2**32 + 3) gives 8.0); numtorch computes "
     "x * 2**e (inf/0) as torch's own pow(2, e) does (kept)"),
    # session 9 (fuzz9b), seeds 70-89 and the long profile
    ("wrong", r"^(fn:operator\(str, float16e, complex\)|torch\.where\(\w+e?(/\w+)?, float16e, complex\))",
     "an empty float16 tensor with a complex number: torch 2.13 gives complex32 (its empty path computes nothing), "
     "numtorch complex64 (no complex32; as the accepted entry above; seed 94 found where's)"),
    ("wrong", r"^torch\.all\(.*out=uint8", "all(out=uint8) casts the input to uint8 first in torch 2.13 (-0.4 and 0.4 "
     "become 0, so False) where any(out=uint8) and all() do not; numtorch tests each element's truth (kept)"),
    # session 10 (fuzz10)
    ("wrong", r"^(torch|m)\.logsumexp\(complex[\w/]*, .*out=(float|bfloat)", "logsumexp(complex, out=real): torch 2.13's "
     "logsumexp_out sums the complex exponentials straight into the real out (its sum_out) and gives NaN; numtorch "
     "casts the complex result into out as a cast does, keeping the real part (seed 300; kept)"),
    ("wrong", r"^F\.conv1d\(float(32|64)(/\w+)?, float(32|64)(/\w+)?, padding=(int|str)\)$", "a NaN/inf weight on a "
     "tap that falls on padding: torch 2.13's oneDNN path skips padded taps (finite output) while its slow path "
     "multiplies them by the zero pad (NaN), depending on sizes; numtorch pads explicitly, as the latter (seed 400)"),
]


def is_known(cls: str, label: str) -> str | None:
    for c, pat, why in KNOWN:
        if c == cls and re.search(pat, label):
            return why
    return None
