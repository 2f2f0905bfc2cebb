// mrwb sequence: inspect / plot a Pulseq file, or export a scenario's sequence as Pulseq.
#include <iostream>
#include <sstream>

#include "cli_commands.hpp"
#include "mrwb/errors.hpp"
#include "mrwb/pulseq.hpp"
#include "mrwb/scenario.hpp"
#include "mrwb/sequence_blocks.hpp"
#include "mrwb/sequence_scenario.hpp"

namespace mrwb::cli {

Action add_sequence(CLI::App& app) {
  auto* sub = app.add_subcommand("sequence", "Pulse sequences and Pulseq files: --in X.seq [--info] [--plot P.png] | --scenario S.json --out Y.seq");
  struct Opts {
    std::string in, plot, scenario, out, type;
    bool info = false;
    double plot_from_s = 0, plot_to_s = 0;
    int minor = 5;
  };
  auto o = std::make_shared<Opts>();
  sub->add_option("--in", o->in, "Pulseq file to read (1.4 or 1.5)");
  sub->add_flag("--info", o->info, "print duration, blocks, ADC samples, TE/TR");
  sub->add_option("--plot", o->plot, "write the sequence diagram (RF, Gx, Gy, Gz, ADC) as PNG");
  sub->add_option("--plot-from", o->plot_from_s, "diagram window start [s]");
  sub->add_option("--plot-to", o->plot_to_s, "diagram window end [s] (default: whole sequence)");
  sub->add_option("--scenario", o->scenario, "scenario JSON whose sequence is exported");
  sub->add_option("--type", o->type, "override the scenario's sequence type (spoiled_gre, spin_echo, bssfp, phase_contrast, tof)");
  sub->add_option("--out", o->out, "Pulseq file to write");
  sub->add_option("--pulseq-minor", o->minor, "Pulseq version 1.<minor> to write (4 or 5)")->check(CLI::IsMember({4, 5}));
  return [o] {
    if (o->in.empty() == o->scenario.empty())
      throw InputError("sequence: give exactly one of --in X.seq or --scenario S.json");
    seq::BlockSequence s;
    if (!o->in.empty()) {
      s = seq::read_pulseq(o->in);
    } else {
      if (o->out.empty() && o->plot.empty() && !o->info)
        throw InputError("sequence: --scenario needs --out Y.seq, --plot P.png or --info");
      const Scenario sc = load_scenario(o->scenario);
      // R, ACS (labels REF / IMA), VENC and flow compensation come with the scenario's parameters.
      seq::CartesianParams p = seq::cartesian_params(sc.sequence);
      const std::string type = o->type.empty() ? sc.sequence.type : o->type;
      if (type == "bssfp" && sc.sequence.type != "bssfp") p.TE_s = 0;  // TE follows TR/2
      p.flip_angle_deg = type == "spin_echo" ? 90 : sc.sequence.flip_angle_deg;
      const seq::BuiltSequence b = seq::build_blocks(type, p, o->scenario + ": sequence");
      std::cout << b.report << "\n";
      s = b.seq;
      if (!o->out.empty()) {
        seq::write_pulseq(s, o->out, o->minor);
        std::cout << "wrote " << o->out << "\n";
      }
    }
    for (const auto& w : s.warnings) std::cerr << "mrwb sequence: warning: " << w << "\n";
    if (o->info || (o->plot.empty() && !o->in.empty())) {
      const seq::ProgramConversion c = seq::to_sequence_program(s);
      long long rf = 0;
      for (const auto& b : s.blocks) rf += b.rf.has_value();
      std::cout << "name: " << (s.name.empty() ? "(none)" : s.name) << "\n"
                << "duration: " << s.duration_s() << " s\n"
                << "blocks: " << s.blocks.size() << "\n"
                << "rf pulses: " << rf << "\n"
                << "adc events: " << c.adc_count << "\n"
                << "adc samples: " << s.adc_samples() << "\n";
      if (c.TE_s > 0) std::cout << "TE: " << c.TE_s * 1e3 << " ms (excitation centre to the sample nearest k = 0)\n";
      else std::cout << "TE: not derivable\n";
      if (c.TR_s > 0) std::cout << "TR: " << c.TR_s * 1e3 << " ms (median excitation spacing)\n";
      else std::cout << "TR: not derivable\n";
    }
    if (!o->plot.empty()) {
      seq::write_diagram_png(seq::sequence_diagram(s, o->plot_from_s, o->plot_to_s), o->plot);
      std::cout << "wrote " << o->plot << "\n";
    }
    return 0;
  };
}

}  // namespace mrwb::cli
