// The host reference of the attention cases: one query row's softmax(scale * q K^T) V in double precision, from the
// fp16 inputs as the GPU saw them (already converted to float, exactly).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace tk {

// out[0, dim) = sum_j softmax_j(scale * q . k_j) v_j over keys j in [0, keys); k and v are row-major with `dim`
// values per key row (row j at j * dim).
inline void reference_attention_row(const float* q, const float* k, const float* v, std::size_t keys, int dim,
                                    double scale, double* out) {
  std::vector<double> scores(keys);
  double max_score = -INFINITY;
  for (std::size_t j = 0; j < keys; ++j) {
    const float* key = k + j * static_cast<std::size_t>(dim);
    double dot = 0;
    for (int d = 0; d < dim; ++d) dot += static_cast<double>(q[d]) * static_cast<double>(key[d]);
    scores[j] = scale * dot;
    max_score = std::max(max_score, scores[j]);
  }
  std::vector<double> accumulator(static_cast<std::size_t>(dim), 0.0);
  double sum = 0;
  for (std::size_t j = 0; j < keys; ++j) {
    const double weight = std::exp(scores[j] - max_score);
    sum += weight;
    const float* value = v + j * static_cast<std::size_t>(dim);
    for (int d = 0; d < dim; ++d) accumulator[static_cast<std::size_t>(d)] += weight * static_cast<double>(value[d]);
  }
  for (int d = 0; d < dim; ++d) out[d] = accumulator[static_cast<std::size_t>(d)] / sum;
}

}  // namespace tk
