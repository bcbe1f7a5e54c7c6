// What a result records about the GPU it ran on: the name the runtime reports, versions, clocks where readable.
#pragma once

#include <nlohmann/json.hpp>

namespace tk {

nlohmann::json describe_device(int device);
// Driver and runtime versions as the runtime reports them (integers, e.g. 13000 for CUDA 13.0).
nlohmann::json describe_runtime();

}  // namespace tk
