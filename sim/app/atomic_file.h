#pragma once
// The commands write their outputs through sim/io/output_file.h (regular files only, atomically).
#include "sim/io/output_file.h"

namespace tessera::app {

using sim::io::write_file_atomically;

}  // namespace tessera::app
