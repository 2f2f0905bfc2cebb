// mrwb sequence: inspect / plot a Pulseq file, or export a scenario's sequence as Pulseq.
#include <iostream>
#include <sstream>

#include "cli_commands.hpp"
#include "cli_outputs.hpp"
#include "mrwb/base/errors.hpp"
#include "mrwb/scenario/scenario.hpp"
#include "mrwb/scenario/scenario_sequence.hpp"
#include "mrwb/sequence/pulseq.hpp"
#include "mrwb/sequence/sequence_blocks.hpp"
#include "mrwb/sequence/sequence_scenario.hpp"

namespace mrwb::cli {
namespace {

struct SequenceOpts {
  std::string in, plot, scenario, out, type;
  bool info = false;
  double plot_from_s = 0, plot_to_s = 0;
  double max_grad_mT_per_m = 0, max_slew_T_per_m_per_s = 0;  // 0: not given
  int minor = 5;
};

void apply_limits(const SequenceOpts& o, seq::SystemLimits& sys) {
  if (o.max_grad_mT_per_m > 0) sys.max_grad_Hz_per_m = o.max_grad_mT_per_m * 1e-3 * seq::gamma_Hz_per_T;
  if (o.max_slew_T_per_m_per_s > 0) sys.max_slew_Hz_per_m_per_s = o.max_slew_T_per_m_per_s * seq::gamma_Hz_per_T;
}

}  // namespace

Action add_sequence(CLI::App& app) {
  auto* sub = app.add_subcommand("sequence", "Pulse sequences and Pulseq files: --in X.seq [--info] [--plot P.png] | --scenario S.json --out Y.seq");
  auto o = std::make_shared<SequenceOpts>();
  sub->add_option("--in", o->in, "Pulseq file to read (1.4 or 1.5)");
  sub->add_flag("--info", o->info, "print duration, blocks, ADC samples, TE/TR");
  sub->add_option("--plot", o->plot, "write the sequence diagram (RF, Gx, Gy, Gz, ADC) as PNG");
  sub->add_option("--plot-from", o->plot_from_s, "diagram window start [s]");
  sub->add_option("--plot-to", o->plot_to_s, "diagram window end [s] (default: whole sequence)");
  sub->add_option("--scenario", o->scenario, "scenario JSON whose sequence is exported");
  sub->add_option("--type", o->type, "override the scenario's sequence type (" + enum_name_list(k_sequence_type_names) + ")");
  sub->add_option("--out", o->out, "Pulseq file to write");
  sub->add_option("--max-grad", o->max_grad_mT_per_m,
                  "gradient amplitude limit [mT/m]: --in checks the file against it, --scenario designs within it (default 32)")
      ->check(CLI::Range(1.0, 1000.0));
  sub->add_option("--max-slew", o->max_slew_T_per_m_per_s,
                  "slew-rate limit [T/m/s]: --in checks the file against it, --scenario designs within it (default 130)")
      ->check(CLI::Range(1.0, 10000.0));
  sub->add_option("--pulseq-minor", o->minor, "Pulseq version 1.<minor> to write (4 or 5)")->check(CLI::IsMember({4, 5}));
  return [o] {
    if (o->in.empty() == o->scenario.empty())
      throw InputError("sequence: give exactly one of --in X.seq or --scenario S.json");
    CommandOutputs outputs({o->in, o->scenario}, {o->out, o->plot});
    seq::BlockSequence s;
    if (!o->in.empty()) {
      s = seq::read_pulseq(o->in);
      // A file carries no hardware limits: checked only against the ones given, before anything is written.
      if (o->max_grad_mT_per_m > 0 || o->max_slew_T_per_m_per_s > 0) {
        apply_limits(*o, s.sys);
        seq::check_limits(s, o->in);
      }
    } else {
      if (o->out.empty() && o->plot.empty() && !o->info)
        throw InputError("sequence: --scenario needs --out Y.seq, --plot P.png or --info");
      const Scenario sc = load_scenario(o->scenario);
      // R, ACS (labels REF / IMA), VENC, flow compensation, radial / spiral readouts come with the scenario;
      // built by the same function that validates it for mrwb simulate (one minimum TE / TR).
      SequenceSpec q = sc.sequence;
      if (!o->type.empty()) q.type = parse_flag("--type", o->type, k_sequence_type_names, "sequence type");
      if (q.type == SequenceType::Bssfp && sc.sequence.type != SequenceType::Bssfp) q.TE_s = 0;  // TE follows TR/2
      seq::SystemLimits sys = seq::scenario_system_limits(q);
      apply_limits(*o, sys);
      const seq::BuiltSequence b = seq::scenario_blocks(q, o->scenario + ": sequence", sys);
      std::cout << b.report << "\n";
      s = b.seq;
      if (!o->out.empty()) seq::write_pulseq(s, o->out, o->minor);
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
    if (!o->plot.empty()) seq::write_diagram_png(seq::sequence_diagram(s, o->plot_from_s, o->plot_to_s), o->plot);
    outputs.commit();
    for (const std::string* w : {&o->out, &o->plot})
      if (!w->empty()) std::cout << "wrote " << *w << "\n";
    return 0;
  };
}

}  // namespace mrwb::cli
