#pragma once
// --png-bits, --window and --level for the commands that write magnitude PNGs (recon --out, simulate
// --truth): viewers state a display window as width and centre.
#include <CLI/CLI.hpp>

#include "mrwb/io/file_io.hpp"

namespace mrwb::cli {

inline void add_png_options(CLI::App* sub, PngOptions& png) {
  sub->add_option("--png-bits", png.bit_depth, "PNG bit depth: 8 | 16 (default 8)")->check(CLI::IsMember({8, 16}));
  auto* w = sub->add_option("--window", png.window, "PNG window width, image units (default: full range 0 .. max)")
                ->check(CLI::PositiveNumber);
  auto* l = sub->add_option("--level", png.level, "PNG window centre, image units (goes with --window)");
  w->needs(l);
  l->needs(w);
}

}  // namespace mrwb::cli
