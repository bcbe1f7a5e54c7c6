#include "sim/app/calibration/fits.h"

namespace tessera::app::calibration {

const std::vector<FitUnit>& fit_units() {
  static const std::vector<FitUnit> units{boundaries_fit(), launch_fit(), l2_fit(), hbm_fit(), atomic_fit(), link_fit(), flag_fit(), kstep_fit(), matrix_fit(),
                                                 kernel_efficiency_fit(), collective_kernel_fit(), collective_call_fit()};
  return units;
}

}  // namespace tessera::app::calibration
