#include <iostream>

#include "cli_commands.hpp"
#include "mrwb/errors.hpp"
#include "mrwb/file_io.hpp"
#include "mrwb/recon_fft.hpp"
#include "mrwb/reconstructor.hpp"

namespace mrwb::cli {

Action add_recon(CLI::App& app) {
  auto* sub = app.add_subcommand("recon", "Reconstruct raw data into an image");
  struct Opts {
    std::string in, method = "fft", backend = "auto";
    std::vector<std::string> out;
    bool quiet = false;
  };
  auto o = std::make_shared<Opts>();
  sub->add_option("--in", o->in, "Raw data (ISMRMRD .h5)")->required();
  sub->add_option("--method", o->method, "fft | grappa | gridding | cg");
  sub->add_option("--out", o->out, "Image(s): .h5 and/or .png (repeatable)")->required();
  sub->add_option("--backend", o->backend, "auto | cpu | cuda");
  sub->add_flag("--quiet", o->quiet, "No progress output");
  return [o] {
    ReconOptions opts;
    opts.method = o->method;
    opts.backend = o->backend;
    const RawData raw = read_raw_ismrmrd(o->in);
    auto recon = make_reconstructor(opts.method, opts.backend);
    const Image2D img = recon->reconstruct(raw, opts, terminal_progress(o->quiet), interrupt_token());
    for (const auto& p : o->out) write_image(p, img);
    if (!o->quiet) std::cerr << "wrote " << img.nx << "x" << img.ny << " image (" << o->method << ")\n";
    return 0;
  };
}

}  // namespace mrwb::cli
