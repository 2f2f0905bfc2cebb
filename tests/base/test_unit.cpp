// Unit tests: Bloch operators, phantom discretisation, sequence program, FFT, metrics, registries.
#include <QTest>

#include <algorithm>
#include <cmath>
#include <thread>

#include "mrwb/base/backend_registry.hpp"
#include "mrwb/base/parallel_ranges.hpp"
#include "mrwb/metrics/metrics.hpp"
#include "mrwb/phantom/phantom.hpp"
#include "mrwb/recon/recon_fft.hpp"
#include "mrwb/scenario/scenario_phantom.hpp"
#include "mrwb/sequence/sequence_program.hpp"
#include "mrwb/sequence/sequence_scenario.hpp"
#include "mrwb/simulation/backend_registry.hpp"
#include "mrwb/simulation/bloch_cell_ops.hpp"

using namespace mrwb;

class TestUnit : public QObject {
  Q_OBJECT
 private slots:
  void rfTipsZToPlusY() {
    bloch::Mag m{0, 0, 1};
    const float a = 30 * M_PI / 180;
    bloch::rf_rotate(m, std::cos(a), std::sin(a), 1, 0);
    QCOMPARE_LE(std::abs(m.Mx), 1e-7f);
    QCOMPARE_LE(std::abs(m.My - std::sin(a)), 1e-6f);
    QCOMPARE_LE(std::abs(m.Mz - std::cos(a)), 1e-6f);
  }
  void rfPreservesLengthForAnyPhase() {
    bloch::Mag m{0.3f, -0.4f, 0.5f};
    const float len0 = std::sqrt(m.Mx * m.Mx + m.My * m.My + m.Mz * m.Mz);
    for (int k = 0; k < 16; ++k) bloch::rf_rotate(m, std::cos(0.7f), std::sin(0.7f), std::cos(0.3f * k), std::sin(0.3f * k));
    QCOMPARE_LE(std::abs(std::sqrt(m.Mx * m.Mx + m.My * m.My + m.Mz * m.Mz) - len0), 1e-5f);
  }
  void precessionIsClockwiseAndRelaxes() {
    // Rz(theta) of Eq. 7: Mxy' = Mxy·exp(−i·theta); Mz' = E1·Mz + PD·(1 − E1) (corrected Eq. 6).
    bloch::Mag m{1, 0, 0.2f};
    const float th = 0.5f, E1 = 0.9f, E2 = 0.8f;
    bloch::precess_relax(m, 1.0f, 1.0f - E1, E2, std::cos(th), std::sin(th));
    QCOMPARE_LE(std::abs(m.Mx - E2 * std::cos(th)), 1e-6f);
    QCOMPARE_LE(std::abs(m.My + E2 * std::sin(th)), 1e-6f);
    QCOMPARE_LE(std::abs(m.Mz - (E1 * 0.2f + 0.1f)), 1e-6f);
  }
  void phantomPartialVolumeAndTissues() {
    PhantomSpec p;
    p.preset = "straight_vessel";
    p.cells_per_voxel = 2;
    p.disc_radius_m = 0.05;
    p.vessel_radius_m = 0.01;
    const CellPhantom ph = build_phantom(p, 0.128, 32);
    QCOMPARE(ph.nx, 64);
    QCOMPARE(ph.cell_size_m, 0.002);
    int fluid = 0, partial = 0;
    for (std::size_t i = 0; i < ph.size(); ++i) {
      fluid += ph.type[i] == static_cast<std::uint8_t>(CellType::Fluid);
      partial += ph.PD[i] > 0 && ph.PD[i] < 0.78f;
    }
    // A 20 mm wide band across the 128 mm grid: about 10 of 64 rows are fluid.
    QVERIFY(fluid >= 9 * 64 && fluid <= 11 * 64);
    QVERIFY(partial > 0);  // the disc edge has partial-volume cells
  }
  void greProgramTiming() {
    SequenceSpec s;
    s.matrix = 32;
    s.dummy_scans = 3;
    const SequenceProgram p = build_sequence_program(s);
    QCOMPARE(p.readouts, 32);
    // Per TR: RF + prephase + readout + rest adds up to TR exactly.
    double t = 0;
    int readouts = 0;
    for (const auto& e : p.events) {
      if (e.kind == EventKind::Free) t += e.dt_s;
      if (e.kind == EventKind::Readout) {
        t += e.n_samples * e.dt_s;
        ++readouts;
      }
    }
    QVERIFY(std::abs(t - (3 + 32) * s.TR_s) < 1e-9);
    QCOMPARE(readouts, 32);
  }
  void fftOfCentredDeltaIsConstant() {
    RawData raw;
    raw.nx = 16;
    raw.ny = 8;
    raw.kspace.assign(16 * 8, {});
    raw.at(0, 4, 8) = {128.f, 0.f};  // k = 0 only
    const Image2D img = reconstruct_fft(raw);
    for (const auto& v : img.data) QCOMPARE_LE(std::abs(v - std::complex<float>(1.f, 0.f)), 1e-6f);
  }
  void fftPlacesAnOffsetPointAtItsVoxel() {
    // S(k) = exp(−i 2π k·r) for a point at voxel (3, −2) from the centre.
    RawData raw;
    raw.nx = raw.ny = 16;
    raw.kspace.resize(256);
    for (int l = 0; l < 16; ++l)
      for (int s = 0; s < 16; ++s)
        raw.at(0, l, s) = std::polar(1.f, static_cast<float>(-2 * M_PI * ((s - 8) * 3 + (l - 8) * -2) / 16.0));
    const auto mag = reconstruct_fft(raw).magnitude();
    const auto peak = std::max_element(mag.begin(), mag.end()) - mag.begin();
    QCOMPARE(static_cast<int>(peak % 16), 8 + 3);
    QCOMPARE(static_cast<int>(peak / 16), 8 - 2);
  }
  void metricsOfKnownError() {
    std::vector<float> ref(64 * 64, 1.f), img(64 * 64, 1.1f);
    const Metrics m = compare_images(img, ref, 64, 64);
    QVERIFY(std::abs(m.psnr_db - 20.0) < 1e-4);  // max 1 over RMSE 0.1
    QVERIFY(std::abs(m.percent_error - 10.0) < 1e-3);
    const Metrics same = compare_images(ref, ref, 64, 64);
    QVERIFY(std::isinf(same.psnr_db));
    QCOMPARE(same.percent_error, 0.0);
    std::vector<float> ramp(64 * 64);
    for (std::size_t i = 0; i < ramp.size(); ++i) ramp[i] = static_cast<float>(i % 64);
    QVERIFY(std::abs(compare_images(ramp, ramp, 64, 64).ssim - 1.0) < 1e-9);
    std::vector<float> noisy = ramp;
    for (std::size_t i = 0; i < noisy.size(); i += 2) noisy[i] += 8;
    QVERIFY(compare_images(noisy, ramp, 64, 64).ssim < 0.9);
  }
  void registryHasCpuAndAutoFallsBack() {
    bool has_cpu = false;
    for (const auto& b : list_backends()) has_cpu |= (b.name == Backend::Cpu && b.available);
    QVERIFY(has_cpu);
    QVERIFY(make_simulation_engine(Backend::Auto) != nullptr);
    QVERIFY(!parse_backend("opencl"));  // refused where the text is read, before any registry
  }
  // The one auto | cpu | cuda rule of every registry (base/backend_registry.hpp): auto takes an available
  // cuda, else cpu; cpu / cuda take that one; missing and unavailable choices are refused (unknown names
  // never become a Backend).
  void backendChoiceRule() {
    bool device = false;
    BackendRegistry<std::string> r({{{"x", Backend::Cpu}, {[] { return true; }, std::string("cpu made")}}});
    const BackendRefusalText text = [](BackendRefusal why, Backend choice, Backend backend) {
      return std::to_string(static_cast<int>(why)) + " " + name_of(choice) + " " + name_of(backend);
    };
    auto refusal = [&](Backend choice, const std::string& what = "x") {
      try {
        r.choose(what, choice, text);
      } catch (const InputError& e) {
        return std::string(e.what());
      }
      return std::string("none");
    };
    QCOMPARE(r.choose("x", Backend::Auto, text), std::string("cpu made"));
    QCOMPARE(refusal(Backend::Cuda), std::string("0 cuda cuda"));  // missing
    QVERIFY(!parse_backend("opencl"));
    r.add("x", Backend::Cuda, {[&device] { return device; }, std::string("cuda made")});
    QCOMPARE(r.choose("x", Backend::Auto, text), std::string("cpu made"));  // cuda unavailable
    QCOMPARE(refusal(Backend::Cuda), std::string("1 cuda cuda"));
    device = true;
    QCOMPARE(r.choose("x", Backend::Auto, text), std::string("cuda made"));
    QCOMPARE(r.choose("x", Backend::Cpu, text), std::string("cpu made"));
    QCOMPARE(r.entries("x").size(), std::size_t{2});
    QVERIFY(!r.find("other", Backend::Cpu));
    r.add("y", Backend::Cuda, {[] { return false; }, std::string("cuda only")});
    QCOMPARE(refusal(Backend::Auto, "y"), std::string("0 auto cpu"));  // no cpu to fall back on
  }
  // Each enum's one name table (base/enum_names.hpp): every name reads back to its value, other text to
  // nothing, and the lists are those the messages print.
  void enumNamesRoundTrip() {
    auto round_trip = [](const auto& names, auto parse) {
      for (const auto& [value, name] : names)
        if (parse(name) != value || to_string(value) != name) return false;
      return !parse("") && !parse("CPU") && !parse("other");
    };
    QVERIFY(round_trip(k_backend_names, parse_backend));
    QVERIFY(round_trip(k_recon_method_names, parse_recon_method));
    QVERIFY(round_trip(k_sequence_type_names, parse_sequence_type));
    QVERIFY(round_trip(k_trajectory_names, parse_trajectory));
    QCOMPARE(enum_name_list(k_backend_names), std::string("auto, cpu, cuda"));
    QCOMPARE(enum_name_list(k_recon_method_names), std::string("fft, grappa, gridding, cg, sense, cs"));
    QCOMPARE(enum_name_list(k_sequence_type_names), std::string("spoiled_gre, spin_echo, phase_contrast, bssfp, tof"));
    QCOMPARE(enum_name_list(k_trajectory_names), std::string("cartesian, radial, golden_radial, spiral, stack_of_spirals"));
    QCOMPARE(to_string(static_cast<Backend>(7)), std::string_view("?"));
  }
  // The one equal split (threads, CPU ranks' equal slabs, GPU parts): contiguous, covering, sizes differing by
  // at most one, the larger parts first.
  void equalRangesCoverInOrder() {
    for (std::size_t n : {0, 1, 10, 65537})
      for (int parts : {1, 3, 7}) {
        QCOMPARE(range_begin(n, parts, 0), std::size_t{0});
        QCOMPARE(range_begin(n, parts, parts), n);
        for (int p = 0; p < parts; ++p) {
          const std::size_t size = range_begin(n, parts, p + 1) - range_begin(n, parts, p);
          QVERIFY(size == n / parts || size == n / parts + 1);
          if (p > 0) QVERIFY(size <= range_begin(n, parts, p) - range_begin(n, parts, p - 1));
        }
      }
    QCOMPARE(range_begin(10, 3, 1), std::size_t{4});
    QCOMPARE(range_begin(10, 3, 2), std::size_t{7});
  }
  // Host passes share the host among the MPI ranks on it (OpenMPI's OMPI_COMM_WORLD_LOCAL_SIZE; 0 when not
  // under mpirun), and MRWB_HOST_THREADS caps them further, never raises them; nonsense leaves the hardware's
  // count.
  void hostThreadsAreSharedAmongTheRanksOnAHost() {
    const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    qunsetenv("OMPI_COMM_WORLD_LOCAL_SIZE");
    qunsetenv("MRWB_HOST_THREADS");
    QCOMPARE(ranks_on_host(), 0);  // not under mpirun
    QCOMPARE(host_threads(), hw);
    qputenv("OMPI_COMM_WORLD_LOCAL_SIZE", "1");
    QCOMPARE(ranks_on_host(), 1);
    QCOMPARE(host_threads(), hw);
    qputenv("OMPI_COMM_WORLD_LOCAL_SIZE", "4");
    QCOMPARE(ranks_on_host(), 4);
    QCOMPARE(host_threads(), std::max(1u, hw / 4));
    qputenv("OMPI_COMM_WORLD_LOCAL_SIZE", "1000");  // more ranks than cores: one thread each
    QCOMPARE(host_threads(), 1u);
    qputenv("OMPI_COMM_WORLD_LOCAL_SIZE", "x");
    QCOMPARE(ranks_on_host(), 0);
    qunsetenv("OMPI_COMM_WORLD_LOCAL_SIZE");
    qputenv("MRWB_HOST_THREADS", "1");
    QCOMPARE(host_threads(), 1u);
    QCOMPARE(range_parts(std::size_t{1} << 30), 1);
    qputenv("MRWB_HOST_THREADS", QByteArray::number(hw + 5));
    QCOMPARE(host_threads(), hw);
    qputenv("MRWB_HOST_THREADS", "0");
    QCOMPARE(host_threads(), hw);
    qunsetenv("MRWB_HOST_THREADS");
    QCOMPARE(range_parts(1000), 1);  // none under 2^16 items
  }
};

QTEST_GUILESS_MAIN(TestUnit)
#include "test_unit.moc"
