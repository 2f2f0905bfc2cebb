// The checks of a reconstruction before its work (recon_check.hpp).
#include "mrwb/recon/recon_check.hpp"

#include "mrwb/base/errors.hpp"
#include "mrwb/recon/grappa.hpp"
#include "mrwb/recon/multislice.hpp"
#include "mrwb/recon/noncart_volume.hpp"
#include "mrwb/recon/cartesian_sense_operator.hpp"
#include "mrwb/recon/sense.hpp"

namespace mrwb {

void check_recon_input(const RawData& raw, const ReconOptions& options) {
  const ReconMethod method = options.method;
  if (method == ReconMethod::Gridding || method == ReconMethod::Cg)
    return noncart::check_noncart_recon(raw, method, options.backend, options.noncart);
  if (!raw.cartesian())
    throw InputError("trajectory: the data are non-Cartesian; --method " + name_of(method) +
                     " needs Cartesian lines (allowed: --method gridding or cg)");
  make_reconstructor(method, options.backend);  // refuses an unavailable backend
  if (raw.volume()) check_hybrid_space(raw);
  // Every slice and partition shares the line flags and R, so the first plane speaks for all.
  const RawData first = raw.volume() ? extract_slice(raw, 0, 0) : RawData{};
  const RawData& plane = raw.volume() ? first : raw;
  if (method == ReconMethod::Grappa) grappa_geometry(plane, options.grappa);
  if (method == ReconMethod::Sense) {
    if (sense_regular_comb(plane)) check_sense_input(plane, options.sense.maps);
    else check_cg_sense_input(plane, options.sense.maps, options.sense.cg);
  }
  if (method == ReconMethod::Cs) {
    check_cartesian_slice("cs", plane, options.sense.maps);
    check_cs_params(options.cs);
  }
}

}  // namespace mrwb
