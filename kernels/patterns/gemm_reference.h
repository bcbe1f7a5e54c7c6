// Host references of the GEMM cases: a deterministic sample of output rows spread over M, their exact value in
// double precision, and the tolerance of an fp16 GEMM with fp32 accumulation and fp16 output.
//
// Why a sample: the full reference is m x n x k multiply-adds on the host (68.7 G for 4096^3), far too slow; a
// sample of rows checks every column tile in every sampled row, and the rows are spread so that every row-block
// (for m / rows >= block_m) and many positions within a 16-row fragment are hit.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "harness/check.h"
#include "harness/device_data.h"

namespace tk::gemm {

// The rows to check when the user leaves check_rows at 0: as many as keep the host reference near 1 G
// multiply-adds (rows x k x n), at least 8 and at most 64, never more than m.
inline std::int64_t automatic_check_rows(std::int64_t requested, std::int64_t m, std::int64_t k, std::int64_t n) {
  if (requested > 0) return std::min(requested, m);
  const std::int64_t affordable = static_cast<std::int64_t>(1e9 / (static_cast<double>(k) * static_cast<double>(n)));
  return std::min(m, std::max<std::int64_t>(8, std::min<std::int64_t>(64, affordable)));
}

// `count` rows of [0, m): one per stretch of m / count rows, at an offset within it that changes from row to row
// (37 is odd and not a power of two, so the offsets cycle through every position modulo 16 and modulo a tile).
inline std::vector<std::int64_t> sample_rows(std::int64_t m, std::int64_t count) {
  count = std::max<std::int64_t>(1, std::min(count, m));
  const std::int64_t stretch = m / count;
  std::vector<std::int64_t> rows;
  rows.reserve(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i) rows.push_back(i * stretch + (i * 37) % stretch);
  return rows;
}

// C rows = A rows (each k values) times B (k x n, row-major), in double: result[r * n + j].
inline std::vector<double> reference_rows(const std::vector<std::vector<float>>& a_rows, const std::vector<float>& b,
                                          std::int64_t k, std::int64_t n) {
  const std::size_t rows = a_rows.size();
  std::vector<double> c(rows * static_cast<std::size_t>(n), 0.0);
  std::vector<double> b_row(static_cast<std::size_t>(n));
  for (std::int64_t kk = 0; kk < k; ++kk) {
    const float* from = b.data() + static_cast<std::size_t>(kk) * n;
    for (std::int64_t j = 0; j < n; ++j) b_row[j] = from[j];
    for (std::size_t r = 0; r < rows; ++r) {
      const double a = a_rows[r][static_cast<std::size_t>(kk)];
      double* out = c.data() + r * n;
      for (std::int64_t j = 0; j < n; ++j) out[j] += a * b_row[j];
    }
  }
  return c;
}

// The sampled rows of a row-major fp16 matrix with `ld` elements per row, `columns` of them from `first_column`.
inline std::vector<float> copy_rows(Context& context, int rank, const __half* matrix, std::int64_t ld,
                                    std::int64_t first_column, std::int64_t columns,
                                    const std::vector<std::int64_t>& rows) {
  std::vector<float> out;
  out.reserve(rows.size() * static_cast<std::size_t>(columns));
  for (std::int64_t row : rows) {
    const std::vector<float> values =
        copy_to_host(context, rank, matrix + row * ld + first_column, static_cast<std::size_t>(columns));
    out.insert(out.end(), values.begin(), values.end());
  }
  return out;
}

// Tolerance of the norm-wise relative error (harness/check.h: largest |error| over the largest |reference|) of an
// fp16 x fp16 GEMM with fp32 accumulation and fp16 output, inputs uniform in [-1, 1):
//  * fp16 output rounding: at most half an ulp, 2^-11 relative to the value, hence <= 2^-11 ~ 4.9e-4 of the
//    largest value;
//  * fp32 accumulation: products of fp16 values are exact in fp32; the K/16 chained matrix-unit additions round
//    (or truncate, on some matrix units) at 2^-23 of a partial sum, and partial sums of these random-sign terms
//    stay within a few times the final values: about (K / 16) * 2^-23 * 4 (1e-3 at K = 36864; 2.4e-4 at 8192).
// A wrong result is far above this: one missing block_k step of 32 terms (each of variance 1/9) changes the values
// by ~sqrt(32/9) ~ 1.9 typically, ~8 at the worst sampled value, in a result whose largest value is
// ~4.5 * sqrt(K / 9) (~135 at K = 8192): ~6e-2.
inline double fp16_gemm_tolerance(std::int64_t k) {
  return 1.0 / 2048.0 + static_cast<double>(k) / 16.0 * 4.0 / 8388608.0 + 1e-4;
}

inline std::string rows_detail(std::size_t sampled, std::int64_t m, std::int64_t n) {
  return std::to_string(sampled) + " of " + std::to_string(m) + " rows (all " + std::to_string(n) +
         " columns) against a double-precision host reference";
}

}  // namespace tk::gemm
