#pragma once
// PHOLD as a run-config workload (`workload: {kind: phold, ...}`): the keys a file may give.
#include "workloads/phold/phold_params.h"
#include "sim/config/schema.h"

namespace tessera::workloads::phold {

const sim::config::Schema<PholdParams>& phold_schema();

}  // namespace tessera::workloads::phold
